#!/bin/sh
# One line per language from newlang.mk's scores: directed accuracy (%, root
# counted, then root excluded) of each row on the report half, the sign test
# of induce against attach-right and against EM, and the verdicts.
#
# usage: summary.sh OUT tN LANG...   (tN: the report half's length bound, as newlang.mk names it)
set -eu
out=$1
t=$2
shift 2
pct() { printf "%.1f" "$(jq -r "$1 * 100" "$2")"; }
pv() { jq -r '.sign_test.tokens | if .p < 0.001 then "<0.001" else (.p * 1000 | round / 1000 | tostring) end' "$1"; }
printf '%-4s %5s %-11s %-11s %-11s %-11s %-11s %-16s %-16s %s\n' lang sents left right em induce induce-sup 'induce/right p' 'induce/em p' verdict
beats=0 sig=0 n=0
for l in "$@"; do
	d=$out/$l
	n=$((n + 1))
	row() { printf '%s/%s' "$(pct .counted.directed.accuracy "$d/$1.$t.score")" "$(pct .excluded.directed.f1 "$d/$1.$t.score")"; }
	i=$(pct .counted.directed.accuracy "$d/induce.$t.score")
	e=$(pct .counted.directed.accuracy "$d/em.$t.score")
	lft=$(pct .counted.directed.accuracy "$d/attach-left.$t.score")
	r=$(pct .counted.directed.accuracy "$d/attach-right.$t.score")
	pr=$(pv "$d/induce.$t.score")
	pe=$(pv "$d/induce.$t.vs-em")
	wl=$(jq -r '.sign_test.tokens | "\(.wins)/\(.losses)"' "$d/induce.$t.score")
	we=$(jq -r '.sign_test.tokens | "\(.wins)/\(.losses)"' "$d/induce.$t.vs-em")
	verdict=$(awk -v i="$i" -v e="$e" -v l="$lft" -v r="$r" 'BEGIN { if (i > e && i > l && i > r) print "beats EM and both baselines"; else printf "does not beat%s%s%s\n", (i <= e ? " EM" : ""), (i <= l ? " attach-left" : ""), (i <= r ? " attach-right" : "") }')
	case $verdict in beats*) beats=$((beats + 1)) ;; esac
	sigr=""
	if awk -v i="$i" -v r="$r" -v p="$(jq -r .sign_test.tokens.p "$d/induce.$t.score")" 'BEGIN { exit !(i > r && p < 0.05) }'; then
		sig=$((sig + 1))
		sigr=", significantly over attach-right"
	fi
	printf '%-4s %5s %-11s %-11s %-11s %-11s %-11s %-16s %-16s %s%s\n' "$l" "$(jq -r .sentences "$d/induce.$t.score")" \
		"$(row attach-left)" "$(row attach-right)" "$(row em)" "$(row induce)" "$(row induce-sup)" "$wl $pr" "$we $pe" "$verdict" "$sigr"
done
echo
echo "induce beats EM and both baselines in $beats of $n languages; significantly (p < 0.05) over attach-right in $sig of $n."
echo "Directed accuracy, root counted/root excluded (%), on the even-numbered dev sentences; W/L are induce's token"
echo "wins and losses (root counted) in the sign test. induce-sup is a supervised pick, not a result without annotation."
