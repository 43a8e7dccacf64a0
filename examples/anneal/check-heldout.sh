#!/bin/sh
# Checks heldout.mk on a small grid of the PTB sample's fixed split: the table
# has a row per estimator and selection; sda-map picks among the unsmoothed SDA
# runs and those with λ, and its λ run is train-da's with --lambda; each further
# neighbourhood (CE_NBHDS) trains CE under that neighbourhood and is picked,
# unsupervisedly, by its own contrastive objective. Skips when ../shared/data is
# absent. Needs the programs in ../../bin (make build) and jq.
set -eu
cd "$(dirname "$0")"
[ -d ../../../shared/data/ptb-sample/wsj ] || { echo "check-heldout: ../shared/data not found; skipped"; exit 0; }
PATH=$(cd ../../bin && pwd):$PATH
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "check-heldout: $*" >&2; exit 1; }

make -s -f heldout.mk -j2 DATA=ptb OUT="$out" INITS=km LAMBDAS='0 1' BETA0S=0.1 GAMMAS=2.5 \
	DELTA0S=-0.2 DELTA_STEPS=0.1 DELTA_FINAL=0 SIGMA2S=1 CE_NBHDS=length "$out/heldout/table.tsv" >/dev/null
h=$out/heldout

rows=$(cut -f1 "$h/table.tsv" | tail -n +2 | tr '\n' ' ')
want="attach-left attach-right"
for e in em em0 sda sda-below1 sda-map sda-below1-map sa ce ce-length; do
	for s in supervised few unsupervised oracle; do want="$want $e.$s"; done
done
[ "$rows" = "$want " ] || fail "the table's rows are
  $rows
not
  $want"

# sda-map ranks the unsmoothed run and the λ = 1 run; the latter is train-da's.
[ "$(jq -r .model "$h/sda-below1-map.supervised.jsonl" | sort | tr '\n' ' ')" = \
	"$h/sda-below1/km-b0.1-g2.5-l1.model $h/sda-below1/km-b0.1-g2.5.model " ] ||
	fail "sda-below1-map does not rank the runs with λ = 0 and 1"
train-da --init km --skew --below-one --beta0 0.1 --gamma 2.5 --lambda 1 -q "$out/train.jsonl" -o "$out/sda-l1.model"
cmp -s "$out/sda-l1.model" "$h/sda-below1/km-b0.1-g2.5-l1.model" || fail "the λ = 1 SDA run is not train-da --lambda 1"
cmp -s "$h/sda-below1/km-b0.1-g2.5.model" "$h/sda-below1/km-b0.1-g2.5-l1.model" && fail "λ = 1 changed nothing"

# ce-length trains under LENGTH and its unsupervised pick is ranked by the
# contrastive objective under LENGTH.
train-ce --nbhd length --init km --sigma2 1 -q "$out/train.jsonl" -o "$out/ce-length.model"
cmp -s "$out/ce-length.model" "$h/ce-length/km-s1.model" || fail "ce-length is not train-ce --nbhd length"
want=$(select-model --dev "$out/dev.jsonl" --root exclude --by contrast --nbhd length --json -q "$h/ce-length/km-s1.model" | jq .contrast)
[ "$(jq .contrast "$h/ce-length.unsupervised.jsonl")" = "$want" ] ||
	fail "ce-length's unsupervised ranking is not its LENGTH contrastive objective"
echo "check-heldout: ok ($(echo "$rows" | wc -w) rows)"
