#!/usr/bin/env bash
# One EM iteration whose E-step runs as a Slurm job array, one task a shard.
#
# usage: em-iteration.sh [options] RUNDIR MODEL NEXT
#
# RUNDIR holds the corpus cut into shards, RUNDIR/shards/*.jsonl (em-loop.sh
# makes them; names of letters, digits, ".", "_" and "-" that sort in corpus
# order). It must be on a file system the compute nodes share with this
# machine, at the same path (a cluster's home or scratch). The iteration
# works in RUNDIR/NAME (NAME: NEXT's file name without .jsonl, each
# character but those turned into "_", or --name):
#   1. MODEL is copied to NAME/model.jsonl (the --skew model to
#      NAME/skew.jsonl), the shards are listed in NAME/shards.list, and one
#      job is submitted, sbatch --array=1-N: task i runs estep on shard i
#      (estep-task.sh) and writes NAME/SHARD.counts, whole or not at all;
#      its output goes to NAME/slurm-JOB_i.out. (More shards than the
#      cluster's MaxArraySize − 1 go in further jobs of as many tasks.)
#   2. When none of the iteration's jobs is left in the queue, the counts
#      are checked against their shards. A task that failed, was lost (its
#      node died, it ran out of time, it was cancelled or preempted) or
#      wrote counts that are not of exactly its shard's sentences (moved
#      aside to NAME/SHARD.counts.bad) has no counts, and only those tasks
#      are submitted again (--array=2,5), up to --passes submissions in all.
#   3. sumcounts adds the counts in shard order — never in the order the
#      tasks finished — and mstep --expect-sentences N writes NEXT: a shard
#      cut short or lost is refused, so NEXT is whole or not written at all.
# NAME/jobs records each submission (job id, tasks). Run again after it
# failed (--passes submissions, each of the tasks still missing), or after this script or this machine died, the iteration waits
# for its jobs still in the queue (found by their name, grind-HASH-NAME,
# HASH from RUNDIR's path), keeps the counts already made and submits only
# the shards still missing.
#
# This machine needs sbatch and squeue (a login node) and grind's
# sumcounts and mstep; the compute nodes need estep (on their PATH, or
# --estep /path/to/estep) and bash.
#
# Nothing given here reaches a shell: sbatch gets every option and the
# task every argument as one word, the names the task uses (NAME, the
# shards) are made of letters, digits and . _ -, and numbers are checked to
# be numbers. RUNDIR, MODEL, NEXT and --skew may be any file names.
#
# options:
#   --partition P         the partition (sbatch --partition; default: sbatch's,
#                         e.g. SBATCH_PARTITION from the environment)
#   --account A           the account charged (sbatch --account; or SBATCH_ACCOUNT)
#   --time T              each task's time limit (sbatch --time: MINUTES,
#                         H:MM:SS, D-HH; or SBATCH_TIMELIMIT): a task that
#                         runs out is lost and submitted again
#   --qos Q               the quality of service (sbatch --qos; or SBATCH_QOS)
#   --cpus-per-task N     CPUs of each task, estep's --workers (default 1)
#   --max-running N       at most N tasks at a time (--array=…%N)
#   --sbatch-arg ARG      any other sbatch option, as one word of the form
#                         --option or --option=value (--sbatch-arg --mem=2G,
#                         --sbatch-arg --constraint='a|b'); repeatable
#   --estep PATH          estep on the nodes (default: estep on their PATH)
#   --passes N            submissions per iteration, the first included (default 3)
#   --poll SECONDS        how often squeue is asked whether the jobs are over
#                         (default 10)
#   --name NAME           the iteration's directory in RUNDIR
#   --lambda λ            add-λ in the M-step (mstep --lambda)
#   --expect-sentences N  sentences the counts must cover (default: the
#                         shards' non-empty lines)
#   --beta B, --skew MODEL, --delta D, --seg-beta B, --hard, --split-skew
#                         passed to estep: DA, skewed DA, Model L, Model S,
#                         Viterbi EM, the CCM's random-split skew
set -euo pipefail
prog=em-iteration.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/sharded-em.sh"

