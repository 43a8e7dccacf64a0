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
# runs of 50 E-steps), then the grind benchmarks again. Last, where GNU
# time is at hand (/usr/bin/time), train-em itself, 100 iterations from K&M
# on UD English ≤10 (XPOS), built both ways and timed by turns (A B A B …,
# 5 pairs: each run's CPU seconds, user + system, and the pair's ratio),
# 1 and 2 workers, and how far apart the two models are
# (examples/compare-models.sh).
#
# usage: sh examples/em/kernelspeed.sh [ITERATIONS]   (default 50 per benchmark)
# Needs ../shared/data and ../shared/floor beside the repository (gcc and
# python3 for the floor, jq for compare-models.sh); about 6 minutes on 2
# cores.
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

[ -x /usr/bin/time ] || exit 0
echo "== train-em, make build's (A) against go install's (B)"
GOEXPERIMENT=simd go build -tags urfave_cli_no_docs -o "$tmp/simd/" ./cmd/train-em ./cmd/conll2deps ./cmd/filterlen
go build -tags urfave_cli_no_docs -o "$tmp/plain/" ./cmd/train-em
"$tmp/simd/conll2deps" --tag xpos ../shared/data/ud-nopunct/en-ud-train-nopunct-len15.conllu |
	"$tmp/simd/filterlen" 10 > "$tmp/xpos10.jsonl"
# cpu BUILD WORKERS: one run's CPU seconds (user + system).
cpu() {
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$tmp/$1/train-em" --init km --tol 0 --max-iter 100 \
		--workers "$2" --quiet "$tmp/xpos10.jsonl" -o "$tmp/$1-$2.jsonl"
	awk '{ print $1 + $2 }' "$tmp/time"
}
for workers in 1 2; do
	for pair in 1 2 3 4 5; do
		a=$(cpu simd "$workers") b=$(cpu plain "$workers")
		echo "workers $workers pair $pair: A $a s, B $b s, A/B $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')"
	done
	echo "models (records, largest relative, absolute difference): $(sh examples/compare-models.sh "$tmp/simd-$workers.jsonl" "$tmp/plain-$workers.jsonl" | cut -d' ' -f1-3)"
done
