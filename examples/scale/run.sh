#!/bin/sh
# Scale: seconds per EM iteration and peak memory of train-em against corpus
# size, the corpus held in memory and streamed (--stream).
#
#   sh examples/scale/run.sh [OUT]           # every size, both lengths (an hour)
#   SIZES="10000 100000" LENGTHS=10 sh examples/scale/run.sh
#
# The corpora are synthetic: dmv-sample draws them from a DMV estimated on
# the treebank grind ships (examples/treebank, gold counts, add-0.1), with
# --max-len 10 or 40; their gold heads are dropped (a training corpus of
# tags). Each run is train-em --init km --tol 0 --workers 2 for k
# iterations: 3, or on small corpora enough for about 3 million sentence
# visits at ≤ 10 (500,000 at ≤ 40) so that the clock has something to
# measure. Seconds per iteration are (seconds at iteration k − seconds at
# iteration 1) / (k − 1) from its --log (reading the corpus and the
# initializer left out); CPU seconds per iteration (user + system, both
# workers) are those of the run less those of the same run with
# --max-iter 1, over k − 1: on a shared machine they move less than wall
# time. Peak RSS is /usr/bin/time's, of the k-iteration run.
# Writes OUT (default the repository's docs/scale.tsv): one line per run,
# then draws OUT's .svg with plot.sh. Needs the programs in bin (make
# build), jq, /usr/bin/time and 0.8 GB free in $TMPDIR for the largest
# corpus.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PATH=$here/../../bin:$PATH
out=${1:-$here/../../docs/scale.tsv}
SIZES=${SIZES:-10000 100000 1000000 10000000}
LENGTHS=${LENGTHS:-10 40}
# ≤ 40 stops at this many sentences (MAX40=1000000 skips the longest runs:
# 10 M sentences ≤ 40 take 25 minutes of 2 shared cores).
MAX40=${MAX40:-10000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/grind-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

ptb2deps "$here"/../treebank/*.mrg | estep --gold --quiet | mstep --lambda 0.1 > "$tmp/model.jsonl"

printf 'maxlen\tsentences\ttokens\tmode\titerations\tsec_per_iter\tcpu_per_iter\tpeak_rss_mb\n' > "$out"
cpu() { awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$1"; }
for maxlen in $LENGTHS; do
	for n in $SIZES; do
		if [ "$maxlen" -gt 10 ] && [ "$n" -gt "$MAX40" ]; then
			echo "skip: $n sentences ≤ $maxlen (MAX40=$MAX40)" >&2
			continue
		fi
		visits=3000000
		[ "$maxlen" -gt 10 ] && visits=500000
		iters=$((visits / n))
		[ "$iters" -lt 3 ] && iters=3
		dmv-sample -m "$tmp/model.jsonl" -n "$n" --max-len "$maxlen" --seed 1 --quiet |
			sed 's/,"heads":\[[0-9,]*\]//' > "$tmp/corpus.jsonl"
		for mode in memory stream; do
			flag=
			[ "$mode" = stream ] && flag=--stream
			/usr/bin/time -v -o "$tmp/time1.txt" train-em --init km --max-iter 1 --tol 0 --workers 2 --quiet \
				$flag "$tmp/corpus.jsonl" -o /dev/null
			/usr/bin/time -v -o "$tmp/time.txt" train-em --init km --max-iter "$iters" --tol 0 --workers 2 --quiet \
				$flag --log "$tmp/log.jsonl" "$tmp/corpus.jsonl" -o "$tmp/model-$mode.jsonl"
			k=$(grep -c . "$tmp/log.jsonl")
			cpusec=$(echo "$(cpu "$tmp/time.txt") $(cpu "$tmp/time1.txt") $k" | awk '{ printf "%.4f", ($1 - $2) / ($3 - 1) }')
			sec=$(jq -s '(.[-1].seconds - .[0].seconds) / (length - 1)' "$tmp/log.jsonl")
			# tokens = −objective / (bits per token · ln 2)
			tokens=$(jq -s '.[0] | -.objective / (.cross_entropy * 0.6931471805599453) | round' "$tmp/log.jsonl")
			rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$tmp/time.txt")
			printf '%s\t%s\t%s\t%s\t%s\t%.4f\t%s\t%s\n' "$maxlen" "$n" "$tokens" "$mode" "$k" "$sec" "$cpusec" "$rss" | tee -a "$out"
		done
		# Streaming trains the model in-memory training does, byte for byte.
		cmp "$tmp/model-memory.jsonl" "$tmp/model-stream.jsonl"
		rm -f "$tmp/corpus.jsonl"
	done
done
sh "$here/plot.sh" "$out" > "${out%.tsv}.svg"
