#!/usr/bin/env bash
# Contrastive estimation with its E-steps on several hosts: ce-step on this
# machine between them, the E-steps of each evaluation — over the sentences
# and over their neighbourhoods — sharded over the hosts by em-iteration.sh.
#
# usage: ce-loop.sh -S SSHLOGINFILE [options] CORPUS NBHD [-- CE-STEP-START-OPTIONS] > model.jsonl
#
# CE-STEP-START-OPTIONS are ce-step --start's (train-ce's, with --states K
# train-hmm --estimator ce's, or with --family modelu train-ce --family
# modelu's): e.g. -- --init km --max-iter 10 --tol 0. The result equals
# train-ce --nbhd NBHD (or train-hmm --estimator ce --nbhd NBHD
# --save-model) with those options, to summation order (see
# examples/ce/check.sh). In RUNDIR: the corpus in shards of --per sentences
# (sentences/shards) and their neighbourhoods in as many shards
# (lattices/shards, made once by nbhd here, --words for the HMM, --spelling
# for Model U's spelling features), the state
# (ce.state), the weights it waits for (w.jsonl), its log (ce.log), and for
# evaluation k the directories of its two sharded E-steps, eval-k.sentences
# and eval-k.lattices (each em-iteration.sh's), and their summed counts.
# With --run-dir the directory is kept, and a run killed at any point goes
# on when started again with the same arguments: an E-step cut short runs
# again only its missing shards, and ce-step's state is where it was.
#
# options:
#   -S FILE           GNU parallel's sshloginfile (see em-iteration.sh)
#   --per N           sentences per shard (default 1000)
#   --run-dir DIR     keep the shards, joblogs, counts and state
#   --estep PATH, --remote-dir DIR, --retries N, --passes N
#                     passed to em-iteration.sh
# Nothing given here reaches a shell: as em-iteration.sh, the hosts see only
# checked names, and the options after -- go to ce-step as words.
set -euo pipefail

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
die() {
	echo "ce-loop.sh: $*" >&2
	exit 1
}
bad() { # bad FLAG VALUE WHAT
	printf 'ce-loop.sh: %s %q: %s\n' "$1" "$2" "$3" >&2
	exit 2
}
count() { [[ $1 =~ ^[0-9]+$ ]]; }

here=$(cd "$(dirname "$0")" && pwd)
logins="" per=1000 rundir=""
pass_on=()
while [ $# -gt 0 ]; do
	case $1 in
	-S | --sshloginfile | --per | --run-dir | --estep | --remote-dir | --retries | --passes)
		[ $# -ge 2 ] || { echo "ce-loop.sh: $1 needs a value" >&2; usage; } ;;
	esac
	case $1 in
	-S | --sshloginfile) logins=$2; shift 2 ;;
	--per) per=$2; shift 2 ;;
	--run-dir) rundir=$2; shift 2 ;;
	--retries | --passes)
		count "$2" && [ "$2" -ge 1 ] || bad "$1" "$2" "not a number ≥ 1"
		pass_on+=("$1" "$2"); shift 2 ;;
	--estep | --remote-dir) pass_on+=("$1" "$2"); shift 2 ;;
	-h | --help) usage ;;
	-*) printf 'ce-loop.sh: unknown option %q\n' "$1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] && [ -n "$logins" ] || usage
corpus=$1 kind=$2
shift 2
if [ $# -gt 0 ]; then
	[ "$1" = -- ] || usage
	shift
fi
start=("$@") # ce-step --start's options, each one word
case " ${start[*]} " in
*" --family modelu "* | *" --family u "*) start=(--nbhd "$kind" "${start[@]}") ;; # Model U's header names it
esac
for o in "${start[@]}"; do
	case $o in
	--state | --state=* | -o | --output | --output=* | --log | --log=* | --start) bad "ce-step's option" "$o" "the loop gives ce-step its state, output and log itself" ;;
	esac
done
count "$per" && [ "$per" -gt 0 ] || bad --per "$per" "not a positive number of sentences"
[[ $kind =~ ^[a-z0-9]+$ ]] || bad NBHD "$kind" "not a neighbourhood's name (nbhd --kind)"
[ -r "$corpus" ] || die "cannot read the corpus $corpus"

if [ -z "$rundir" ]; then
	rundir=$(mktemp -d)
	trap 'rm -rf -- "$rundir"' EXIT
fi
mkdir -p -- "$rundir"
# A run directory belongs to one corpus, neighbourhood, shard size and start.
id=$( { sha256sum < "$corpus"; printf '%s\0' "$kind" "$per" "${start[@]}"; } | sha256sum)
if [ -e "$rundir/run-id" ]; then
	[ "$(cat -- "$rundir/run-id")" = "$id" ] || die "$rundir belongs to another run (corpus, NBHD, --per or ce-step's options differ)"
else
	echo "$id" > "$rundir/run-id"
fi

state=$rundir/ce.state
w=$rundir/w.jsonl
if [ ! -e "$state" ]; then
	ce-step --start "${start[@]}" --quiet --state "$state.tmp" --log "$rundir/ce.log" -o "$w" "$corpus"
	mv -- "$state.tmp" "$state"
fi
words=()
[ "$(jq -r .family "$state")" = hmm ] && words=(--words) # the HMM's neighbourhoods are of words
[ "$(jq -r '.family == "modelu" and .spelling' "$state")" = true ] && words=(--spelling) # Model U's spelling reads the words

# The corpus in shards, and each shard's neighbourhoods, made once (length
# spells strings over the start's tags or words).
if [ ! -d "$rundir/lattices/shards" ]; then
	rm -rf -- "$rundir/sentences" "$rundir/lattices"
	mkdir -p -- "$rundir/sentences/shards.tmp" "$rundir/lattices/shards.tmp"
	per=$per dir=$rundir/sentences/shards.tmp awk '
		(NR - 1) % ENVIRON["per"] == 0 { if (out) close(out); out = sprintf("%s/shard-%06d.jsonl", ENVIRON["dir"], (NR - 1) / ENVIRON["per"] + 1) }
		{ print > out }' < "$corpus"
	tagset=()
	[ "$kind" = length ] && tagset=(-m "$w")
	for s in "$rundir"/sentences/shards.tmp/shard-*.jsonl; do
		nbhd "${words[@]}" --kind "$kind" "${tagset[@]}" --quiet -o "$rundir/lattices/shards.tmp/${s##*/}" "$s"
	done
	mv -- "$rundir/sentences/shards.tmp" "$rundir/sentences/shards"
	mv -- "$rundir/lattices/shards.tmp" "$rundir/lattices/shards"
fi

while [ "$(jq -r .status "$state")" = evaluate ]; do
	k=$(($(jq .evaluations "$state") + 1))
	name=$(printf 'eval-%04d' "$k")
	# The weights the state waits for (again: a kill between the state and
	# -o leaves the older ones), and the δ of its stage (Model L).
	ce-step --quiet --state "$state" -o "$w"
	delta=$(jq -r '.delta // 0' "$state")
	echo "ce-loop.sh: evaluation $k (stage $(jq -r '.stage // 1' "$state"), δ $delta)" >&2
	for part in sentences lattices; do
		"$here/em-iteration.sh" -S "$logins" "${pass_on[@]}" --sum-only --delta "$delta" \
			--name "$name" -- "$rundir/$part" "$w" "$rundir/$part/$name.counts" < /dev/null
	done
	ce-step --quiet --state "$state" --log "$rundir/ce.log" -o "$w" \
		"$rundir/sentences/$name.counts" "$rundir/lattices/$name.counts"
done
cat -- "$w"
