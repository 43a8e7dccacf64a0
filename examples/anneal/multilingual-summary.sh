#!/bin/sh
# One line per language from the held-out tables of multilingual.mk: test
# directed accuracy (%, root excluded) of the baselines and of each estimator
# of the tables (EM; SDA run to β = 1; sda-below1, the last stage below β = 1,
# the model Smith's Tables 5.1/5.3 report; sda-map and sda-below1-map, both
# with smoothing; SA; CE with DEL1ORTRANS1 and ce-NAME with each further
# neighbourhood; em-rules, em-sparsity, em-vb, em-evg, em-depth) under
# supervised, few-sentence and unsupervised selection; induce's own choice,
# and whether it beats EM and both baselines; and the best estimator under unsupervised selection (any
# but EM) — a choice among estimators made with the report half's gold trees,
# so not a result without annotation.
#
# usage: multilingual-summary.sh OUT LANG...
set -eu
out=$1
shift
# The estimators, in the order of the first table (em0, EM's λ = 0 runs, is
# left out: it is not a candidate and EM is the reference).
ests=$(awk -F '\t' 'NR > 1 && $1 ~ /[.]supervised$/ { sub(/[.].*/, "", $1); if ($1 != "em0") printf "%s ", $1 }' "$out/$1/heldout/table.tsv")
printf '%-4s %6s %6s' lang left right
for e in $ests; do printf "  %-17s" "$e"; done
printf '  induce  best-uns (chosen with gold trees)\n'
for l in "$@"; do
	name=$l
	[ -f "$(dirname "$0")/../../../shared/data/ud-nopunct/$l-ud-train-nopunct-len15.conllu" ] || name="$l*"
	awk -F '\t' -v name="$name" -v ests="$ests" '
	NR > 1 { acc[$1] = $4 }
	END {
		printf "%-4s %6s %6s", name, acc["attach-left"], acc["attach-right"]
		n = split(ests, es, " ")
		best = ""; bestv = -1
		for (i = 1; i <= n; i++) {
			e = es[i]
			printf "  %5s/%5s/%5s", acc[e ".supervised"], acc[e ".few"], acc[e ".unsupervised"]
			if (e != "em" && acc[e ".unsupervised"] + 0 > bestv) { bestv = acc[e ".unsupervised"] + 0; best = e }
		}
		em = acc["em.unsupervised"] + 0
		l = acc["attach-left"] + 0; r = acc["attach-right"] + 0
		ind = acc["induce.unsupervised"]
		if (ind == "") printf "  %6s", "-"
		else printf "  %6s %s", ind, (ind + 0 > em && ind + 0 > l && ind + 0 > r) ? "(beats EM and both)" : "(does not)"
		verdict = (bestv > em && bestv > l && bestv > r) ? "beats EM and both baselines" : "does not beat " \
			(bestv <= em ? "EM " : "") (bestv <= l ? "attach-left " : "") (bestv <= r ? "attach-right" : "")
		printf "  %s %.1f: %s\n", best, bestv, verdict
	}' "$out/$l/heldout/table.tsv"
done
echo
echo "Test = the even-numbered sentences of each dev file (length <= 10), root excluded (%);"
echo "selection on the odd-numbered ones; each estimator: supervised/few-sentence/unsupervised selection."
echo "induce: its own choice, without annotation (examples/induce/newlang.mk has its sign tests)."
echo "best-uns: the estimator whose unsupervised pick scores best on the report half: a choice made with gold trees."
echo "* no train file: trained on the selection half."
