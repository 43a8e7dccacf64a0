#!/bin/sh
# make demo: grind's main pipeline on the treebank it ships (examples/treebank),
# then on the Penn Treebank sample in ../shared/data when it is there.
#
#   treebank → ptb2deps → filterlen 10 → baseline --attach right → score
#   treebank → ptb2deps → filterlen 10 → train-em (DMV) → decode → score
set -eu
shared=${1:-../shared/data}
cd "$(dirname "$0")/.."
PATH=$PWD/bin:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # title, treebank files...
	title=$1
	shift
	echo "== $title: $(ptb2deps "$@" | wc -l) trees, $(ptb2deps "$@" | filterlen 10 | wc -l) of length ≤ 10"
	ptb2deps "$@" | filterlen 10 > "$tmp/corpus.jsonl"
	echo "-- right-branching baseline (every word's head is the next word)"
	baseline --attach right "$tmp/corpus.jsonl" | score
	echo "-- DMV trained by EM from K&M, Smith's form of Klein & Manning's harmonic start (train-em's default)"
	train-em --quiet "$tmp/corpus.jsonl" > "$tmp/model.jsonl"
	decode -m "$tmp/model.jsonl" "$tmp/corpus.jsonl" | score --root exclude | head -1
	decode -m "$tmp/model.jsonl" "$tmp/corpus.jsonl" | score | head -1
	echo "-- the first sentence, gold above, DMV below"
	decode -m "$tmp/model.jsonl" "$tmp/corpus.jsonl" | head -1 | showtree
	echo
}

run "examples/treebank (written for grind)" examples/treebank/*.mrg
if [ -d "$shared/ptb-sample/wsj" ]; then
	run "Penn Treebank sample ($shared/ptb-sample)" "$shared"/ptb-sample/wsj/*/*.mrg
else
	echo "($shared/ptb-sample not found: skipping the Penn Treebank sample)"
fi
