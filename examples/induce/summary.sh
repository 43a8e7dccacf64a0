#!/bin/sh
# One line per language from newlang.mk's scores: directed accuracy (%, root
# counted, then root excluded) of each row on the report half, the sign
# tests of induce against attach-right and against EM and induce's verdict,
# then the same for induce-mbr (induce's model parsed by decode --mbr).
#
# usage: summary.sh OUT tN LANG...   (tN: the report half's length bound, as newlang.mk names it)
set -eu
out=$1
t=$2
shift 2
pct() { printf "%.1f" "$(jq -r "$1 * 100" "$2")"; }
pv() { jq -r '.sign_test.tokens | if .p < 0.001 then "<0.001" else (.p * 1000 | round / 1000 | tostring) end' "$1"; }
wl() { jq -r '.sign_test.tokens | "\(.wins)/\(.losses)"' "$1"; }
# judge ROW: ROW's sign tests against attach-right and EM and its verdict,
# in $judged; its wins go to $tally (ROW:beats, ROW:sig)
judge() {
	i=$(pct .counted.directed.accuracy "$d/$1.$t.score")
	verdict=$(awk -v i="$i" -v e="$e" -v l="$lft" -v r="$r" 'BEGIN { if (i > e && i > l && i > r) print "beats EM and both baselines"; else printf "does not beat%s%s%s\n", (i <= e ? " EM" : ""), (i <= l ? " attach-left" : ""), (i <= r ? " attach-right" : "") }')
	case $verdict in beats*) tally="$tally $1:beats" ;; esac
	if awk -v i="$i" -v r="$r" -v p="$(jq -r .sign_test.tokens.p "$d/$1.$t.score")" 'BEGIN { exit !(i > r && p < 0.05) }'; then
		tally="$tally $1:sig"
		verdict="$verdict, significantly over attach-right"
	fi
	judged=$(printf '%-16s %-16s %s' "$(wl "$d/$1.$t.score") $(pv "$d/$1.$t.score")" "$(wl "$d/$1.$t.vs-em") $(pv "$d/$1.$t.vs-em")" "$verdict")
}
count() { echo "$tally" | tr ' ' '\n' | grep -cx "$1" || true; }
printf '%-4s %5s %-11s %-11s %-11s %-11s %-11s %-11s %-16s %-16s %s\n' lang sents left right em induce induce-mbr induce-sup '…/right p' '…/em p' verdict
tally= n=0
for l in "$@"; do
	d=$out/$l
	n=$((n + 1))
	row() { printf '%s/%s' "$(pct .counted.directed.accuracy "$d/$1.$t.score")" "$(pct .excluded.directed.f1 "$d/$1.$t.score")"; }
	e=$(pct .counted.directed.accuracy "$d/em.$t.score")
	lft=$(pct .counted.directed.accuracy "$d/attach-left.$t.score")
	r=$(pct .counted.directed.accuracy "$d/attach-right.$t.score")
	judge induce
	printf '%-4s %5s %-11s %-11s %-11s %-11s %-11s %-11s %s\n' "$l" "$(jq -r .sentences "$d/induce.$t.score")" \
		"$(row attach-left)" "$(row attach-right)" "$(row em)" "$(row induce)" "$(row induce-mbr)" "$(row induce-sup)" "induce: $judged"
	judge induce-mbr
	printf '%-4s %5s %-11s %-11s %-11s %-11s %-11s %-11s %s\n' '' '' '' '' '' '' '' '' "induce-mbr: $judged"
done
echo
echo "induce beats EM and both baselines in $(count induce:beats) of $n languages; significantly (p < 0.05) over attach-right in $(count induce:sig) of $n."
echo "induce-mbr (its model parsed by decode --mbr, a decoder chosen with the selection halves' gold heads) beats them in $(count induce-mbr:beats) of $n; significantly over attach-right in $(count induce-mbr:sig) of $n."
echo "Directed accuracy, root counted/root excluded (%), on the even-numbered dev sentences; W/L are the row's token"
echo "wins and losses (root counted) in the sign test. induce-sup is a supervised pick, not a result without annotation."
