#!/bin/sh
# Prints a grid's selection: the model supervised selection picks (best dev
# directed accuracy), the one unsupervised selection picks (best dev
# log-likelihood), and the top five by accuracy. Reads select --json output.
#
# usage: summary.sh NAME ACCURACY-RANKING.jsonl LIKELIHOOD-RANKING.jsonl
set -eu
name=$1 by_acc=$2 by_ll=$3

# The epoch behind an SA run's winner (its run ranked its own epochs).
origin() { # model-file criterion
	ranking=$(dirname "$1")/$2.jsonl # beside the run's winner, CRITERION.model.gz
	if [ "$(basename "$1")" = "$2.model.gz" ] && [ -f "$ranking" ]; then
		printf ' (%s)' "$(head -1 "$ranking" | jq -r '.model | split("/") | last | rtrimstr(".jsonl")')"
	fi
}
row() { # ranking-line
	jq -r '"dir \(.excluded.directed.f1 * 1000 | round / 10)  undir \(.excluded.undirected.f1 * 1000 | round / 10)  (root counted: \(.counted.directed.accuracy * 1000 | round / 10) / \(.counted.undirected.accuracy * 1000 | round / 10))  dev loglik \(.loglik) (p=0: \(.zero_probability))  \(.model)"'
}
echo "$name grid: $(wc -l < "$by_acc") candidates; dev accuracy is root excluded (Smith)"
best=$(head -1 "$by_acc")
echo "  supervised   (dev accuracy):       $(echo "$best" | row)$(origin "$(echo "$best" | jq -r .model)" accuracy)"
best=$(head -1 "$by_ll")
echo "  unsupervised (dev log-likelihood): $(echo "$best" | row)$(origin "$(echo "$best" | jq -r .model)" likelihood)"
echo "  top 5 by dev accuracy:"
head -5 "$by_acc" | row | sed 's/^/    /'
