#!/bin/sh
# Klein's DISTR. rows (Klein 2005, §5.3.3 and §6.3): the CCM and DMV+CCM on
# Klein's distributional classes (train-classes --method klein) instead of
# gold tags, on the PTB sample ≤ 10 (trained and scored on the same
# sentences, as Klein's WSJ10). The classes are learnt from the words of
# every sentence of the sample (Klein: the treebank's and 1994–96 newswire's),
# then the sentences of ≤ 10 words are kept; the last row adds the Brown
# corpus's words to the text the classes are learnt from. DMV+CCM is also
# scored with determiners heading their NPs (ptb2deps --dt-heads), as Klein
# scored his DISTR. model (§6.3).
#
# usage: distr.sh OUT SHARED     (make -C examples/ccm distr)
set -eu
out=$1/distr
shared=$2
mkdir -p "$out"
pct() { jq -r "$1" | awk '{ printf "%.1f\n", 100*$0 }'; }
[ -f "$out/all.jsonl" ] || ptb2deps --tree "$shared"/ptb-sample/wsj/*/*.mrg > "$out/all.jsonl"
[ -f "$out/brown.jsonl" ] || tagged2sents --format brown -q "$shared"/brown/c[a-r][0-9][0-9] -o "$out/brown.jsonl"
# dtheads PRED: PRED's sentences with the gold heads of determiner-headed
# NPs (ptb2deps --dt-heads; the same sentences in the same order, checked
# by id), for Klein's adjusted scores (§6.3).
dtheads() {
	jq -c -n --slurpfile dt "$out/gold-dt.jsonl" '[inputs] as $p | range($p | length) as $i
		| if $p[$i].id == $dt[$i].id then $p[$i] + {heads: $dt[$i].heads} else error("\($p[$i].id) is not \($dt[$i].id)") end' "$1"
}
row() { # NAME FILE: the CCM's and DMV+CCM's scores on the ≤ 10 sentences of FILE
	[ -f "$out/$1.ccm.jsonl" ] || train-ccm -q "$2" -o "$out/$1.ccm.jsonl"
	[ -f "$out/$1.dmvccm.jsonl" ] || train-ccm -q --model dmvccm "$2" -o "$out/$1.dmvccm.jsonl"
	c=$(score --json "$out/$1.ccm.jsonl")
	d=$(score --json "$out/$1.dmvccm.jsonl")
	a=$(dtheads "$out/$1.dmvccm.jsonl" | score --json)
	echo "| $3 | $(echo "$c" | pct .brackets.standard.f1) | $(echo "$d" | pct .brackets.standard.f1) | $(echo "$d" | pct .directed) / $(echo "$d" | pct .undirected) | $(echo "$a" | pct .directed) / $(echo "$a" | pct .undirected) |"
}
classes() { # NAME K SEED [EXTRA]: Klein's K classes of the sample's words (and EXTRA's)
	[ -f "$out/$1.jsonl" ] && return
	train-classes --method klein --classes "$2" --seed "$3" -q "$out/all.jsonl" ${4:-} |
		head -n "$(wc -l < "$out/all.jsonl")" | filterlen 10 > "$out/$1.jsonl.tmp" && mv "$out/$1.jsonl.tmp" "$out/$1.jsonl"
}
[ -f "$out/gold.jsonl" ] || filterlen 10 "$out/all.jsonl" > "$out/gold.jsonl"
[ -f "$out/gold-dt.jsonl" ] || ptb2deps --dt-heads --tree "$shared"/ptb-sample/wsj/*/*.mrg | filterlen 10 > "$out/gold-dt.jsonl"
echo "| tags | CCM F1 | DMV+CCM F1 | DMV+CCM directed / undirected | the same, DT-headed NPs |"
echo "|---|---:|---:|---|---|"
row gold "$out/gold.jsonl" "gold (45 Penn tags)"
for s in 1 2 3; do
	classes klein200-$s 200 $s
	row klein200-$s "$out/klein200-$s.jsonl" "Klein's classes, 200, seed $s"
done
classes klein45 45 1
row klein45 "$out/klein45.jsonl" "Klein's classes, 45"
classes klein45-brown 45 1 "$out/brown.jsonl"
row klein45-brown "$out/klein45-brown.jsonl" "Klein's classes, 45, learnt with the Brown corpus's words"
echo "| Klein (2005), WSJ10 (7,422 sentences), gold tags (Fig. 6.6) | 71.9 | 77.6 | 47.5 / 64.5 | – |"
echo "| Klein (2005), induced classes: CCM Fig. 5.8, DMV+CCM (DISTR.) Fig. 6.6, §6.3 | 63.2 | 72.9 | 42.3 / 60.4 | 50.6 / 64.8 |"
