#!/bin/sh
# One E-step spread over processes with GNU parallel: the corpus is cut into
# shards of N sentences, each shard's counts come from its own estep, and
# sumcounts adds them (refusing a shard that was cut short). The counts equal
# those of a single estep up to floating-point summation order (1e-9).
#
# usage: parallel.sh MODEL CORPUS [SENTENCES-PER-SHARD] > counts.jsonl
# For many machines add e.g. -S server1,server2 (see man parallel).
set -eu
model=$1
corpus=$2
per=${3:-1000}
# --keep-order fixes the order shards are added in, so reruns give the same
# bytes.
parallel --pipe -N "$per" --keep-order estep -m "$model" --workers 1 < "$corpus" | sumcounts --expect-corpus "$corpus"