estep=estep passes=3 poll=10 cpus=1 max_running="" check_only=""
sbatch_args=()
# slurm_word: a partition, account or QOS name (a list of them, with ","),
# given to sbatch as --flag=VALUE.
slurm_word() { [[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9_.,+-]*$ ]]; }
while [ $# -gt 0 ]; do
	case $1 in
	--partition | --account | --time | --qos | --cpus-per-task | --max-running | --sbatch-arg | --estep | --passes | --poll)
		[ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; usage; } ;;
	esac
	iteration_flag "$@"
	if [ "$took" -gt 0 ]; then shift "$took"; continue; fi
	case $1 in
	--partition | --account | --qos)
		slurm_word "$2" || bad "$1" "$2" "not a Slurm name (letters, digits and _ . , + -)"
		sbatch_args+=("$1=$2"); shift 2 ;;
	--time)
		[[ $2 =~ ^[0-9]+([:-][0-9]+)*$ ]] || bad "$1" "$2" "not a time limit (MINUTES, H:MM:SS, D-HH:MM, …)"
		sbatch_args+=("--time=$2"); shift 2 ;;
	--cpus-per-task) cpus=$2; shift 2 ;;
	--max-running) max_running=$2; shift 2 ;;
	--sbatch-arg)
		[[ $2 =~ ^--[a-z][a-z0-9-]*(=[][A-Za-z0-9_.,:=+/@%\&\|*!-]*)?$ ]] ||
			bad "$1" "$2" "not one sbatch option --option or --option=value (a value of letters, digits and _ . , : = + / @ % & | * ! [ ] -)"
		case ${2%%=*} in
		--array | --chdir | --output | --error | --input | --job-name | --parsable | --wrap | --wait | --test-only | --cpus-per-task)
			bad "$1" "$2" "set by em-iteration.sh itself" ;;
		esac
		sbatch_args+=("$2"); shift 2 ;;
	--estep) estep=$2; shift 2 ;;
	--passes) passes=$2; shift 2 ;;
	--poll) poll=$2; shift 2 ;;
	--check-flags) check_only=1; shift ;; # em-loop.sh: check them, and stop
	-h | --help) usage ;;
	--) shift; break ;;
	-*) printf '%s: unknown option %q\n' "$prog" "$1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 3 ] || [ -n "$check_only" ] || usage
count "$passes" && [ "$passes" -ge 1 ] || bad --passes "$passes" "not a number of passes ≥ 1"
count "$cpus" && [ "$cpus" -ge 1 ] || bad --cpus-per-task "$cpus" "not a number of CPUs ≥ 1"
[ -z "$max_running" ] || { count "$max_running" && [ "$max_running" -ge 1 ]; } || bad --max-running "$max_running" "not a number of tasks ≥ 1"
[[ $poll =~ ^([0-9]+([.][0-9]*)?|[.][0-9]+)$ ]] && [[ $poll =~ [1-9] ]] || bad --poll "$poll" "not a number of seconds > 0"
[ -n "$estep" ] || bad --estep "$estep" "empty"
command -v sbatch > /dev/null && command -v squeue > /dev/null || die "sbatch and squeue are not on the PATH (run this on a Slurm login node)"
[ -z "$check_only" ] || exit 0
user=$(id -un)

# Everything below runs in RUNDIR, which the tasks get as their working
# directory; they read NAME/model.jsonl (and NAME/skew.jsonl) and the shards.
iteration_setup "$@"
list=$(printf '%s\n' "${shards[@]#shards/}")
if [ ! -e "$name/shards.list" ] || [ "$(cat -- "$name/shards.list")" != "$list" ]; then
	printf '%s\n' "$list" > "$name/shards.list.tmp"
	mv -- "$name/shards.list.tmp" "$name/shards.list"
fi
# The iteration's jobs are named after it and after the run directory, so
# that a rerun finds those still queued whether or not it knows their ids.
jobname=grind-$(printf '%s' "$PWD" | sha256sum | cut -c1-12)-$name
touch -- "$name/jobs"

