#!/bin/sh
# Prints the held-out table of heldout.mk from its score files: per
# estimator and selection, the model picked, directed and undirected
# accuracy on the test part (%, root excluded, as Smith reports), the sign
# test against EM picked the same way (token wins/losses and p; sentence
# p), and Smith's (2006) WSJ10 number for the same estimator and selection.
#
# usage: heldout-table.sh DIR ROW...
set -eu
dir=$1
shift
# Smith (2006), WSJ10 test, directed, root excluded: Tables 3.2 (EM), 4.2
# (CE, DEL1ORTRANS1), 5.3 (SDA), 6.2 (SA on δ); supervised selection; for EM
# unsupervised selection picked the same model.
smith() {
	case $1 in
	em.supervised | em.unsupervised) echo 41.6 ;;
	sda.supervised) echo 46.7 ;;
	sa.supervised) echo 66.7 ;;
	ce.supervised) echo 57.6 ;;
	*) echo - ;;
	esac
}
# The model picked: the first line of the ranking; an SA run's pick names
# its epoch in the run's own ranking.
picked() {
	[ -f "$dir/$1.jsonl" ] || { echo -; return; }
	m=$(head -1 "$dir/$1.jsonl" | jq -r .model)
	sel=${1#*.}
	if [ "$(basename "$m")" = "$sel.model" ]; then
		run=$(dirname "$m")
		printf '%s/%s' "$(basename "$run")" "$(head -1 "$run/$sel.jsonl" | jq -r '.model | split("/") | last | rtrimstr(".jsonl")')"
	else
		basename "$m" .model
	fi
}
printf 'row\tpicked\tsentences\tdir\tundir\tvs EM: tokens W/L\tp(tokens)\tp(sentences)\tSmith\n'
for row in "$@"; do
	jq -r --arg row "$row" --arg picked "$(picked "$row")" --arg smith "$(smith "$row")" '
	  def pct: . * 1000 | round / 10;
	  def p: if . < 0.001 then "<0.001" else (. * 1000 | round / 1000 | tostring) end;
	  [$row, $picked, .sentences, (.excluded.directed.f1 | pct), (.excluded.undirected.f1 | pct),
	   "\(.sign_test.tokens.wins)/\(.sign_test.tokens.losses)", (.sign_test.tokens.p | p),
	   (.sign_test.sentences.p | p), $smith] | @tsv' "$dir/$row.score"
done
