#!/bin/sh
# Smith's semisupervised EM (2006, §3.4.2) as a shell loop: at every
# iteration the counts of the annotated sentences' gold trees are added to
# the E-step's expected counts over the unannotated ones, and the M-step
# normalises the sum — "running EM on the union of the annotated and
# unannotated datasets", the annotated counts a Dirichlet prior that never
# fades:
#
#   estep --gold -m M labelled.jsonl   # gold counts, stamped with M's hash
#   estep -m M unlabelled.jsonl        # expected counts under M
#   … | sumcounts | mstep --lambda λ > M
#
# `estep --gold -m M` makes the same counts as `estep --gold` (over M's tags
# and the labelled text's), but its header carries M's hash instead of
# "none", so sumcounts adds it to the E-step's shard as one more shard of the
# same model; the stats record's loglik is then log p(x, gold tree) under M,
# so the summed loglik is the objective semisupervised EM climbs, log p(U) +
# log p(L, trees). It stops when that changes by less than TOL (relatively)
# or after MAX iterations, as train-em does.
#
# usage: loop.sh LABELLED UNLABELLED START [LAMBDA] [MAX] [TOL] > model.jsonl
#   START   a model file (dmv-init's, mstep's), or "zero": Smith's Zero,
#           every weight 1 (train-em --init zero's θ⁽⁰⁾), over UNLABELLED's tags
set -eu
labelled=$1
unlabelled=$2
start=$3
lambda=${4:-0}
max=${5:-100}
tol=${6:-1e-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

if [ "$start" = zero ]; then
	# weights 1: a "w" model of zeros (exp 0 = 1), as train-em hands its
	# first E-step under --init zero.
	dmv-init --init zero "$unlabelled" |
		jq -c 'if .ev == "header" then .unit = "w" else del(.p) | .w = 0 end' > "$dir/model.jsonl"
else
	cp "$start" "$dir/model.jsonl"
fi
prev=
i=0
while [ "$i" -lt "$max" ]; do
	i=$((i + 1))
	{
		estep --gold -m "$dir/model.jsonl" "$labelled"
		estep -m "$dir/model.jsonl" "$unlabelled"
	} | sumcounts -o "$dir/counts.jsonl"
	mstep --lambda "$lambda" "$dir/counts.jsonl" -o "$dir/model.jsonl"
	ll=$(tail -n 1 "$dir/counts.jsonl" | jq -r .loglik)
	if [ -n "$prev" ] && awk -v a="$prev" -v b="$ll" -v t="$tol" 'BEGIN {
		if (a == "-inf" || b == "-inf") exit 1
		d = (b - a) / (a < 0 ? -a : a); if (d < 0) d = -d
		exit !(d < t) }'; then
		break
	fi
	prev=$ll
done
echo "loop.sh: $i iterations, loglik $ll" >&2
cat "$dir/model.jsonl"
