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
# iterations, then estep's flags for that stage ("#" at the start of a word
# starts a comment):
#   4 --beta 0.25 --skew start.jsonl    # skewed DA, as train-da --skew
#   4 --beta 0.5 --skew start.jsonl     #   --beta0 0.25 --gamma 2
#   4                                   #   --max-iter 4 --tol 0
# The flags are --beta B, --delta D, --seg-beta B (numbers), --skew FILE and
# --hard; words are split at blanks, and quotes group them as a shell's
# would ('my start.jsonl'), but nothing in a line is ever run or expanded.
# The whole schedule is checked before the first iteration.
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
#   --estep PATH, --remote-dir DIR, --retries N, --passes N
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
bad() { # bad FLAG VALUE WHAT
	printf 'em-loop.sh: %s %q: %s\n' "$1" "$2" "$3" >&2
	exit 2
}
number() { [[ $1 =~ ^[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?$ ]]; }
count() { [[ $1 =~ ^[0-9]+$ ]]; }

here=$(cd "$(dirname "$0")" && pwd)
logins="" iterations=10 schedule="" per=1000 rundir="" lambda=0
pass_on=()
while [ $# -gt 0 ]; do
	case $1 in
	-S | --sshloginfile | --iterations | --schedule | --per | --run-dir | --lambda | --estep | --remote-dir | --retries | --passes)
		[ $# -ge 2 ] || { echo "em-loop.sh: $1 needs a value" >&2; usage; } ;;
	esac
	case $1 in
	-S | --sshloginfile) logins=$2; shift 2 ;;
	--iterations) iterations=$2; shift 2 ;;
	--schedule) schedule=$2; shift 2 ;;
	--per) per=$2; shift 2 ;;
	--run-dir) rundir=$2; shift 2 ;;
	--lambda) lambda=$2; shift 2 ;;
	--retries | --passes)
		count "$2" && [ "$2" -ge 1 ] || bad "$1" "$2" "not a number ≥ 1"
		pass_on+=("$1" "$2"); shift 2 ;;
	--estep | --remote-dir) pass_on+=("$1" "$2"); shift 2 ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) printf 'em-loop.sh: unknown option %q\n' "$1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] && [ -n "$logins" ] || usage
corpus=$1 start=$2
count "$per" && [ "$per" -gt 0 ] || bad --per "$per" "not a positive number of sentences"
count "$iterations" || bad --iterations "$iterations" "not a number of iterations"
number "$lambda" || bad --lambda "$lambda" "not a number"
[ -r "$corpus" ] || die "cannot read the corpus $corpus"
[ -r "$start" ] || die "cannot read the start model $start"

# The stages, each a line of the schedule (its number kept for messages).
# stage LINE sets iters and flags (estep's flags, one word each) from a
# schedule line, or dies naming it: xargs splits the words as a shell
# would, quotes and all, without expanding or running anything.
stage() {
	local at=$1 line=$2 w
	local -a words=()
	if ! w=$(printf '%s\n' "$line" | LC_ALL=C xargs -r printf '%s\0' 2>&1 | tr '\0' '\1'); then
		die "schedule line $at: ${w##*xargs: }"
	fi
	[ -z "$w" ] || IFS=$'\1' read -r -a words <<< "${w%$'\1'}"
	iters=${words[0]:-} flags=()
	count "$iters" || die "schedule line $at: the first field must be a number of iterations, not $(printf %q "$iters")"
	local i=1
	while [ "$i" -lt ${#words[@]} ]; do
		w=${words[$i]}
		case $w in
		--beta | --delta | --seg-beta)
			number "${words[$((i + 1))]:-}" || die "schedule line $at: $w needs a number, not $(printf %q "${words[$((i + 1))]:-}")"
			flags+=("$w" "${words[$((i + 1))]}") i=$((i + 2)) ;;
		--skew)
			[ -r "${words[$((i + 1))]:-}" ] || die "schedule line $at: cannot read the --skew model $(printf %q "${words[$((i + 1))]:-}")"
			flags+=(--skew "${words[$((i + 1))]}") i=$((i + 2)) ;;
		--hard) flags+=(--hard) i=$((i + 1)) ;;
		*) die "schedule line $at: $(printf %q "$w") is not a flag of a stage (--beta, --delta, --seg-beta, --skew, --hard)" ;;
		esac
	done
}
lines=() at=()
if [ -n "$schedule" ]; then
	[ -r "$schedule" ] || die "cannot read the schedule $schedule"
	k=0
	while IFS= read -r line || [ -n "$line" ]; do
		k=$((k + 1))
		line=$(printf '%s\n' "$line" | sed 's/\(^\|[[:space:]]\)#.*//')
		[[ $line =~ [^[:space:]] ]] || continue
		stage "$k" "$line" # every line checked before the first iteration
		lines+=("$line") at+=("$k")
	done < "$schedule"
else
	lines=("$iterations") at=(--iterations)
fi
[ ${#lines[@]} -gt 0 ] || die "the schedule is empty"

if [ -z "$rundir" ]; then
	rundir=$(mktemp -d)
	trap 'rm -rf -- "$rundir"' EXIT
fi
mkdir -p -- "$rundir"

# What this run is: a run directory belongs to one corpus, start, shard size
# and λ; resuming with anything else is refused. (The schedule may grow:
# iterations already made are kept.)
id=$( { sha256sum < "$corpus"; sha256sum < "$start"; echo "per $per lambda $lambda"; } | sha256sum)
if [ -e "$rundir/run-id" ]; then
	[ "$(cat -- "$rundir/run-id")" = "$id" ] || die "$rundir belongs to another run (corpus, start, --per or --lambda differ)"
else
	echo "$id" > "$rundir/run-id"
fi

if [ ! -d "$rundir/shards" ]; then
	rm -rf -- "$rundir/shards.tmp"
	mkdir -- "$rundir/shards.tmp"
	# The folder by the environment and the corpus on stdin: awk would
	# read escapes in a -v value and take an operand "a=b" for a variable.
	per=$per dir=$rundir/shards.tmp awk '
		(NR - 1) % ENVIRON["per"] == 0 { if (out) close(out); out = sprintf("%s/shard-%06d.jsonl", ENVIRON["dir"], (NR - 1) / ENVIRON["per"] + 1) }
		{ print > out }' < "$corpus"
	mv -- "$rundir/shards.tmp" "$rundir/shards"
fi
[ -e "$rundir/model-0000.jsonl" ] || cp -- "$start" "$rundir/model-0000.jsonl"

k=0
for j in "${!lines[@]}"; do
	stage "${at[$j]}" "${lines[$j]}"
	i=0
	while [ "$i" -lt "$iters" ]; do
		i=$((i + 1)) k=$((k + 1))
		prev=$(printf '%s/model-%04d.jsonl' "$rundir" $((k - 1)))
		next=$(printf '%s/model-%04d.jsonl' "$rundir" "$k")
		[ -e "$next" ] && continue # done before the run was killed
		echo "em-loop.sh: iteration $k (${flags[*]})" >&2
		"$here/em-iteration.sh" -S "$logins" "${pass_on[@]}" --lambda "$lambda" \
			--name "$(printf 'iter-%04d' "$k")" "${flags[@]}" -- "$rundir" "$prev" "$next" < /dev/null
	done
done
cat -- "$(printf '%s/model-%04d.jsonl' "$rundir" "$k")"
