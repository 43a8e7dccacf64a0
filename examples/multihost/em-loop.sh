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
# The flags are --beta B, --delta D, --seg-beta B (numbers), --skew FILE,
# --split-skew (the CCM's) and --hard; words are split at blanks, and quotes group them as a shell's
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

prog=em-loop.sh
. "$(dirname "$0")/../lib/sharded-em.sh"

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

# The stages, every line checked before the first iteration.
read_schedule "$schedule" "$iterations"

if [ -z "$rundir" ]; then
	rundir=$(mktemp -d)
	trap 'rm -rf -- "$rundir"' EXIT
fi
prepare_run "$rundir" "$corpus" "$start" "$per" "$lambda"
run_schedule "$rundir" "$lambda" "$here/em-iteration.sh" -S "$logins" "${pass_on[@]}"
