#!/bin/sh
# Smith's SDA grid with GNU parallel instead of make -j: one train-da per
# (init, β₀, γ), then supervised and unsupervised selection on dev.
#
# usage: parallel.sh TRAIN.jsonl DEV.jsonl OUTDIR [JOBS]
# e.g.   parallel.sh out/ud-en/train.jsonl out/ud-en/dev.jsonl out/sda-parallel 2
# Add -S host1,host2 to the parallel line to spread the runs over machines.
set -eu
train=$1 dev=$2 out=$3 jobs=${4:-2}
cd "$(dirname "$0")"
PATH=${BIN:-$PWD/../../bin}:$PATH
mkdir -p "$out"
parallel -j "$jobs" --halt now,fail=1 \
	train-da --init {1} --skew --beta0 {2} --gamma {3} --workers 1 -q "$train" -o "$out/{1}-b{2}-g{3}.model" \
	::: zero km local ::: 0.1 0.01 0.001 ::: 2.5 2.25 2.0 1.75 1.5 1.25
select-model --dev "$dev" --root exclude --json -q "$out"/*.model > "$out/accuracy.jsonl"
select-model --dev "$dev" --by likelihood --root exclude --json -q "$out"/*.model > "$out/likelihood.jsonl"
sh summary.sh "SDA (GNU parallel)" "$out/accuracy.jsonl" "$out/likelihood.jsonl"
