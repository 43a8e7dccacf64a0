#!/usr/bin/env bash
# EM, DA, SDA, Viterbi EM or SA with the E-step of every iteration a Slurm
# job array over the corpus's shards, and the reduce (sumcounts | mstep
# --expect-sentences N) on this machine: a schedule of em-iteration.sh runs.
#
# usage: em-loop.sh [options] CORPUS START > model.jsonl
#
# START is the first model of any family grind's estep and mstep take (a
# DMV from dmv-init, a CCM or DMV+CCM from train-ccm --max-iter 0
# --save-model, an HMM from train-hmm --save-model, …). The corpus is cut
# into shards of --per sentences once, in RUNDIR/shards; iteration k reads
# RUNDIR/model-(k-1).jsonl and writes RUNDIR/model-k.jsonl (model-0000 is
# START). RUNDIR (--run-dir, required) must be on a file system the
# compute nodes share, at the same path. A run killed at any point — this
# script, the login node, a task — goes on from where it was when started
# again with the same arguments: the iterations made are kept, and in the
# interrupted one the tasks still queued are waited for, the counts
# already made kept and only the missing shards submitted (a longer
# schedule continues a run).
#
# The schedule (--schedule FILE) has one stage a line: a number of
# iterations, then estep's flags for that stage ("#" at the start of a word
# starts a comment):
#   4 --beta 0.25 --skew start.jsonl    # skewed DA, as train-da --skew
#   4 --beta 0.5 --skew start.jsonl     #   --beta0 0.25 --gamma 2
#   4                                   #   --max-iter 4 --tol 0
# The flags are --beta B, --delta D, --seg-beta B (numbers), --skew FILE,
# --split-skew (the CCM's) and --hard; words are split at blanks, and
# quotes group them as a shell's would ('my start.jsonl'), but nothing in a
# line is ever run or expanded. The whole schedule is checked before the
# first iteration. --iterations N is the one-line schedule "N" (plain EM).
# Stages run a fixed number of iterations, so the result equals train-em /
# train-da / train-sa / train-ccm / train-hmm with --max-iter N --tol 0 and
# the same schedule (to summation order, 1e-9).
#
# options:
#   --iterations N    plain EM, N iterations (default 10)
#   --schedule FILE   stages, as above
#   --per N           sentences per shard, one array task each (default 1000)
#   --run-dir DIR     the run directory (shards, jobs, tasks' output, every
#                     iteration's model); required
#   --lambda λ        add-λ in every M-step
#   --partition P, --account A, --time T, --qos Q, --cpus-per-task N,
#   --max-running N, --sbatch-arg ARG, --estep PATH, --passes N, --poll S
#                     passed to em-iteration.sh: where the tasks run and
#                     what they may use (sbatch also reads SBATCH_PARTITION,
#                     SBATCH_ACCOUNT, SBATCH_TIMELIMIT, SBATCH_QOS, …)
set -euo pipefail
prog=em-loop.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/sharded-em.sh"

iterations=10 schedule="" per=1000 rundir="" lambda=0
pass_on=()
while [ $# -gt 0 ]; do
	case $1 in
	--iterations | --schedule | --per | --run-dir | --lambda | --partition | --account | --time | --qos | \
		--cpus-per-task | --max-running | --sbatch-arg | --estep | --passes | --poll)
		[ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; usage; } ;;
	esac
	case $1 in
	--iterations) iterations=$2; shift 2 ;;
	--schedule) schedule=$2; shift 2 ;;
	--per) per=$2; shift 2 ;;
	--run-dir) rundir=$2; shift 2 ;;
	--lambda) lambda=$2; shift 2 ;;
	--passes | --cpus-per-task | --max-running)
		count "$2" && [ "$2" -ge 1 ] || bad "$1" "$2" "not a number ≥ 1"
		pass_on+=("$1" "$2"); shift 2 ;;
	--partition | --account | --time | --qos | --sbatch-arg | --estep | --poll) pass_on+=("$1" "$2"); shift 2 ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) printf '%s: unknown option %q\n' "$prog" "$1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage
[ -n "$rundir" ] || { echo "$prog: --run-dir is required (a directory the compute nodes see at the same path)" >&2; usage; }
corpus=$1 start=$2
count "$per" && [ "$per" -gt 0 ] || bad --per "$per" "not a positive number of sentences"
count "$iterations" || bad --iterations "$iterations" "not a number of iterations"
number "$lambda" || bad --lambda "$lambda" "not a number"
[ -r "$corpus" ] || die "cannot read the corpus $corpus"
[ -r "$start" ] || die "cannot read the start model $start"

# The stages, every line checked before the first iteration.
read_schedule "$schedule" "$iterations"
# em-iteration.sh's own flags, checked before the first iteration too.
"$here/em-iteration.sh" --check-flags "${pass_on[@]}"

prepare_run "$rundir" "$corpus" "$start" "$per" "$lambda"
run_schedule "$(abs "$rundir")" "$lambda" "$here/em-iteration.sh" "${pass_on[@]}"
