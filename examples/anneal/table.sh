#!/bin/sh
# Prints the multilingual recipe's table from its results.tsv: per language,
# directed attachment accuracy on dev (%, root excluded as in Smith 2006) of
# the baselines and of EM, SDA and SA picked by supervised selection (sup:
# best dev accuracy) and unsupervised selection (unsup: best dev
# log-likelihood under the plain DMV).
#
# usage: table.sh RESULTS.tsv [TRANSDUCTIVE-LANGUAGES]
set -eu
results=$1
transductive=${2:-}
awk -F '\t' -v trans=" $transductive " '
NR == 1 { next }
{
	lang = $1; key = $2 ($3 == "-" ? "" : "/" $3)
	if (!(lang in seen)) { seen[lang] = 1; order[++n] = lang; sents[lang] = $4 }
	acc[lang, key] = $5
}
END {
	split("attach-left attach-right em/accuracy em/likelihood sda/accuracy sda/likelihood sa/accuracy sa/likelihood", cols, " ")
	printf "%-9s %6s  %6s %6s  %6s %6s  %6s %6s  %6s %6s\n", "", "", "attach", "", "EM", "", "SDA", "", "SA", ""
	printf "%-9s %6s  %6s %6s  %6s %6s  %6s %6s  %6s %6s\n", "language", "dev", "left", "right", "sup", "unsup", "sup", "unsup", "sup", "unsup"
	for (i = 1; i <= n; i++) {
		l = order[i]
		name = l (index(trans, " " l " ") ? "*" : "")
		printf "%-9s %6s ", name, sents[l]
		for (c = 1; c <= 8; c++) printf " %6s%s", acc[l, cols[c]], (c % 2 == 0 ? " " : "")
		printf "\n"
	}
	print ""
	print "Directed accuracy on dev sentences of length <= 10, root excluded (%); sup = the"
	print "grid point with the best dev accuracy, unsup = the best dev log-likelihood."
	if (trans ~ /[a-z]/) print "* no train file: trained and selected on the dev sentences (transductive)."
}' "$results"
