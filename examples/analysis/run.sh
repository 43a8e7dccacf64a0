#!/bin/sh
# Smith's (2006) and Klein's (2005) error analyses (score --analysis) on the
# PTB sample ≤ 10: 555 sentences (3,856 tokens, 3,301 arcs between words),
# every model trained and scored on the same sentences (the transductive
# WSJ10 setting Klein reports; Smith's tables are on 530 held-out WSJ
# sentences). Writes DIR/NAME.jsonl (parses), DIR/NAME.txt (score's tables
# for people) and prints the summary tables of docs/results.md in Markdown.
#
#   examples/analysis/run.sh [DIR] [SHARED]     (after make build; DIR=out/analysis)
#
# Models (Smith's settings: his Tables 3.2, 4.2, 6.2; grind's: the fixed
# split's supervised picks, docs/results.md "The held-out tables"):
#   right    ATTACH-RIGHT (baseline --attach right)
#   em       EM, K&M, λ = 10^−2/3 (Smith's selected MAP/EM trial)
#   ce       CE/DEL1ORTRANS1, Local, σ² = ∞ (Smith's selected CE trial)
#   sa       SA on δ, Zero, λ = 10, δ −0.6 by 0.1 to +0.1 (Smith's)
#   ce-pick  CE/DEL1ORTRANS1, Zero, σ² = 10^−2/3 (grind's pick)
#   sa-pick  SA on δ, K&M, λ = 10^−1/3, δ −0.6 by 0.1 to +0.3 (grind's pick)
#   ccm      the CCM (train-ccm's defaults), brackets
#   dmvccm   DMV+CCM (train-ccm --model dmvccm), heads and brackets
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-out/analysis}
shared=${2:-$here/../../../shared/data}
export PATH="$here/../../bin:$PATH"
mkdir -p "$dir"
c=$dir/ptb10.jsonl
[ -s "$c" ] || ptb2deps --tree "$shared"/ptb-sample/wsj/*/*.mrg | filterlen 10 > "$c"

parse() { # NAME TRAINER ARGS...: train on c, decode c
	name=$1
	shift
	[ -s "$dir/$name.jsonl" ] && return 0
	"$@" --quiet "$c" -o "$dir/$name.model"
	decode --quiet -m "$dir/$name.model" "$c" > "$dir/$name.jsonl"
}
[ -s "$dir/right.jsonl" ] || baseline --attach right "$c" > "$dir/right.jsonl"
parse em train-em --init km --lambda 0.2154
parse ce train-ce --init local --nbhd del1ortrans1 --sigma2 inf
parse sa train-sa --init zero --lambda 10 --delta0 -0.6 --delta-step 0.1 --delta-final 0.1
parse ce-pick train-ce --init zero --nbhd del1ortrans1 --sigma2 0.2154
parse sa-pick train-sa --init km --lambda 0.4642 --delta0 -0.6 --delta-step 0.1 --delta-final 0.3
[ -s "$dir/ccm.jsonl" ] || train-ccm --quiet "$c" > "$dir/ccm.jsonl"
[ -s "$dir/dmvccm.jsonl" ] || train-ccm --quiet --model dmvccm "$c" > "$dir/dmvccm.jsonl"

deps="right em ce sa ce-pick sa-pick dmvccm"
for m in $deps; do
	score --root exclude --analysis links,distance,paths --min-count 30 "$dir/$m.jsonl" > "$dir/$m.txt"
	score --root exclude --analysis links,distance,paths --json "$dir/$m.jsonl" > "$dir/$m.deps.json"
done
for m in ccm dmvccm; do
	score --analysis labels,sequences --top 10 "$dir/$m.jsonl" > "$dir/$m.brackets.txt"
	score --analysis labels,sequences --json "$dir/$m.jsonl" > "$dir/$m.brackets.json"
done

pct() { awk '{ if ($0 == "null" || $0 == "") print "–"; else printf "%.1f\n", 100*$0 }'; }
num() { awk -v d="$1" '{ printf "%.*f\n", d, $0 }'; }
# tsv2md: tab-separated rows to Markdown ones, a fraction (0..1, marked by a
# leading "%") as a percentage with one decimal, "-" as "–".
tsv2md() { awk -F '\t' '{ printf "|"; for (i = 1; i <= NF; i++) { v = $i; if (v ~ /^%/) v = sprintf("%.1f", 100 * substr(v, 2)); if (v == "-") v = "–"; printf " %s |", v } print "" }'; }

echo "Dependencies (root excluded; paths: % of tokens, the wall a node; D: Jensen–Shannon divergence of link types, bits)"
echo
echo "| model | directed | undirected | path 1 undir. | path 1 dir. | path ∞ dir. | mean path (tokens) | mean path (sentences) | D undir. | D dir. |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for m in $deps; do
	j=$dir/$m.deps.json
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$m" \
		"$(jq .excluded.directed.f1 "$j" | pct)" "$(jq .excluded.undirected.f1 "$j" | pct)" \
		"$(jq '.paths.undirected.by_length[] | select(.length == 1) | .share' "$j" | pct)" \
		"$(jq '.paths.directed.by_length[] | select(.length == 1) | .share' "$j" | pct)" \
		"$(jq .paths.directed.infinite.share "$j" | pct)" \
		"$(jq .paths.undirected.micro "$j" | num 2)" "$(jq .paths.undirected.macro "$j" | num 2)" \
		"$(jq .links.divergence.undirected "$j" | num 3)" "$(jq .links.divergence.directed "$j" | num 3)"
done
echo
echo "Sign test of undirected path lengths against EM (Smith's Tables 4.5, 6.6): wins (shorter) / losses / ties, two-sided p"
echo
echo "| model | sentences (mean path) | p | tokens | p |"
echo "|---|---:|---:|---:|---:|"
for m in right ce sa ce-pick sa-pick dmvccm; do
	score --root exclude --analysis paths --against "$dir/em.jsonl" --json "$dir/$m.jsonl" |
		jq -r --arg m "$m" '.sign_test.paths | "| \($m) | \(.sentences.wins) / \(.sentences.losses) / \(.sentences.ties) | \(.sentences.p) | \(.tokens.wins) / \(.tokens.losses) / \(.tokens.ties) | \(.tokens.p) |"' |
		awk -F ' [|] ' '{ printf "%s | %s | %.2g | %s | %.2g |\n", $1, $2, $3, $4, $5 }'
done
echo
echo "EM's link types, undirected (Smith's Table 3.3: rows with ≥ 30 arcs predicted or in gold, by gold count)"
echo
echo "| tags | predicted | precision | recall | gold |"
echo "|---|---:|---:|---:|---:|"
jq -r '.links.undirected[] | select(.predicted >= 30 or .gold >= 30) | [(.tags | join(" ")), .predicted, (if .predicted > 0 then "%\(.precision)" else "-" end), (if .gold > 0 then "%\(.recall)" else "-" end), .gold] | @tsv' "$dir/em.deps.json" | tsv2md
echo
echo "Precision and recall by distance (Smith's Table 3.4), EM: undirected P / R, directed left and right P / R"
echo
echo "| distance | predicted (left, right) | undirected P / R | left P / R | right P / R | gold (left, right) |"
echo "|---:|---:|---:|---:|---:|---:|"
jq -r '.by_distance[] | def p($c; $n): if $n > 0 then ($c / $n * 1000 | round / 10 | tostring | if test("[.]") then . else . + ".0" end) else "–" end;
	"| \(.distance) | \(.undirected.predicted) (\(.left.predicted), \(.right.predicted)) | \(p(.undirected.correct; .undirected.predicted)) / \(p(.undirected.correct; .undirected.gold)) | \(p(.left.correct; .left.predicted)) / \(p(.left.correct; .left.gold)) | \(p(.right.correct; .right.predicted)) / \(p(.right.correct; .right.gold)) | \(.undirected.gold) (\(.left.gold), \(.right.gold)) |"' "$dir/em.deps.json"
echo
echo "Path analysis (Smith's Table 3.5, % of tokens: undirected / directed)"
echo
printf '| path length |'
for m in right em ce-pick sa-pick; do printf ' %s |' "$m"; done
echo
echo "|---:|---:|---:|---:|---:|"
for l in 1 2 3 4 5 6 7 8 9; do
	printf '| %s |' $l
	for m in right em ce-pick sa-pick; do
		j=$dir/$m.deps.json
		printf ' %s / %s |' "$(jq "[.paths.undirected.by_length[] | select(.length == $l) | .share] | first // 0" "$j" | pct)" \
			"$(jq "[.paths.directed.by_length[] | select(.length == $l) | .share] | first // 0" "$j" | pct)"
	done
	echo
done
printf '| ∞ |'
for m in right em ce-pick sa-pick; do printf ' – / %s |' "$(jq .paths.directed.infinite.share "$dir/$m.deps.json" | pct)"; done
echo
echo
echo "Constituents: LR(X), recall of gold nodes by label (Klein's Fig. 5.8; whole-sentence and one-word nodes left out)"
echo
echo "| model | UP | UR | F1 | NP | VP | PP | S | SBAR | ADJP | QP | ADVP |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for m in ccm dmvccm; do
	j=$dir/$m.brackets.json
	printf '| %s | %s | %s | %s |' "$m" "$(jq .brackets.standard.precision "$j" | pct)" "$(jq .brackets.standard.recall "$j" | pct)" "$(jq .brackets.standard.f1 "$j" | pct)"
	for x in NP VP PP S SBAR ADJP QP ADVP; do
		printf ' %s (%s) |' "$(jq ".by_label[] | select(.label == \"$x\") | .recall" "$j" | pct)" "$(jq ".by_label[] | select(.label == \"$x\") | .gold" "$j")"
	done
	echo
done
for m in ccm dmvccm; do
	echo
	echo "Tag sequences most over-proposed, under-proposed and proposed crossing a gold bracket, $m (Klein's Figs. 5.7, 6.7)"
	echo
	echo "| rank | over-proposed | under-proposed | crossing |"
	echo "|---:|---|---|---|"
	j=$dir/$m.brackets.json
	for k in 0 1 2 3 4 5 6 7 8 9; do
		printf '| %d |' $((k + 1))
		for f in over under crossing; do
			printf ' %s |' "$(jq -r "[.sequences[] | select(.$f > 0)] | sort_by(-.$f) | .[$k] // empty | \"\(.tags | join(\" \")) \(.$f)\"" "$j")"
		done
		echo
	done
done
