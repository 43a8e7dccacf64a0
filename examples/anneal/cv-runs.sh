#!/bin/sh
# Cross-validated accuracy of every run of one grid without selection: each
# setting (one file name in every fold's GRID directory) decodes its own
# fold's test part, the ten folds concatenated and scored together
# (directed, root excluded), then max / mean / min per initializer. Run
# after heldout.mk DATA=ptb-cv FOLD=all. sda and sda-below1 are the runs
# without smoothing; sda-map and sda-below1-map add those with λ > 0.
#
# usage: cv-runs.sh GRID   (em, sda, sda-below1, sda-map, sda-below1-map; from examples/anneal)
set -eu
grid=${1%-map}
PATH=$(cd "$(dirname "$0")/../../bin" && pwd):$PATH
cv=out/ptb-cv
folds=$(ls -d $cv/fold-* | sed 's,.*fold-,,' | sort -n)
for m in $cv/fold-1/heldout/"$grid"/*.model; do
	name=$(basename "$m" .model)
	case $1 in sda | sda-below1) case $name in *-l[0-9]*) continue ;; esac ;; esac
	for k in $folds; do decode -m $cv/fold-$k/heldout/"$grid"/"$name".model -q $cv/fold-$k/test.jsonl; done |
		score --root exclude --json | jq -r --arg n "$name" '"\($n)\t\(.excluded.directed.f1 * 1000 | round / 10)"'
done | tee /dev/stderr | awk -F '\t' '{ split($1, a, "-"); i = a[1]; n[i]++; s[i] += $2
	if (!(i in mx) || $2 > mx[i]) mx[i] = $2; if (!(i in mn) || $2 < mn[i]) mn[i] = $2 }
	END { for (i in n) printf "%s: %d runs, max %.1f mean %.1f min %.1f\n", i, n[i], mx[i], s[i] / n[i], mn[i] }'
