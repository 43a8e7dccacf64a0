#!/bin/sh
# The shell loop's cost a step with two sets of programs, timed by turns
# (A B A B …), so that a load on the machine weighs on both alike: CPU
# seconds (user + system, the shell's forks included) and wall seconds a
# step, each pair's ratio A/B, and the medians of the ratios. On a shared
# machine the CPU time moves far less with the load than the wall time
# loopspeed.sh measures. Both loops must end in the same model, byte for
# byte.
#
# usage: loopcpu.sh [--only estep|mstep|train-em] DIR_A DIR_B CORPUS [PAIRS [STEPS]]
#   DIR_A, DIR_B: directories holding estep, mstep, dmv-init and train-em (the bin/
#   of two commits, say: copy them, since a binary the linker has just
#   written starts slower than the same bytes read back); PAIRS (default
#   10) pairs of STEPS (default 50) steps each, from the K&M start (GNU
#   time counts hundredths of a second: 50 steps of about 16 ms of CPU
#   make that 1%).
#   e.g. make build && cp -r bin /tmp/new
#        git checkout OLD && make build && cp -r bin /tmp/old && git checkout -
#        sh examples/em/loopcpu.sh /tmp/new /tmp/old xpos.jsonl
#        sh examples/em/loopcpu.sh --only estep /tmp/new /tmp/old xpos.jsonl
# --only estep times estep alone, its counts of the start model thrown
# away; --only mstep mstep alone, on DIR_A's estep's counts of it (give it
# 200 STEPS: it takes about 4 ms); --only train-em one train-em run of
# STEPS iterations from the K&M start (its start and reading included).
# Needs GNU time (/usr/bin/time).
set -eu
only=loop
if [ "${1:-}" = --only ]; then
	only=$2
	shift 2
fi
case $only in
loop | estep | mstep | train-em) ;;
*) echo "loopcpu.sh: --only estep, mstep or train-em, not $only" >&2; exit 2 ;;
esac
a=$1 b=$2 corpus=$3
pairs=${4:-10}
steps=${5:-50}
[ -x /usr/bin/time ] || { echo "loopcpu.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$a/dmv-init" --init km "$corpus" > "$dir/start.jsonl"
"$a/estep" -m "$dir/start.jsonl" "$corpus" > "$dir/counts.jsonl"
# run NAME BIN: STEPS steps of BIN's programs from the start (or STEPS
# runs of one of them, --only), into $dir/NAME.jsonl; prints "cpu wall" a
# step, in milliseconds.
run() {
	cp "$dir/start.jsonl" "$dir/$1.jsonl"
	/usr/bin/time -f '%U %S %e' -o "$dir/time" sh -c '
		[ "$5" = train-em ] && exec "$2/train-em" -q --init km --tol 0 --max-iter "$1" -o "$3.out" "$4"
		i=0
		while [ "$i" -lt "$1" ]; do
			i=$((i + 1))
			case $5 in
			loop) "$2/estep" -m "$3" "$4" | "$2/mstep" -o "$3" ;;
			estep) "$2/estep" -m "$3" "$4" > "$3.out" ;;
			mstep) "$2/mstep" -o "$3.out" "$6" ;;
			esac
		done' loop "$steps" "$2" "$dir/$1.jsonl" "$corpus" "$only" "$dir/counts.jsonl"
	awk -v n="$steps" '{ printf "%.2f %.2f\n", ($1 + $2) * 1000 / n, $3 * 1000 / n }' "$dir/time"
}
p=0
while [ "$p" -lt "$pairs" ]; do
	p=$((p + 1))
	ra=$(run a "$a") rb=$(run b "$b")
	# (a time below GNU time's hundredth of a second gives no ratio)
	echo "$ra $rb" | awk '$3 > 0 && $4 > 0 { printf "%.4f %.4f\n", $1 / $3, $2 / $4 }' >> "$dir/ratios"
	echo "$ra $rb" | awk -v p="$p" '{ printf "pair %d: A %s ms CPU, %s ms wall a step; B %s, %s", p, $1, $2, $3, $4 }
		$3 > 0 && $4 > 0 { printf "; A/B CPU %.3f, wall %.3f", $1 / $3, $2 / $4 } { print "" }'
done
out=.jsonl # the loop's model, or what the program alone wrote
[ "$only" = loop ] || out=.jsonl.out
cmp -s "$dir/a$out" "$dir/b$out" || { echo "loopcpu.sh: A and B wrote different bytes" >&2; exit 1; }
# median COLUMN: the median of the pairs' ratios in that column of
# $dir/ratios, and their range.
median() {
	cut -d' ' -f"$1" "$dir/ratios" | sort -g |
		awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f (%.3f–%.3f)", m, v[1], v[NR] }'
}
[ -s "$dir/ratios" ] || { echo "loopcpu.sh: no ratio: give more STEPS" >&2; exit 1; }
echo "median A/B: CPU $(median 1), wall $(median 2)"
