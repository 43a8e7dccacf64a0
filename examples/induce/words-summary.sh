#!/bin/sh
# One line per language from words.mk's scores: directed accuracy (%, root
# counted, then root excluded) of each row on the report half, the sign test
# of induce --words against attach-right and against the DMV on gold tags,
# the averages and the verdicts.
#
# usage: words-summary.sh OUT tN LANG...
set -eu
out=$1
t=$2
shift 2
pct() { printf "%.1f" "$(jq -r "$1 * 100" "$2")"; }
pv() { jq -r '.sign_test.tokens | if .p < 0.001 then "<0.001" else (.p * 1000 | round / 1000 | tostring) end' "$1"; }
printf '%-4s %5s %-11s %-11s %-11s %-11s %-11s %-11s %-12s %-16s %-16s %s\n' lang sents left right em-gold words-em words words-few words-dmvccm 'words/right p' 'words/em-gold p' verdict
n=0 above=0 sig=0 sumw=0 sume=0
for l in "$@"; do
	d=$out/$l
	n=$((n + 1))
	row() { printf '%s/%s' "$(pct .counted.directed.accuracy "$d/$1.$t.score")" "$(pct .excluded.directed.f1 "$d/$1.$t.score")"; }
	w=$(pct .counted.directed.accuracy "$d/words.$t.score")
	e=$(pct .counted.directed.accuracy "$d/em-gold.$t.score")
	r=$(pct .counted.directed.accuracy "$d/attach-right.$t.score")
	sumw=$(awk -v a="$sumw" -v b="$w" 'BEGIN { print a + b }')
	sume=$(awk -v a="$sume" -v b="$e" 'BEGIN { print a + b }')
	verdict="not above attach-right"
	if awk -v w="$w" -v r="$r" 'BEGIN { exit !(w > r) }'; then
		above=$((above + 1))
		verdict="above attach-right"
		if awk -v p="$(jq -r .sign_test.tokens.p "$d/words.$t.score")" 'BEGIN { exit !(p < 0.05) }'; then
			sig=$((sig + 1))
			verdict="$verdict, significantly"
		fi
	fi
	printf '%-4s %5s %-11s %-11s %-11s %-11s %-11s %-11s %-12s %-16s %-16s %s\n' "$l" "$(jq -r .sentences "$d/words.$t.score")" \
		"$(row attach-left)" "$(row attach-right)" "$(row em-gold)" "$(row words-em)" "$(row words)" "$(row words-few)" "$(row words-dmvccm)" \
		"$(jq -r '.sign_test.tokens | "\(.wins)/\(.losses)"' "$d/words.$t.score") $(pv "$d/words.$t.score")" \
		"$(jq -r '.sign_test.tokens | "\(.wins)/\(.losses)"' "$d/words.$t.vs-em-gold") $(pv "$d/words.$t.vs-em-gold")" "$verdict"
done
echo
awk -v w="$sumw" -v e="$sume" -v n="$n" 'BEGIN { printf "mean directed accuracy (root counted): words %.1f, em-gold %.1f (words − em-gold: %+.1f points)\n", w / n, e / n, (w - e) / n }'
echo "induce --words is above attach-right in $above of $n languages, significantly (p < 0.05) in $sig."
echo "Directed accuracy, root counted/root excluded (%), on the report half; W/L are induce --words's token wins and"
echo "losses (root counted) in the sign test. No gold tag or tree is read before scoring but by em-gold, and by"
echo "words-few (20 annotated dev sentences pick among induce's candidates: a reference, not a result without annotation)."
