#!/bin/sh
# The cost of posterior regularization per EM iteration, as CPU time:
# stages/pr's BenchmarkIteration (UD English ≤ 10, XPOS, 20 iterations from
# km, one worker) run case by case in processes of their own, user + sys of
# each minus that of a process that only loads the corpus, ROUNDS rounds
# interleaved (A B C … A B C …), the median of each case and its ratio to
# EM's. CPU time, not wall clock: on a loaded machine the wall clock of one
# binary swings by 2× between runs.
#
#   sh examples/induce/pr-cost.sh [ROUNDS [CASES]]   (default 5, "em rules sparsity sparsity-exact sparsity-1step")
#   SIMD= sh examples/induce/pr-cost.sh               the scalar chart's build (the tables before 28 November)
#
# Skips when ../shared/data is absent (the benchmark does).
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-5}
cases=${2:-em rules sparsity sparsity-exact sparsity-1step}
n=3 # benchmark loops per process, 20 iterations each
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Built as make builds the programs: with Go's simd experiment where the
# toolchain has it (the E-step's AVX-512 lanes; SIMD= sh pr-cost.sh: the
# scalar chart).
if [ -z "${SIMD+set}" ]; then
	SIMD=$([ "$(go env GOARCH)" = amd64 ] && GOEXPERIMENT=simd go list simd/archsimd >/dev/null 2>&1 && echo simd || true)
fi
echo "pr-cost: built with GOEXPERIMENT=${SIMD:-(none)}" >&2
GOEXPERIMENT=$SIMD go test -c -o "$tmp/pr.test" ./stages/pr
cpu() { # CPU seconds of the benchmark pattern $1
	(cd stages/pr && /usr/bin/time -f '%U %S' -o "$tmp/t" "$tmp/pr.test" -test.run '^$' -test.bench "$1" -test.benchtime ${n}x >"$tmp/out" 2>&1)
	grep -q 'SKIP' "$tmp/out" && { echo "pr-cost: ../shared/data absent; skipped" >&2; exit 0; }
	awk '{ print $1 + $2 }' "$tmp/t"
}
for r in $(seq "$rounds"); do
	load=$(cpu "^BenchmarkIteration\$/^none\$")
	for c in $cases; do
		echo "$c $(cpu "^BenchmarkIteration\$/^$c\$/^workers1\$") $load" >>"$tmp/runs"
	done
done
printf '%-16s %s\n' case 'ms/iter (CPU, median of '"$rounds"')' 
for c in $cases; do
	awk -v c="$c" -v k=$((n * 20)) '$1 == c { print ($2 - $3) * 1000 / k }' "$tmp/runs" | sort -g |
		awk -v c="$c" '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%-16s %.2f\n", c, m }'
done | awk 'NR == 1 { em = $2 } { printf "%-16s %8.2f ms %6.2f×\n", $1, $2, $2 / em }'
