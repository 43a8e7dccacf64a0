#!/bin/sh
# Checks what the CCM's and DMV+CCM's model files promise, on the corpus
# grind ships:
#  1. the shell loop (loop.sh) gives train-ccm's model, byte for byte, for
#     ccm, ccm2, Klein's multi-class CCM (--classes 3: family ccm-classes),
#     dmvccm under each head order (--order right-first,
#     mixture, footnote8: families dmvccm-right-first, dmvccm-mixture,
#     dmvccm-footnote8), and decode -m with it
#     writes train-ccm's brackets (and, for dmvccm, heads);
#  2. the E-step in two shards merged by sumcounts gives, after mstep, the
#     model of one estep | mstep to 1e-9 (relative), for all but ccm;
#  3. --classes 2 is the CCM: train-ccm's model and brackets and the shell
#     loop's model are the CCM's, byte for byte.
# Exits non-zero on a difference (needs jq).
set -eu
cd "$(dirname "$0")"
PATH=$PWD/../../bin:$PATH
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

ptb2deps ../treebank/*.mrg | filterlen 10 > "$dir/corpus.jsonl"
n=$(grep -c . "$dir/corpus.jsonl")
head -n $((n / 2)) "$dir/corpus.jsonl" > "$dir/a.jsonl"
tail -n +$((n / 2 + 1)) "$dir/corpus.jsonl" > "$dir/b.jsonl"
# dmvccm stops by its tolerance after 18 iterations here: 10 are all run.
for variant in ccm ccm2 ccm-classes dmvccm dmvccm-right-first dmvccm-mixture dmvccm-footnote8; do
	model=$variant extra=
	case $variant in
	ccm-classes) model=ccm extra="--classes 3 --seed 2" ;;
	dmvccm-*) model=dmvccm extra="--order ${variant#dmvccm-}" ;;
	esac
	./loop.sh "$dir/corpus.jsonl" 10 $model $extra > "$dir/loop.jsonl"
	train-ccm --quiet --model $model $extra --max-iter 10 --save-model "$dir/train.jsonl" "$dir/corpus.jsonl" > "$dir/train.out"
	cmp "$dir/loop.jsonl" "$dir/train.jsonl"
	decode -m "$dir/loop.jsonl" "$dir/corpus.jsonl" | cmp - "$dir/train.out"
	echo "$variant: shell loop = train-ccm after 10 iterations (byte-identical), decode -m = train-ccm's predictions"
	[ $variant = ccm ] && continue
	estep -m "$dir/loop.jsonl" "$dir/corpus.jsonl" | mstep > "$dir/one.jsonl"
	{ estep -m "$dir/loop.jsonl" "$dir/b.jsonl"; estep -m "$dir/loop.jsonl" "$dir/a.jsonl"; } |
		sumcounts --expect-corpus "$dir/corpus.jsonl" | mstep > "$dir/sharded.jsonl"
	set -- $(../compare-models.sh "$dir/one.jsonl" "$dir/sharded.jsonl")
	echo "$variant: two shards + sumcounts vs one estep: largest relative difference $2 over $1 records"
	awk -v d="$2" 'BEGIN { exit !(d <= 1e-9) }'
done
# --classes 2 is the CCM in every program: train-ccm's model and brackets,
# and the shell loop from its start.
train-ccm --quiet --max-iter 10 --save-model "$dir/ccm.jsonl" "$dir/corpus.jsonl" > "$dir/ccm.out"
train-ccm --quiet --classes 2 --max-iter 10 --save-model "$dir/two.jsonl" "$dir/corpus.jsonl" | cmp - "$dir/ccm.out"
cmp "$dir/two.jsonl" "$dir/ccm.jsonl"
./loop.sh "$dir/corpus.jsonl" 10 ccm --classes 2 | cmp - "$dir/ccm.jsonl"
echo "ccm --classes 2: train-ccm's model and brackets, and the shell loop's model, = the CCM's (byte-identical)"