# wait_jobs: until no job of this iteration is pending or running (saying
# what they are doing every 10 minutes or so). squeue failing (the
# controller busy or restarting) is tried again, for a while.
wait_jobs() {
	local out fails=0 start=$SECONDS said=$SECONDS
	while :; do
		if out=$(squeue --noheader --user "$user" --name "$jobname" --format '%T %r' 2>&1); then
			fails=0
			[ -n "$out" ] || return 0
			if [ $((SECONDS - said)) -ge 600 ]; then
				said=$SECONDS
				echo "$prog: $name: after $(((SECONDS - start) / 60)) min, tasks $(printf '%s\n' "$out" | sort | uniq -c | awk '{ $1 = $1 " ×"; print }' | paste -s -d, | sed 's/,/, /g')" >&2
			fi
		else
			fails=$((fails + 1))
			[ "$fails" -lt 30 ] || die "squeue failed $fails times in a row: $out"
			[ "$fails" -gt 1 ] || echo "$prog: squeue failed ($out); asking again" >&2
		fi
		sleep "$poll"
	done
}
# ranges: numbers, one a line, ascending, as Slurm's array ranges: 1-3,7,9-12.
ranges() {
	awk 'function flush() { if (n) out = out (out == "" ? "" : ",") (a == b ? a : a "-" b) }
		NR == 1 || $1 != b + 1 { flush(); a = $1 } { b = $1; n = 1 } END { flush(); print out }'
}
# Task ids run from 1 to MaxArraySize − 1 (Slurm's default: 1000): shards
# beyond are submitted in further jobs, whose task i runs shard offset + i.
block=$(scontrol show config 2> /dev/null | awk '$1 == "MaxArraySize" { print $3 - 1 }') || true
count "$block" && [ "$block" -ge 1 ] || block=1000
# submit SHARDS: the shards (their indexes, one a line, ascending) as one job
# per block of task ids, each recorded in NAME/jobs (job id, shards).
submit() {
	local b offset tasks list
	list=$(cat)
	for b in $(awk -v B="$block" '{ print int(($1 - 1) / B) }' <<< "$list" | uniq); do
		offset=$((b * block))
		tasks=$(awk -v B="$block" -v b="$b" 'int(($1 - 1) / B) == b { print $1 - b * B }' <<< "$list" | ranges)
		submit_job "$offset" "$tasks"
	done
}
submit_job() { # submit_job OFFSET ARRAY
	local out spec=$2
	[ -z "$max_running" ] || spec="$spec%$max_running"
	# --output: the task writes its own (estep-task.sh); Slurm would read
	# % and \ in RUNDIR's path as its file name patterns.
	out=$(sbatch --parsable --job-name="$jobname" --chdir="$PWD" --output=/dev/null \
		--array="$spec" --cpus-per-task="$cpus" "${sbatch_args[@]}" \
		"$here/estep-task.sh" "$name" "$1" "$estep" "${estep_flags[@]}" < /dev/null 2>&1) ||
		die "sbatch refused the job: $out"
	out=${out##*$'\n'} # the job id (after any warnings), ";cluster" dropped
	job=${out%%;*}
	[[ $job =~ ^[0-9]+$ ]] || die "sbatch answered $(printf %q "$out"), not a job id"
	local shards_of
	shards_of=$(printf '%s' "$2" | tr ',' '\n' | awk -F- -v o="$1" '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i + o }' | ranges)
	echo "$job $shards_of" >> "$name/jobs"
	if [ "$1" = 0 ]; then
		echo "$prog: $name: job $job, shards $shards_of" >&2
	else
		echo "$prog: $name: job $job, shards $shards_of (its tasks $2)" >&2
	fi
}

# Jobs of an earlier run of this iteration first: their counts count.
wait_jobs
done_passes=0
while :; do
	find_missing
	[ -n "$lost" ] || break
	if [ "$done_passes" -ge "$passes" ]; then
		die "shard(s) $lost still missing after $done_passes submission(s) (see $rundir/$name/jobs and $rundir/$name/slurm-*.out), then run this again to submit only those"
	fi
	[ "$lost" = "$(seq -s ' ' 1 ${#shards[@]})" ] ||
		echo "$prog: $name: shard(s) $lost missing; submitting only those (submission $((done_passes + 1)) of $passes)" >&2
	printf '%s\n' $lost | submit
	done_passes=$((done_passes + 1))
	wait_jobs
done

reduce
