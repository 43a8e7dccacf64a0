#!/bin/bash
# The E-step of one shard: one task of em-iteration.sh's job array, which
# sbatch runs on a compute node in the run directory (--chdir). Task i runs
# estep on the shard named on line OFFSET + i of NAME/shards.list (OFFSET:
# 0, or a multiple of MaxArraySize − 1 in a run of more shards than a job
# array may have tasks) and writes its counts to NAME/SHARD.counts, whole
# or not at all (estep -o), with as many workers as the task has CPUs
# (--cpus-per-task).
#
# usage (by sbatch): estep-task.sh NAME OFFSET ESTEP [ESTEP'S FLAGS...]
#
# Every argument reaches estep as one word: nothing here is evaluated.
set -euo pipefail
[ $# -ge 3 ] || { echo "estep-task.sh: usage: estep-task.sh NAME OFFSET ESTEP [FLAGS...]" >&2; exit 2; }
name=$1 offset=$2 estep=$3
shift 3
safe() { [[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*$ ]]; }
i=${SLURM_ARRAY_TASK_ID:-}
[[ $i =~ ^[1-9][0-9]*$ ]] || { echo "estep-task.sh: not a task of a job array (SLURM_ARRAY_TASK_ID '$i')" >&2; exit 2; }
safe "$name" || { echo "estep-task.sh: bad iteration name" >&2; exit 2; }
[[ $offset =~ ^[0-9]+$ ]] || { echo "estep-task.sh: bad offset" >&2; exit 2; }
job=${SLURM_ARRAY_JOB_ID:-0}
[[ $job =~ ^[0-9]+$ ]] || job=0
# The task's output, beside its counts (not sbatch --output, whose file
# name patterns would take % and \ in the run directory's path for theirs).
exec > "$name/slurm-${job}_$i.out" 2>&1
n=$((10#$offset + i))
shard=$(sed -n "${n}p" "$name/shards.list")
safe "$shard" || { echo "estep-task.sh: no shard $n in $PWD/$name/shards.list" >&2; exit 1; }
workers=${SLURM_CPUS_PER_TASK:-1}
[[ $workers =~ ^[1-9][0-9]*$ ]] || workers=1
echo "estep-task.sh: task $i of job $job on $(hostname): shards/$shard" >&2
exec "$estep" -m "$name/model.jsonl" "$@" --workers "$workers" --quiet -o "$name/${shard%.jsonl}.counts" "shards/$shard"
