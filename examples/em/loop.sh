#!/bin/sh
# EM as a shell loop: one estep | mstep per iteration, the model on disk in
# between. It gives the same model, byte for byte, as
#   train-em --init INIT --max-iter N CORPUS
# and with ALPHA, variational Bayes (mstep --vb; -m gives it the model the
# E-step ran with, for the bound its header carries), the same model as
#   train-em --estimator vb --alpha ALPHA --init INIT --max-iter N CORPUS
#
# usage: loop.sh CORPUS [ITERATIONS] [INIT] [ALPHA] > model.jsonl
set -eu
corpus=$1
iterations=${2:-10}
init=${3:-km}
alpha=${4:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

if [ -n "$alpha" ]; then
	vb="--vb --alpha $alpha"
	bound="-m $dir/model.jsonl"
else
	vb= bound=
fi
# shellcheck disable=SC2086 # $vb and $bound are lists of flags
dmv-init --init "$init" $vb "$corpus" > "$dir/model.jsonl"
i=0
while [ "$i" -lt "$iterations" ]; do
	i=$((i + 1))
	# mstep -o writes beside the model and renames only at the end, after
	# estep has read the model and finished (and mstep -m has read it):
	# the model is replaced in place.
	# shellcheck disable=SC2086
	estep -m "$dir/model.jsonl" "$corpus" | mstep $vb $bound -o "$dir/model.jsonl"
done
cat "$dir/model.jsonl"
