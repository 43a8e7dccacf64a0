#!/bin/sh
# Checks heldout.mk on a small grid of the PTB sample's fixed split: the table
# has a row per estimator and selection; sda-map picks among the unsmoothed SDA
# runs and those with λ, and its λ run is train-da's with --lambda; each further
# neighbourhood (CE_NBHDS) trains CE under that neighbourhood and is picked,
# unsupervisedly, by its own contrastive objective; em-rules is train-em --rules
# picked unsupervisedly by the share of rules, em-vb by its bound, em-evg is
# train-em --child-valence 2 and em-depth train-em --max-depth 1 --max-chunk
# 3, both picked by dev likelihood, and the induce row is induce's model; Model U's rows (modelu, modelu-spelling,
# modelu-all: no unsupervised one) train train-ce --family modelu and rank
# by dev undirected accuracy, modelu-all over both feature sets. Skips when ../shared/data is absent. Needs the
# programs in ../../bin (make build) and jq.
set -eu
cd "$(dirname "$0")"
[ -d ../../../shared/data/ptb-sample/wsj ] || { echo "check-heldout: ../shared/data not found; skipped"; exit 0; }
PATH=$(cd ../../bin && pwd):$PATH
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "check-heldout: $*" >&2; exit 1; }

make -s -f heldout.mk -j2 DATA=ptb OUT="$out" INITS=km LAMBDAS='0 1' BETA0S=0.1 GAMMAS=2.5 \
	DELTA0S=-0.2 DELTA_STEPS=0.1 DELTA_FINAL=0 SIGMA2S=1 CE_NBHDS=length \
	RULE_SHARES='0.8 0.9' PR_INITS=km PR_LAMBDAS=1 SIGMAS=3 VB_ALPHAS='1 0.1' EVG_LAMBDAS=1 DEPTH_LAMBDAS='0 1' U_NBHDS=trans1 "$out/heldout/table.tsv" >/dev/null
h=$out/heldout

rows=$(cut -f1 "$h/table.tsv" | tail -n +2 | tr '\n' ' ')
want="attach-left attach-right"
for e in em em0 sda sda-below1 sda-map sda-below1-map sa ce ce-length em-rules em-sparsity em-vb em-evg em-depth; do
	for s in supervised few unsupervised oracle; do want="$want $e.$s"; done
done
for e in modelu modelu-spelling modelu-all; do
	for s in supervised few oracle; do want="$want $e.$s"; done
done
want="$want induce.unsupervised"
[ "$rows" = "$want " ] || fail "the table's rows are
  $rows
not
  $want"

# sda-map ranks the unsmoothed run and the λ = 1 run; the latter is train-da's,
# and its below-one twin, kept from the sda run's stages, train-da --below-one's.
[ "$(jq -r .model "$h/sda-below1-map.supervised.jsonl" | sort | tr '\n' ' ')" = \
	"$h/sda-below1/km-b0.1-g2.5-l1.model $h/sda-below1/km-b0.1-g2.5.model " ] ||
	fail "sda-below1-map does not rank the runs with λ = 0 and 1"
train-da --init km --skew --below-one --beta0 0.1 --gamma 2.5 --lambda 1 -q "$out/train.jsonl" -o "$out/sda-l1.model"
cmp -s "$out/sda-l1.model" "$h/sda-below1/km-b0.1-g2.5-l1.model" ||
	fail "the λ = 1 SDA<1 model (the sda run's last stage below 1) is not train-da --below-one --lambda 1"
for d in "$h"/sda/*.stages; do [ -e "$d" ] && fail "the sda run left its stages behind: $d"; done
cmp -s "$h/sda-below1/km-b0.1-g2.5.model" "$h/sda-below1/km-b0.1-g2.5-l1.model" && fail "λ = 1 changed nothing"

# ce-length trains under LENGTH and its unsupervised pick is ranked by the
# contrastive objective under LENGTH.
train-ce --nbhd length --init km --sigma2 1 -q "$out/train.jsonl" -o "$out/ce-length.model"
cmp -s "$out/ce-length.model" "$h/ce-length/km-s1.model" || fail "ce-length is not train-ce --nbhd length"
want=$(select-model --dev "$out/dev.jsonl" --root exclude --by contrast --nbhd length --json -q "$h/ce-length/km-s1.model" | jq .contrast)
[ "$(jq .contrast "$h/ce-length.unsupervised.jsonl")" = "$want" ] ||
	fail "ce-length's unsupervised ranking is not its LENGTH contrastive objective"
# em-rules trains with the rules and is picked unsupervisedly by their share;
# em-vb by its bound; the induce row is induce's own model (of heldout.mk's
# INDUCE_PRESET, medium).
train-em --rules ptb --init km --lambda 1 --rule-share 0.9 -q "$out/train.jsonl" -o "$out/rules.model"
cmp -s "$out/rules.model" "$h/em-rules/km-l1-t0.9.model" || fail "em-rules is not train-em --rules ptb"
[ "$(jq -r '.by + " " + (.rule_share | type)' "$h/em-rules.unsupervised.jsonl" | sort -u)" = "rules number" ] ||
	fail "em-rules's unsupervised ranking is not by the share of rules"
[ "$(jq -r .by "$h/em-vb.unsupervised.jsonl" | sort -u)" = bound ] || fail "em-vb's unsupervised ranking is not by its bound"
# em-evg and em-depth train by train-em's extended valence and depth bound,
# each ranked by dev likelihood.
train-em --child-valence 2 --init km --lambda 1 -q "$out/train.jsonl" -o "$out/evg.model"
cmp -s "$out/evg.model" "$h/em-evg/km-l1.model" || fail "em-evg is not train-em --child-valence 2"
train-em --max-depth 1 --max-chunk 3 --init km --lambda 1 -q "$out/train.jsonl" -o "$out/depth.model"
cmp -s "$out/depth.model" "$h/em-depth/km-l1.model" || fail "em-depth is not train-em --max-depth 1 --max-chunk 3"
for e in em-evg em-depth; do
	[ "$(jq -r .by "$h/$e.unsupervised.jsonl" | sort -u)" = likelihood ] || fail "$e's unsupervised ranking is not by dev likelihood"
done
induce --train "$out/train.jsonl" --dev "$out/dev.jsonl" --rules ptb --preset medium -q -o "$out/induce.model"
cmp -s "$out/induce.model" "$h/induce.unsupervised.model" || fail "the induce row is not induce's model"
# Model U: train-ce --family modelu's runs, ranked by dev undirected accuracy.
train-ce --family modelu --spelling --nbhd trans1 --sigma2 1 -q "$out/train.jsonl" -o "$out/u.model"
cmp -s "$out/u.model" "$h/modelu/spelling-trans1-s1.model" || fail "modelu-spelling is not train-ce --family modelu --spelling"
[ "$(jq -r .model "$h/modelu-all.supervised.jsonl" | sort | tr '\n' ' ')" = \
	"$h/modelu/plain-trans1-s1.model $h/modelu/spelling-trans1-s1.model " ] || fail "modelu-all does not rank both feature sets"
jq -s -e 'map(.excluded.undirected.f1) | . == (sort | reverse)' "$h/modelu-all.supervised.jsonl" >/dev/null ||
	fail "modelu-all is not ranked by dev undirected accuracy"
echo "check-heldout: ok ($(echo "$rows" | wc -w) rows)"
