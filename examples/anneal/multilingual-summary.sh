#!/bin/sh
# One line per language from the held-out tables of multilingual.mk: test
# directed accuracy (%, root excluded) of the baselines and of each estimator
# of the tables (EM; SDA run to β = 1; sda-below1, the last stage below β = 1,
# the model Smith's Tables 5.1/5.3 report; sda-map and sda-below1-map, both
# with smoothing; SA; CE with DEL1ORTRANS1 and ce-NAME with each further
# neighbourhood) under supervised, few-sentence and unsupervised selection,
# and whether the best estimator under unsupervised selection (any but EM)
# beats EM and both baselines.
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
printf '  best-uns\n'
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
		verdict = (bestv > em && bestv > l && bestv > r) ? "beats EM and both baselines" : "does not beat " \
			(bestv <= em ? "EM " : "") (bestv <= l ? "attach-left " : "") (bestv <= r ? "attach-right" : "")
		printf "  %s %.1f: %s\n", best, bestv, verdict
	}' "$out/$l/heldout/table.tsv"
done
echo
echo "Test = the even-numbered sentences of each dev file (length <= 10), root excluded (%);"
echo "selection on the odd-numbered ones; each estimator: supervised/few-sentence/unsupervised selection."
echo "* no train file: trained on the selection half."
