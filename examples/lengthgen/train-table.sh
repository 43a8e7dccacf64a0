#!/bin/sh
# Prints the Makefile's Table 7.2: per training cutoff K, the training set
# (sentences, words), the dev and test sets ≤ K (sentences), the EM and SA
# picks' directed accuracy (%, root excluded) on the test files' sentences
# ≤ K and on the entire sample, the sign test SA vs EM on each, and Smith's
# (2006) Table 7.2 (test set ≤ K, entire WSJ; MAP/EM, MAP/SA).
#
# usage: train-table.sh OUT K...
set -eu
out=$1
shift
L=$out/lengthgen
smith() {
	case $1 in
	10) echo '41.6	66.7	35.1	53.4' ;;
	20) echo '46.6	48.4	41.6	41.7' ;;
	40) echo '42.6	45.9	40.4	42.4' ;;
	100) echo '33.7	45.2	33.6	41.7' ;;
	*) echo '-	-	-	-' ;;
	esac
}
printf 'max length\ttrain sentences\ttrain words\tdev\ttest\tEM test\tSA test\tSA vs EM W/L\tp\tEM entire\tSA entire\tSA vs EM W/L\tp\tSmith EM test\tSmith SA test\tSmith EM entire\tSmith SA entire\n'
for k in "$@"; do
	if [ "$k" = 10 ]; then d=$out; else d=$out/train-max-$k; fi
	tr=$(jq -s -r '[length, (map(.tags | length) | add)] | @tsv' "$d/train.jsonl")
	dev=$(wc -l < "$d/dev.jsonl")
	jq -r -s --arg k "$k" --arg tr "$tr" --arg dev "$dev" --arg smith "$(smith "$k")" '
	  def pct: . * 1000 | round / 10;
	  def p: if . < 0.001 then "<0.001" else (. * 1000 | round / 1000 | tostring) end;
	  [$k] + ($tr | split("\t")) + [$dev, .[0].sentences,
	   (.[0].excluded.directed.f1 | pct), (.[1].excluded.directed.f1 | pct),
	   "\(.[1].sign_test.tokens.wins)/\(.[1].sign_test.tokens.losses)", (.[1].sign_test.tokens.p | p),
	   (.[2].excluded.directed.f1 | pct), (.[3].excluded.directed.f1 | pct),
	   "\(.[3].sign_test.tokens.wins)/\(.[3].sign_test.tokens.losses)", (.[3].sign_test.tokens.p | p)]
	  + ($smith | split("\t")) | @tsv' \
	  "$L/k$k.em.test.score" "$L/k$k.sa.test.score" "$L/k$k.em.whole.score" "$L/k$k.sa.whole.score"
done
