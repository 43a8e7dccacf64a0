#!/bin/sh
# Prints the length table of the Makefile from its score files: per bucket,
# sentences and arcs between words, directed accuracy (%, root excluded, as
# Smith reports) of the EM, CE and SA picks, the sign tests (token wins /
# losses, two-sided p) CE vs EM, SA vs EM and SA vs CE, and Smith's (2006)
# Table 7.1 (WSJ: sentences, MAP/EM, CE/DEL1ORTRANS1, MAP/SA) where the row
# is his.
#
# usage: table.sh DIR BUCKET...
set -eu
dir=$1
shift
smith() {
	case $1 in
	test10) echo '530	41.6	57.6	66.7' ;;
	11-20) echo '18,101	37.6	45.6	57.3' ;;
	11-40) echo '39,963	35.1	42.1	53.3' ;;
	11-) echo '41,786	34.7	41.8	52.8' ;;
	whole) echo '49,208	35.1	42.4	53.4' ;;
	*) echo '-	-	-	-' ;;
	esac
}
label() {
	case $1 in
	test10) echo 'test ≤ 10' ;;
	11-20) echo '10 < |x| ≤ 20' ;;
	11-40) echo '10 < |x| ≤ 40' ;;
	11-) echo '10 < |x|' ;;
	whole) echo 'entire sample' ;;
	t11-) echo 'test files, 10 < |x|' ;;
	twhole) echo 'test files, all' ;;
	t*-) echo "test files, $(echo "${1#t}" | sed 's/-$//') ≤ |x|" ;;
	t*) echo "test files, $(echo "${1#t}" | sed 's/-/ ≤ |x| ≤ /')" ;;
	esac
}
printf 'bucket\tsentences\tarcs\tEM\tCE\tSA\tCE vs EM W/L\tp\tSA vs EM W/L\tp\tSA vs CE W/L\tp\tSmith sentences\tSmith EM\tSmith CE\tSmith SA\n'
for b in "$@"; do
	jq -r -s --arg b "$(label "$b")" --arg smith "$(smith "$b")" '
	  def pct: . * 1000 | round / 10;
	  def p: if . < 0.001 then "<0.001" else (. * 1000 | round / 1000 | tostring) end;
	  def st: "\(.sign_test.tokens.wins)/\(.sign_test.tokens.losses)", (.sign_test.tokens.p | p);
	  [$b, .[0].sentences, .[0].excluded.directed.gold,
	   (.[0].excluded.directed.f1 | pct), (.[1].excluded.directed.f1 | pct), (.[2].excluded.directed.f1 | pct),
	   (.[1] | st), (.[2] | st), (.[3] | st)] + ($smith | split("\t")) | @tsv' \
	  "$dir/em.$b.score" "$dir/ce.$b.score" "$dir/sa.$b.score" "$dir/sa-ce.$b.score"
done
