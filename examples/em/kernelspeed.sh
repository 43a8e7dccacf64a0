#!/bin/sh
# The DMV E-step's kernels against the speed floor (issue 25), in the same
# minutes: one EM iteration (E-step and M-step from the K&M model,
# stages/dmv BenchmarkEMIterationKernels) on UD English ≤10 and ≤15, XPOS,
# with 1 and 2 workers, on
#   - the build with GOEXPERIMENT=simd (make build's): the scalar chart and
#     the AVX-512 lanes (kernel "avx512"),
#   - the build without it (go install's): the scalar chart and the
#     plain-Go lanes (kernel "portable", which only tests use),
# then the floor's C and Go kernels (../shared/floor/run.sh: medians of 3
# runs of 50 E-steps), then the grind benchmarks again.
#
# usage: sh examples/em/kernelspeed.sh [ITERATIONS]   (default 50 per benchmark)
# Needs ../shared/data and ../shared/floor beside the repository (gcc and
# python3 for the floor); about 5 minutes on 2 cores.
set -eu
cd "$(dirname "$0")/../.."
iterations=${1:-50}
floor=$(cd ../shared/floor && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

GOEXPERIMENT=simd go test -c -o "$tmp/dmv-simd.test" ./stages/dmv
go test -c -o "$tmp/dmv.test" ./stages/dmv

grind() {
	for build in dmv-simd dmv; do
		echo "-- $build"
		(cd stages/dmv && "$tmp/$build.test" -test.run '^$' -test.bench EMIterationKernels \
			-test.benchtime "${iterations}x") | grep '^Benchmark'
	done
}

echo "== grind, before the floor"
grind
echo "== the floor"
sh "$floor/run.sh" "$tmp/floor"
echo "== grind, after the floor"
grind
