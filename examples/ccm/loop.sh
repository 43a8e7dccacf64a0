#!/bin/sh
# The CCM's (or DMV+CCM's) EM as a shell loop: one estep | mstep per
# iteration, the model on disk in between (estep and mstep read the family,
# ccm, ccm2, ccm-classes or dmvccm, from the model's header). It gives the same model, byte for byte, as
#   train-ccm --model MODEL --max-iter N --save-model FILE CORPUS
#
# usage: loop.sh CORPUS [ITERATIONS] [MODEL] [TRAIN-CCM FLAGS...] > model.jsonl
# (e.g. loop.sh corpus.jsonl 10 dmvccm --right-first; loop.sh corpus.jsonl 10 ccm --classes 3)
set -eu
corpus=$1
iterations=${2:-10}
model=${3:-ccm}
[ $# -gt 3 ] && shift 3 || set --
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# --max-iter 0: the start model (the M-step of --init's counts; dmvccm:
# and the DMV's --dmv-init model).
train-ccm --quiet --model "$model" "$@" --max-iter 0 --save-model "$dir/model.jsonl" "$corpus" > /dev/null
i=0
while [ "$i" -lt "$iterations" ]; do
	i=$((i + 1))
	estep -m "$dir/model.jsonl" "$corpus" | mstep -o "$dir/next.jsonl"
	mv "$dir/next.jsonl" "$dir/model.jsonl"
done
cat "$dir/model.jsonl"
