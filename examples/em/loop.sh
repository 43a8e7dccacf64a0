#!/bin/sh
# EM as a shell loop: one estep | mstep per iteration, the model on disk in
# between. It gives the same model, byte for byte, as
#   train-em --init km --max-iter N CORPUS
#
# usage: loop.sh CORPUS [ITERATIONS] [INIT] > model.jsonl
set -eu
corpus=$1
iterations=${2:-10}
init=${3:-km}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

dmv-init --init "$init" "$corpus" > "$dir/model.jsonl"
i=0
while [ "$i" -lt "$iterations" ]; do
	i=$((i + 1))
	# mstep -o writes beside the model and renames only at the end, after
	# estep has read the model and finished: the model is replaced in place.
	estep -m "$dir/model.jsonl" "$corpus" | mstep -o "$dir/model.jsonl"
done
cat "$dir/model.jsonl"
