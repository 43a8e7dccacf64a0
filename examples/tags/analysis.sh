#!/bin/sh
# analysis.sh NAME=RUN... — the tables of docs/results.md "Error analyses
# of induced tags" in Markdown, from RUN.analysis.json (score-tags
# --analysis all --json of RUN's tagged sentences), every run on the same
# tokens. NAME labels the run's columns.
set -eu
pct() { awk '{ printf "%.1f\n", 100 * $0 }'; }
json() { echo "${1#*=}.analysis.json"; }
first=$(json "$1")

echo "Tokens per tag (Johnson 2007): tags with a token; the largest tag's share and the five largest tags'; how many"
echo "of the largest tags hold half of the tokens; the entropy of the tag distribution (bits)"
echo
echo "| tags | used | largest | 5 largest | tags for half the tokens | entropy (bits) |"
echo "|---|---:|---:|---:|---:|---:|"
# row LABEL FILE SIZES ENTROPY: the jq paths of the sizes and of the entropy
row() {
	jq -r --arg l "$1" "$3 as \$s | [\$l, (\$s | length), (\$s[0].share * 1000 | round / 10),
		(\$s[:5] | map(.share) | add * 1000 | round / 10),
		(reduce \$s[] as \$x ({n: 0, c: 0}; if .c < 0.5 then {n: (.n + 1), c: (.c + \$x.share)} else . end) | .n),
		($4 * 1000 | round / 1000)] | \"| \" + (map(tostring) | join(\" | \")) + \" |\"" "$2"
}
row "gold" "$first" .sizes.gold .h_gold
for r in "$@"; do row "${r%%=*}" "$(json "$r")" .sizes.induced .h_induced; done

echo
echo "F1 of the 12 most frequent gold tags, each token given the gold tag its induced tag maps to: many-to-1 (in"
echo "brackets how many induced tags map to the gold tag) / greedy 1-to-1; then the gold tags many-to-1 never predicts"
echo
printf '| gold tag | tokens |'
for r in "$@"; do printf ' %s |' "${r%%=*}"; done
echo
printf '|---|---:|'
for r in "$@"; do printf -- '---:|'; done
echo
for k in 0 1 2 3 4 5 6 7 8 9 10 11; do
	printf '| %s |' "$(jq -r ".by_gold_tag[$k] | \"\(.tag) | \(.tokens)\"" "$first")"
	for r in "$@"; do
		printf ' %s |' "$(jq -r ".by_gold_tag[$k] | \"\(.many_to_1.f1 * 1000 | round / 10) (\(.many_to_1_tags)) / \(.one_to_1.f1 * 1000 | round / 10)\"" "$(json "$r")")"
	done
	echo
done
printf '| never predicted by many-to-1 | |'
for r in "$@"; do
	printf ' %s |' "$(jq -r '[.by_gold_tag[] | select(.many_to_1_tags == 0)] as $n | "\($n | length) tags, \($n | map(.tokens) | add // 0) tokens: \($n[:6] | map(.tag) | join(" "))\(if ($n | length) > 6 then " …" else "" end)"' "$(json "$r")")"
done
echo

for r in "$@"; do
	echo
	echo "${r%%=*}: the 8 largest induced tags, their share of the tokens, many-to-1 gold tag, share of it in the tag, and"
	echo "their most frequent words (Klein 2005, Fig. 5.9)"
	echo
	echo "| induced | tokens | many-to-1 | its share | most frequent words |"
	echo "|---|---:|---|---:|---|"
	jq -r '(.confusion.induced | map({key: .tag, value: .gold[0].share}) | from_entries) as $pure |
		.words[:8][] | "| \(.tag) | \(.tokens) | \(.many_to_1) | \($pure[.tag] * 1000 | round / 10) | \(.words[:8] | map(.word) | join(" ")) |"' "$(json "$r")" |
		sed 's/`/\\`/g'
done
