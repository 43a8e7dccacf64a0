#!/bin/sh
# How much slower EM is as a shell loop of processes than in one process:
# milliseconds per iteration of `estep -m M C | mstep -o M` (two process
# starts, the corpus, the model and the counts read and written each
# time; mstep -o renames its output onto M only when it is done, after
# estep has read M and finished) and of
# train-em (the same E-step and M-step in memory), and their ratio.
#
# usage: loopspeed.sh CORPUS [LOOP_ITERATIONS [REPEATS]]
#   e.g. conll2deps --tag xpos en-ud-train-nopunct-len15.conllu | filterlen 10 > c.jsonl
#        sh examples/em/loopspeed.sh c.jsonl
#
# The loop runs LOOP_ITERATIONS (default 20) iterations from the K&M start;
# train-em's time per iteration is that of 110 iterations less that of 10,
# over 100. Each is timed REPEATS times (default 3) and the fastest kept:
# wall-clock time on a shared machine only ever comes out too slow.
set -eu
corpus=$1
n=${2:-20}
repeats=${3:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

now() { date +%s%N; }
best() { # best NAME NANOSECONDS: keep the smaller in $dir/NAME
	if [ ! -f "$dir/$1" ] || [ "$2" -lt "$(cat "$dir/$1")" ]; then echo "$2" > "$dir/$1"; fi
}

dmv-init --init km "$corpus" > "$dir/start.jsonl"
r=0
while [ "$r" -lt "$repeats" ]; do
	r=$((r + 1))
	cp "$dir/start.jsonl" "$dir/m.jsonl"
	t0=$(now)
	i=0
	while [ "$i" -lt "$n" ]; do
		i=$((i + 1))
		estep -m "$dir/m.jsonl" "$corpus" | mstep -o "$dir/m.jsonl"
	done
	t1=$(now)
	best loop $((t1 - t0))
	train-em -q --init km --tol 0 --max-iter 10 "$corpus" > "$dir/t10.jsonl"
	t2=$(now)
	train-em -q --init km --tol 0 --max-iter 110 "$corpus" > "$dir/t110.jsonl"
	t3=$(now)
	best short $((t2 - t1))
	best long $((t3 - t2))
done
# The loop's model must be train-em's after as many iterations.
train-em -q --init km --tol 0 --max-iter "$n" "$corpus" > "$dir/train-em.jsonl"
cmp -s "$dir/m.jsonl" "$dir/train-em.jsonl" || { echo "loopspeed.sh: the loop's model differs from train-em's" >&2; exit 1; }
awk -v loop="$(cat "$dir/loop")" -v short="$(cat "$dir/short")" -v long="$(cat "$dir/long")" -v n="$n" -v r="$repeats" 'BEGIN {
	l = loop / n / 1e6; t = (long - short) / 100 / 1e6
	printf "shell loop: %.1f ms per iteration (%d iterations, fastest of %d)\n", l, n, r
	printf "train-em:   %.2f ms per iteration (110 less 10 iterations, fastest of %d)\n", t, r
	printf "ratio:      %.1f\n", l / t
}'
