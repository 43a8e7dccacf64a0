#!/bin/sh
# Checks what the HMM's model files promise, on the corpus grind ships
# (examples/treebank, sentences of at most 10 words, with punctuation):
#  1. from train-hmm's model after one iteration, estep | mstep repeated
#     gives train-hmm's model after more, byte for byte (bitag EM, trigram
#     add-λ), and tag -m / decode -m with it write train-hmm's tags;
#  2. the E-step in two shards merged by sumcounts gives, after mstep, the
#     model of one estep | mstep to 1e-9 (relative).
# Exits non-zero on a difference (needs jq).
set -eu
cd "$(dirname "$0")"
PATH=$PWD/../../bin:$PATH
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

ptb2deps --keep-punct ../treebank/*.mrg | filterlen 10 > "$dir/corpus.jsonl"
for variant in "bitag em 0" "trigram map 0.5"; do
	set -- $variant
	order=""
	[ "$1" = trigram ] && order=--trigram
	train-hmm --quiet $order --states 8 --estimator "$2" --lambda "$3" --max-iter 1 --save-model "$dir/m.jsonl" "$dir/corpus.jsonl" > /dev/null
	for i in 1 2 3 4 5; do
		estep -m "$dir/m.jsonl" "$dir/corpus.jsonl" | mstep --lambda "$3" > "$dir/next.jsonl"
		mv "$dir/next.jsonl" "$dir/m.jsonl"
	done
	train-hmm --quiet $order --states 8 --estimator "$2" --lambda "$3" --max-iter 6 --save-model "$dir/train.jsonl" "$dir/corpus.jsonl" > "$dir/train.out"
	cmp "$dir/m.jsonl" "$dir/train.jsonl"
	tag -m "$dir/m.jsonl" "$dir/corpus.jsonl" | cmp - "$dir/train.out"
	decode --mbr -m "$dir/m.jsonl" "$dir/corpus.jsonl" | cmp - "$dir/train.out"
	echo "$1 $2: estep | mstep ×5 = train-hmm --max-iter 6 (byte-identical); tag -m, decode --mbr -m = train-hmm's tags"
done

n=$(grep -c . "$dir/corpus.jsonl")
head -n $((n / 2)) "$dir/corpus.jsonl" > "$dir/a.jsonl"
tail -n +$((n / 2 + 1)) "$dir/corpus.jsonl" > "$dir/b.jsonl"
estep -m "$dir/m.jsonl" "$dir/corpus.jsonl" | mstep > "$dir/one.jsonl"
{ estep -m "$dir/m.jsonl" "$dir/b.jsonl"; estep -m "$dir/m.jsonl" "$dir/a.jsonl"; } |
	sumcounts --expect-corpus "$dir/corpus.jsonl" | mstep > "$dir/sharded.jsonl"
set -- $(../compare-models.sh "$dir/one.jsonl" "$dir/sharded.jsonl")
echo "two shards + sumcounts vs one estep (trigram): largest relative difference $2"
awk -v d="$2" 'BEGIN { exit !(d <= 1e-9) }'
