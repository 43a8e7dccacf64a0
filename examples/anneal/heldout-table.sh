#!/bin/sh
# Prints the held-out table of heldout.mk from its score files: per
# estimator and selection, the model picked, directed and undirected
# accuracy on the test part (%, root excluded, as Smith reports), the sign
# test against EM picked the same way (token wins/losses and p; sentence
# p; "undir." after W/L when it counts undirected attachments, Model U's),
# and Smith's (2006) WSJ10 number for the same estimator and selection.
#
# usage: heldout-table.sh DIR ROW...
set -eu
dir=$1
shift
# Smith (2006), WSJ10 test, directed, root excluded: Tables 3.2 (EM; its
# supervised and unsupervised selection picked the same model), 5.3 (SDA,
# beside both sda rows, and em0: EM without smoothing from K&M), 4.2 (CE,
# DEL1ORTRANS1 and each further neighbourhood), 6.2 and 8.8 (SA on δ; the
# baselines); for Model U, which Smith scores undirected only, Table 4.9's
# pick across neighbourhoods and feature sets (undirected).
smith() {
	case $1 in
	attach-left) echo 22.6 ;;
	attach-right) echo 39.5 ;;
	em.supervised | em.unsupervised) echo 41.6 ;;
	em0.supervised) echo 41.7 ;;
	sda.supervised | sda-below1.supervised) echo 46.7 ;;
	sda.unsupervised | sda-below1.unsupervised) echo 25.9 ;;
	sa.supervised) echo 66.7 ;;
	sa.unsupervised) echo 43.6 ;;
	ce.supervised) echo 57.6 ;;
	ce.unsupervised) echo 47.3 ;;
	ce-del1.supervised) echo 39.7 ;;
	ce-del1.unsupervised) echo 18.3 ;;
	ce-trans1.supervised) echo 41.2 ;;
	ce-trans1.unsupervised) echo 29.4 ;;
	ce-length.supervised | ce-length.unsupervised) echo 45.5 ;;
	ce-dynasearch.supervised) echo 47.6 ;;
	ce-dynasearch.unsupervised) echo 39.7 ;;
	ce-trans2.supervised | ce-trans2.unsupervised) echo 40.2 ;;
	ce-del1ortrans2.supervised) echo 51.2 ;;
	ce-del1ortrans2.unsupervised) echo 37.9 ;;
	ce-del1subseq.supervised) echo 26.6 ;;
	ce-del1subseq.unsupervised) echo 18.9 ;;
	modelu-all.supervised) echo '55.5 (undir.)' ;;
	*) echo - ;;
	esac
}
# The model picked in DIR: the first line of the ranking; an SA run's pick
# names its epoch in the run's own ranking.
picked_in() {
	[ -f "$1/$2.jsonl" ] || { echo -; return; }
	m=$(head -1 "$1/$2.jsonl" | jq -r .model)
	sel=${2#*.}
	if [ "$(basename "$m")" = "$sel.model" ]; then
		run=$(dirname "$m")
		printf '%s/%s\n' "$(basename "$run")" "$(head -1 "$run/$sel.jsonl" | jq -r '.model | split("/") | last | rtrimstr(".jsonl")')"
	else
		basename "$m" .model
	fi
}
# Cross-validation (CV_PICKED names the folds' directories): the pick most
# folds made, and in how many of them.
picked() {
	if [ -z "${CV_PICKED:-}" ]; then
		picked_in "$dir" "$1"
		return
	fi
	n=$(echo $CV_PICKED | wc -w)
	for d in $CV_PICKED; do picked_in "$d" "$1"; done | sed 's,/epoch-[0-9]*-,/,' | sort | uniq -c | sort -k1,1nr -k2 | head -1 |
		awk -v n="$n" '$2 == "-" { print "-"; next } { print $2 " (" $1 "/" n ")" }'
}
printf 'row\tpicked\tsentences\tdir\tundir\tvs EM: tokens W/L\tp(tokens)\tp(sentences)\tSmith\n'
for row in "$@"; do
	jq -r --arg row "$row" --arg picked "$(picked "$row")" --arg smith "$(smith "$row")" '
	  def pct: . * 1000 | round / 10;
	  def p: if . < 0.001 then "<0.001" else (. * 1000 | round / 1000 | tostring) end;
	  [$row, $picked, .sentences, (.excluded.directed.f1 | pct), (.excluded.undirected.f1 | pct),
	   "\(.sign_test.tokens.wins)/\(.sign_test.tokens.losses)\(if .sign_test.undirected then " undir." else "" end)", (.sign_test.tokens.p | p),
	   (.sign_test.sentences.p | p), $smith] | @tsv' "$dir/$row.score"
done
