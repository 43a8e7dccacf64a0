#!/bin/sh
# DMV+CCM against the DMV alone by start, head-choice factor and number of
# EM iterations, on the PTB sample ≤10, train = test (as Klein's §6.3).
# Usage: starts.sh OUT   (OUT/en-all.jsonl made by the Makefile)
set -eu
out=$1
in=$out/en-all.jsonl
acc() { score --json | jq -r '[.brackets.standard.f1, .directed, .undirected] | @tsv' | awk '{ printf "%.1f | %.1f | %.1f\n", 100*$1, 100*$2, 100*$3 }'; }
dmv() { # init max-iter
	train-em --quiet --init "$1" --max-iter "$2" "$in" -o "$out/starts-dmv.model"
	decode -m "$out/starts-dmv.model" "$in" 2>/dev/null | acc
}
echo "| start | iterations | DMV+CCM F1 | dir | undir | +head-choice F1 | dir | undir | DMV alone F1 | dir | undir |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for init in klein km uniform; do
	for it in 5 100; do
		a=$(train-ccm --quiet --model dmvccm --dmv-init $init --max-iter $it "$in" | acc)
		b=$(train-ccm --quiet --model dmvccm --dmv-init $init --head-choice --max-iter $it "$in" | acc)
		label=$it
		[ $it = 100 ] && label="to convergence"
		echo "| $init | $label | $a | $b | $(dmv $init $it) |"
	done
done
