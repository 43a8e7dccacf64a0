#!/bin/sh
# Klein's multiple constituent classes (§5.3.2, Figs. 5.8, 5.9): the CCM
# with 2 classes (the CCM itself) and with 12 (the distituent label and 11
# constituent classes), trained and scored on the PTB sample ≤ 10 (train =
# test, as Klein's WSJ10), no model selection (EM to convergence). The
# classes start apart by seeded random shares (train-ccm --seed): the
# table has seed 1 and the range over seeds 1–5, and the 12-class model of
# seed 1 lists each class's most frequent yields (--dump-classes).
#
#   classes.sh OUT    (OUT/en-all.jsonl made by the Makefile: make -C examples/ccm classes)
set -eu
out=$1
in=$out/en-all.jsonl
pct() { awk '{ printf "%.1f", 100*$0 }'; }
row() { # LABEL PRED: P, R, F1 and LR(NP, PP, VP, S)
	score --json --analysis labels "$2" > "$2.score.json"
	j=$2.score.json
	lr() { jq --arg l "$1" '.by_label[] | select(.label == $l) | .recall' "$j" | pct; }
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" \
		"$(jq .brackets.standard.precision "$j" | pct)" "$(jq .brackets.standard.recall "$j" | pct)" \
		"$(jq .brackets.standard.f1 "$j" | pct)" "$(lr NP)" "$(lr PP)" "$(lr VP)" "$(lr S)"
}
for k in 2 3 12; do
	for seed in 1 2 3 4 5; do
		p=$out/en-all.classes$k-seed$seed.jsonl
		[ -s "$p" ] && continue
		dump=
		[ "$k" = 12 ] && [ "$seed" = 1 ] && dump="--dump-classes $out/classes12.dump.jsonl"
		# shellcheck disable=SC2086 # $dump is a flag and its file or nothing
		train-ccm --quiet --classes "$k" --seed "$seed" $dump "$in" -o "$p"
	done
done
echo "| classes | P | R | F1 | NP recall | PP recall | VP recall | S recall |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for k in 2 3 12; do
	row "$k, seed 1" "$out/en-all.classes$k-seed1.jsonl"
done
echo
echo "F1 over seeds 1–5 (min / median / max):"
echo
for k in 2 3 12; do
	for seed in 1 2 3 4 5; do
		score --json "$out/en-all.classes$k-seed$seed.jsonl" | jq .brackets.standard.f1
	done | sort -n | awk -v k="$k" '{ f[NR] = 100*$1 } END { printf "- %s classes: %.1f / %.1f / %.1f\n", k, f[1], f[3], f[5] }'
done
echo
echo "The 12-class model (seed 1): each class's most frequent yields of two tags or more (expected counts; class 0 is the distituent label):"
echo
echo "| class | most frequent yields (expected count) |"
echo "|---:|---|"
jq -r '"\(.class)\t\(.yield | join(" ")) \(.count | round)"' "$out/classes12.dump.jsonl" |
	awk -F '\t' '{ row[$1] = row[$1] (row[$1] == "" ? "" : ", ") $2; n = $1 } END { for (c = 0; c <= n; c++) printf "| %d | %s |\n", c, row[c] }'
