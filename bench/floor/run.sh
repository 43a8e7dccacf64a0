#!/bin/sh
# The HMM and CCM E-step floors beside grind's own E-steps: builds the C
# kernels, checks them against enumeration, writes grind's inputs and
# E-step results (the Go tests TestWriteFloorInput), checks the kernels
# against those, then times the kernels and grind's benchmarks
# (BenchmarkEStepBrown, BenchmarkEStepSinica10) in turn, RUNS times, and
# prints each run's times and the ratios grind / floor.
#
# usage: sh bench/floor/run.sh [RUNS]    (default 3; about 1 minute a run)
#        sh bench/floor/run.sh check     the enumeration checks alone (a second)
#        BASELINE=DIR sh bench/floor/run.sh [RUNS]
#            also times the same benchmarks of another checkout of grind
#            (one with these benchmarks: an older commit with this
#            commit's stages/{hmm,ccm}/floor_test.go and internal/testenv
#            copied in) in each run, as "baseline": before and after.
# needs gcc, go, python3 and the shared data (brown, sinica_treebank) for the
# timing; GRIND_SHARED_DATA overrides where it is looked for. Grind's side
# is built as make builds the programs: with Go's simd experiment where
# the toolchain has it (the HMM's AVX-512 forward-backward), without when
# SIMD= is set empty (SIMD= sh bench/floor/run.sh).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CFLAGS=${CFLAGS:--O2 -march=native}
for k in hmm ccm; do
    gcc $CFLAGS -Wall -Wextra -o "$work/${k}_floor" "$here/${k}_floor.c" -lm -lpthread
    "$work/${k}_floor" check >"$work/$k-check.txt" || { cat "$work/$k-check.txt"; exit 1; }
done
grep -c ': ok$' "$work/hmm-check.txt" "$work/ccm-check.txt" | sed 's/.*\///; s/-check.txt:/ enumeration checks passed: /'
[ "$1" = check ] && exit 0
runs=${1:-3}

cd "$root"
# The tests find the data beside the checkout they were built from: a
# baseline elsewhere must be told where it is.
GRIND_SHARED_DATA=${GRIND_SHARED_DATA:-$root/../shared/data}
export GRIND_SHARED_DATA
# The Makefile's test for the experiment: amd64 and a toolchain that has
# simd/archsimd.
if [ -z "${SIMD+set}" ]; then
    SIMD=$([ "$(go env GOARCH)" = amd64 ] && GOEXPERIMENT=simd go list simd/archsimd >/dev/null 2>&1 && echo simd || true)
fi
echo "grind built with GOEXPERIMENT=${SIMD:-(none)}"
for pkg in hmm ccm; do
    GOEXPERIMENT=$SIMD go test -c -o "$work/$pkg.test" "./stages/$pkg"
    [ -z "$BASELINE" ] || (cd "$BASELINE" && GOEXPERIMENT=$SIMD go test -c -o "$work/$pkg-baseline.test" "./stages/$pkg")
    (cd "stages/$pkg" && GRIND_FLOOR_OUT=$work "$work/$pkg.test" -test.run '^TestWriteFloorInput$' -test.v) |
        grep -E 'floor_test|SKIP|FAIL' || true
    [ -s "$work/$pkg.bin" ] || { echo "no $pkg.bin: the shared data is missing" >&2; exit 1; }
    "$work/${pkg}_floor" compare "$work/$pkg.bin"
done

# grind's CCM benchmark as make builds the programs: with Go's simd
# experiment where the toolchain has it, so that the E-step runs its
# batched AVX-512 lanes (on a CPU that has them; the counts are the same).
if [ "$(go env GOARCH)" = amd64 ] && GOEXPERIMENT=simd go list simd/archsimd >/dev/null 2>&1; then
    GOEXPERIMENT=simd go test -c -o "$work/ccm.test" ./stages/ccm
fi

# bench PKG PATTERN BENCHTIME runs grind's benchmark, then the baseline's
# (its lines renamed Baseline…).
bench() {
    (cd "stages/$1" && "$work/$1.test" -test.run '^$' -test.bench "$2" -test.benchtime "$3")
    [ -z "$BASELINE" ] || (cd "stages/$1" && "$work/$1-baseline.test" -test.run '^$' -test.bench "$2" -test.benchtime "$3") |
        sed 's/^Benchmark/Baseline/'
}

for r in $(seq "$runs"); do
    "$work/hmm_floor" bench "$work/hmm.bin" 3 >"$work/run$r.txt"
    bench hmm '^BenchmarkEStepBrown$' 3x >>"$work/run$r.txt"
    "$work/ccm_floor" bench "$work/ccm.bin" 300 >>"$work/run$r.txt"
    bench ccm '^BenchmarkEStepSinica10$' 300x >>"$work/run$r.txt"
done
python3 "$here/summarize.py" "$work"/run*.txt
