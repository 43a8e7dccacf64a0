#!/bin/sh
# The cost of posterior regularization per EM iteration, as CPU time:
# stages/pr's BenchmarkIteration (UD English ≤ 10, XPOS, 20 iterations from
# km, one worker) run case by case in processes of their own, user + sys of
# each minus that of a process that only loads the corpus, ROUNDS rounds
# interleaved (A B C … A B C …), the median of each case, and the median and
# range of its ratio to EM's of the same round (the first case must be em).
# CPU time, not wall clock: on a loaded machine the wall clock of one
# binary swings by 2× between runs. LOOPS benchmark loops a process
# (default 10): the CPU times are in hundredths of a second, so fewer
# leave each iteration's time in steps of 10 ms / (20·LOOPS).
#
#   sh examples/induce/pr-cost.sh [ROUNDS [CASES]]   (default 5, "em rules sparsity sparsity-gap-3e-2 sparsity-exact sparsity-1step";
#                                                     sparsity is the interleaved rule, sparsity-gap-3e-2 the default)
#   LOOPS=3 sh examples/induce/pr-cost.sh            the loops of the tables before 29 November
#   SIMD= sh examples/induce/pr-cost.sh               the scalar chart's build (the tables before 28 November)
#
# Skips when ../shared/data is absent (the benchmark does).
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-5}
cases=${2:-em rules sparsity sparsity-gap-3e-2 sparsity-exact sparsity-1step}
n=${LOOPS:-10} # benchmark loops per process, 20 iterations each
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
		echo "$r $c $(cpu "^BenchmarkIteration\$/^$c\$/^workers1\$") $load" >>"$tmp/runs"
	done
done
printf '%-20s %9s %s\n' case 'ms/iter' "ratio to EM (CPU; medians of $rounds rounds, the ratios' range)"
median='{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
for c in $cases; do
	# Each round's ms/iter of c, and its ratio to that round's EM.
	awk -v c="$c" -v k=$((n * 20)) '{ ms = ($3 - $4) * 1000 / k } $2 == "em" { em[$1] = ms } $2 == c { t[$1] = ms }
		END { for (r in t) print t[r], t[r] / em[r] }' "$tmp/runs" >"$tmp/c"
	ms=$(cut -d' ' -f1 "$tmp/c" | sort -g | awk "$median")
	ratio=$(cut -d' ' -f2 "$tmp/c" | sort -g | awk "$median")
	range=$(cut -d' ' -f2 "$tmp/c" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f–%.2f", lo, hi }')
	printf '%-20s %6.2f ms %6.2f× (%s)\n' "$c" "$ms" "$ratio" "$range"
done
