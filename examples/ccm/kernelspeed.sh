#!/bin/sh
# The CCM E-step's kernels (issue 25): the batched AVX-512 lanes against
# the scalar chart, in the same minutes.
#   1. BenchmarkEStepKernels (stages/ccm): one E-step over the Chinese
#      sample ≤ 10 (the input of bench/floor's CCM kernels), 1 and 2
#      workers, on the scalar chart and on the lanes, in the build with
#      GOEXPERIMENT=simd (make build's: kernel "avx512") and without it
#      (go install's: kernel "portable", the plain-Go lanes only tests use).
#   2. Where GNU time is at hand (/usr/bin/time): train-ccm itself, EM from
#      Klein's start to a fixed point (--tol 1e-300: 143 iterations) on the
#      PTB sample ≤ 10 (555 sentences),
#      built both ways and timed by turns (A B A B …, 5 pairs: each run's
#      CPU seconds, user + system, and the pair's ratio), 2 workers; with
#      BASELINE=DIR, also another checkout's train-ccm (built as make
#      builds it) as "before", in the same turns. The outputs must be the
#      same bytes (cmp): the lanes' counts are the scalar chart's to the
#      bit.
#
# usage: sh examples/ccm/kernelspeed.sh [ITERATIONS]   (default 300 per benchmark)
#        BASELINE=DIR sh examples/ccm/kernelspeed.sh
# Needs ../shared/data beside the repository; about 2 minutes on 2 cores.
set -eu
cd "$(dirname "$0")/../.."
iterations=${1:-300}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GRIND_SHARED_DATA=${GRIND_SHARED_DATA:-$PWD/../shared/data}
export GRIND_SHARED_DATA

GOEXPERIMENT=simd go test -c -o "$tmp/ccm-simd.test" ./stages/ccm
go test -c -o "$tmp/ccm.test" ./stages/ccm
for build in ccm-simd ccm; do
	echo "-- $build"
	(cd stages/ccm && "$tmp/$build.test" -test.run '^$' -test.bench EStepKernels \
		-test.benchtime "${iterations}x") | grep '^Benchmark'
done

[ -x /usr/bin/time ] || exit 0
echo "== train-ccm, make build's (A) against go install's (B)${BASELINE:+ and the baseline's (before)}"
flags="-tags urfave_cli_no_docs -trimpath"
GOEXPERIMENT=simd go build $flags -o "$tmp/simd/" ./cmd/train-ccm ./cmd/ptb2deps ./cmd/filterlen
go build $flags -o "$tmp/plain/" ./cmd/train-ccm
builds="simd plain"
if [ -n "${BASELINE:-}" ]; then
	(cd "$BASELINE" && GOEXPERIMENT=simd go build $flags -o "$tmp/before/" ./cmd/train-ccm)
	builds="simd plain before"
fi
"$tmp/simd/ptb2deps" --tree "$GRIND_SHARED_DATA"/ptb-sample/wsj/*/*.mrg | "$tmp/simd/filterlen" 10 > "$tmp/wsj10.jsonl"
# cpu BUILD: one run's CPU seconds (user + system).
cpu() {
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$tmp/$1/train-ccm" --tol 1e-300 --max-iter 1000 --workers 2 --quiet \
		--save-model "$tmp/$1.model.jsonl" "$tmp/wsj10.jsonl" -o "$tmp/$1.out.jsonl"
	awk '{ print $1 + $2 }' "$tmp/time"
}
for pair in 1 2 3 4 5; do
	line="pair $pair:"
	for b in $builds; do
		eval "t_$b=\$(cpu $b)"
		eval "line=\"\$line $b \$t_$b s\""
	done
	line="$line, A/B $(awk -v a="$t_simd" -v b="$t_plain" 'BEGIN { printf "%.3f", a / b }')"
	[ -z "${BASELINE:-}" ] || line="$line, A/before $(awk -v a="$t_simd" -v b="$t_before" 'BEGIN { printf "%.3f", a / b }')"
	echo "$line"
done
for b in $builds; do
	cmp "$tmp/simd.model.jsonl" "$tmp/$b.model.jsonl"
	cmp "$tmp/simd.out.jsonl" "$tmp/$b.out.jsonl"
done
echo "outputs (model and brackets): the same bytes for $builds"
