#!/usr/bin/env bash
# EM, DA, SDA, Viterbi EM or SA with the E-step on several hosts: a schedule
# of em-iteration.sh runs, the model on this machine in between.
#
# usage: em-loop.sh -S SSHLOGINFILE [options] CORPUS START > model.jsonl
#
# START is the first model (dmv-init's, or any model file). The corpus is cut
# into shards of --per sentences once, in RUNDIR/shards; iteration k reads
# RUNDIR/model-(k-1).jsonl and writes RUNDIR/model-k.jsonl (model-0000 is
# START). With --run-dir the directory is kept, and a run killed at any
# point goes on from its last finished iteration when started again with the
# same arguments (a longer schedule continues it).
#
# The schedule (--schedule FILE) has one stage a line: a number of
# iterations, then estep's flags for that stage ("#" starts a comment):
#   4 --beta 0.25 --skew start.jsonl    # skewed DA, as train-da --skew
#   4 --beta 0.5 --skew start.jsonl     #   --beta0 0.25 --gamma 2
#   4                                   #   --max-iter 4 --tol 0
# --iterations N is the one-line schedule "N" (plain EM). Stages run a fixed
# number of iterations, so the result equals train-em / train-da / train-sa
# with --max-iter N --tol 0 and the same schedule (to summation order, 1e-9).
#
# options:
#   -S FILE           GNU parallel's sshloginfile (see em-iteration.sh)
#   --iterations N    plain EM, N iterations (default 10)
#   --schedule FILE   stages, as above
#   --per N           sentences per shard (default 1000)
#   --run-dir DIR     keep the shards, joblogs and every iteration's model
#   --lambda λ        add-λ in every M-step
#   --estep CMD, --remote-dir DIR, --retries N, --passes N
#                     passed to em-iteration.sh
set -euo pipefail

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
die() {
	echo "em-loop.sh: $*" >&2
	exit 1
}

here=$(cd "$(dirname "$0")" && pwd)
logins="" iterations=10 schedule="" per=1000 rundir="" lambda=0
pass_on=()
while [ $# -gt 0 ]; do
	case $1 in
	-S | --sshloginfile) logins=$2; shift 2 ;;
	--iterations) iterations=$2; shift 2 ;;
	--schedule) schedule=$2; shift 2 ;;
	--per) per=$2; shift 2 ;;
	--run-dir) rundir=$2; shift 2 ;;
	--lambda) lambda=$2; shift 2 ;;
	--estep | --remote-dir | --retries | --passes) pass_on+=("$1" "$2"); shift 2 ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) echo "em-loop.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] && [ -n "$logins" ] || usage
corpus=$1 start=$2
[ -r "$corpus" ] || die "cannot read the corpus $corpus"
[ -r "$start" ] || die "cannot read the start model $start"
case $per in '' | *[!0-9]* | 0) die "--per must be a positive number" ;; esac

if [ -z "$rundir" ]; then
	rundir=$(mktemp -d)
	trap 'rm -rf "$rundir"' EXIT
fi
mkdir -p "$rundir"

# The stages, one "N FLAGS…" line each.
if [ -n "$schedule" ]; then
	stages=$(sed 's/#.*//' "$schedule" | awk 'NF')
else
	stages=$iterations
fi
[ -n "$stages" ] || die "the schedule is empty"

# What this run is: a run directory belongs to one corpus, start, shard size
# and λ; resuming with anything else is refused. (The schedule may grow:
# iterations already made are kept.)
id=$( { sha256sum < "$corpus"; sha256sum < "$start"; echo "per $per lambda $lambda"; } | sha256sum)
if [ -e "$rundir/run-id" ]; then
	[ "$(cat "$rundir/run-id")" = "$id" ] || die "$rundir belongs to another run (corpus, start, --per or --lambda differ)"
else
	echo "$id" > "$rundir/run-id"
fi

if [ ! -d "$rundir/shards" ]; then
	rm -rf "$rundir/shards.tmp"
	mkdir "$rundir/shards.tmp"
	awk -v per="$per" -v dir="$rundir/shards.tmp" '
		(NR - 1) % per == 0 { if (out) close(out); out = sprintf("%s/shard-%06d.jsonl", dir, (NR - 1) / per + 1) }
		{ print > out }' "$corpus"
	mv "$rundir/shards.tmp" "$rundir/shards"
fi
[ -e "$rundir/model-0000.jsonl" ] || cp "$start" "$rundir/model-0000.jsonl"

k=0
while read -r n flags; do
	case $n in '' | *[!0-9]*) die "schedule line '$n $flags': the first field must be a number of iterations" ;; esac
	i=0
	while [ "$i" -lt "$n" ]; do
		i=$((i + 1)) k=$((k + 1))
		prev=$(printf '%s/model-%04d.jsonl' "$rundir" $((k - 1)))
		next=$(printf '%s/model-%04d.jsonl' "$rundir" "$k")
		[ -e "$next" ] && continue # done before the run was killed
		echo "em-loop.sh: iteration $k ($flags)" >&2
		# shellcheck disable=SC2086 # the stage's flags are words
		"$here/em-iteration.sh" -S "$logins" "${pass_on[@]}" --lambda "$lambda" \
			--name "$(printf 'iter-%04d' "$k")" $flags "$rundir" "$prev" "$next" < /dev/null
	done
done <<< "$stages"
cat "$(printf '%s/model-%04d.jsonl' "$rundir" "$k")"
