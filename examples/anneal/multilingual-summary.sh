#!/bin/sh
# One line per language from the held-out tables of multilingual.mk: test
# directed accuracy (%, root excluded) of the baselines and of EM, SDA
# (run to β = 1), SDA<1 (heldout.mk's sda-below1: the last stage below
# β = 1, the model Smith's Tables 5.1/5.3 report), SA and CE under
# supervised (sup), few-sentence (few) and unsupervised (uns) selection, and
# whether the best estimator under unsupervised selection (any of SDA, SDA<1,
# SA, CE) beats EM and both baselines.
#
# usage: multilingual-summary.sh OUT LANG...
set -eu
out=$1
shift
printf '%-4s %6s %6s' lang left right
for e in EM SDA SDA\<1 SA CE; do printf '  %-17s' "$e sup/few/uns"; done
printf '  best-uns\n'
for l in "$@"; do
	t=$out/$l/heldout/table.tsv
	name=$l
	[ -f "$(dirname "$0")/../../../shared/data/ud-nopunct/$l-ud-train-nopunct-len15.conllu" ] || name="$l*"
	awk -F '\t' -v name="$name" '
	NR > 1 { acc[$1] = $4 }
	END {
		printf "%-4s %6s %6s", name, acc["attach-left"], acc["attach-right"]
		split("em sda sda-below1 sa ce", es, " ")
		nm["sda"] = "sda"; nm["sda-below1"] = "sda<1"; nm["sa"] = "sa"; nm["ce"] = "ce"
		best = ""; bestv = -1
		for (i = 1; i <= 5; i++) {
			e = es[i]
			printf "  %5s/%5s/%5s", acc[e ".supervised"], acc[e ".few"], acc[e ".unsupervised"]
			if (e != "em" && acc[e ".unsupervised"] + 0 > bestv) { bestv = acc[e ".unsupervised"] + 0; best = nm[e] }
		}
		em = acc["em.unsupervised"] + 0
		l = acc["attach-left"] + 0; r = acc["attach-right"] + 0
		verdict = (bestv > em && bestv > l && bestv > r) ? "beats EM and both baselines" : "does not beat " \
			(bestv <= em ? "EM " : "") (bestv <= l ? "attach-left " : "") (bestv <= r ? "attach-right" : "")
		printf "  %s %.1f: %s\n", best, bestv, verdict
	}' "$t"
done
echo
echo "Test = the even-numbered sentences of each dev file (length <= 10), root excluded (%);"
echo "selection on the odd-numbered ones. * no train file: trained on the selection half."
