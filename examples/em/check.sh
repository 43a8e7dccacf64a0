#!/bin/sh
# Checks what the examples promise, on the corpus grind ships:
#  1. the shell loop (loop.sh) gives the same model as train-em, byte for byte,
#     by EM and by variational Bayes;
#  2. the E-step sharded with GNU parallel and merged by sumcounts gives the
#     counts of one estep to 1e-9 (relative), stats included.
# Run by CI (GNU parallel and jq are installed there); exits non-zero on a
# difference.
set -eu
cd "$(dirname "$0")"
PATH=$PWD/../../bin:$PATH
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

ptb2deps ../treebank/*.mrg | filterlen 10 > "$dir/corpus.jsonl"

./loop.sh "$dir/corpus.jsonl" 10 km > "$dir/loop.jsonl"
train-em --init km --max-iter 10 --quiet "$dir/corpus.jsonl" > "$dir/train-em.jsonl"
cmp "$dir/loop.jsonl" "$dir/train-em.jsonl"
echo "shell loop = train-em after 10 iterations (byte-identical)"
./loop.sh "$dir/corpus.jsonl" 10 km 0.1 > "$dir/loop-vb.jsonl"
train-em --estimator vb --alpha 0.1 --init km --max-iter 10 --quiet "$dir/corpus.jsonl" > "$dir/train-em-vb.jsonl"
cmp "$dir/loop-vb.jsonl" "$dir/train-em-vb.jsonl"
echo "shell loop of mstep --vb = train-em --estimator vb after 10 iterations (byte-identical, bound $(head -n 1 "$dir/loop-vb.jsonl" | jq .vb_bound))"

estep -m "$dir/loop.jsonl" "$dir/corpus.jsonl" > "$dir/one.jsonl"
./parallel.sh "$dir/loop.jsonl" "$dir/corpus.jsonl" 17 > "$dir/sharded.jsonl"
# The largest relative difference over every event and the stats record.
../compare-models.sh "$dir/one.jsonl" "$dir/sharded.jsonl" | cut -d' ' -f2 > "$dir/maxrel"
# The merged shards carry the header of one E-step over the whole corpus
# (the corpus hash is a sum over sentences, whatever the sharding).
[ "$(head -n 1 "$dir/one.jsonl")" = "$(head -n 1 "$dir/sharded.jsonl")" ] || { echo "headers differ" >&2; exit 1; }
echo "GNU parallel sharded E-step vs one estep: largest relative difference $(cat "$dir/maxrel"), same header"
awk '{ exit !($1 <= 1e-9) }' "$dir/maxrel"
