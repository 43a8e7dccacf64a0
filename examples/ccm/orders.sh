#!/bin/sh
# Klein's DMV+CCM under each reading of its heads' order (issue 23 item 2),
# and the DMV half alone (the CCM held flat) under the same order, on the
# PTB sample ≤ 10, beside Klein's WSJ10 numbers (Klein 2005, Fig. 6.6).
#
#   released     every interleaving of a head's left and right dependents
#                is a derivation, each paying the DMV's per-side factors
#                (train-ccm --model dmvccm, grind's default)
#   right-first  the DMV's own order, right dependents first (--right-first)
#   mixture      each head picks right-first or left-first, ½ each, as its
#                first step: §6.3's DMV alone (--order mixture)
#   footnote8    before each dependent the head stops entirely or goes on
#                and picks a side (--order footnote8)
#
# Every run is train-ccm's EM to convergence (relative change of the
# log-likelihood < 1e-5), no model selection, Viterbi derivation decoded;
# DMV start km (grind's default) and klein (Klein's harmonic completion).
# Sets: en-all, the whole sample trained and scored on itself (as Klein
# reported WSJ10); en-test, trained on en-train and scored on en-test.
#
# Usage: orders.sh OUT   (OUT/en-all.jsonl, en-train, en-test made by the Makefile)
set -eu
out=$1
pct() { awk '{ if ($0 == "null" || $0 == "") print "–"; else printf "%.1f\n", 100*$0 }'; }
echo "| data | start | order | model | UP | UR | F1 | dir | undir | iterations |"
echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|"
for set in en-all en-test; do
	case $set in
	en-all) name="English all (train = test)" train=$out/en-all.jsonl test= ;;
	en-test) name="English train → test" train=$out/en-train.jsonl test="--test $out/en-test.jsonl" ;;
	esac
	for init in km klein; do
		for order in released right-first mixture footnote8; do
			for model in product alone; do
				flat=
				[ $model = alone ] && flat=--flat-ccm
				f=$out/orders.$set.$init.$order.$model
				# shellcheck disable=SC2086
				train-ccm --quiet --model dmvccm --dmv-init $init --order $order $flat --log "$f.log" $train $test -o "$f.jsonl"
				json=$(score --json "$f.jsonl")
				up=$(echo "$json" | jq -r .brackets.standard.precision | pct)
				ur=$(echo "$json" | jq -r .brackets.standard.recall | pct)
				f1=$(echo "$json" | jq -r .brackets.standard.f1 | pct)
				d=$(echo "$json" | jq -r .directed | pct)
				u=$(echo "$json" | jq -r .undirected | pct)
				label="DMV+CCM"
				[ $model = alone ] && label="DMV alone (flat CCM)"
				echo "| $name | $init | $order | $label | $up | $ur | $f1 | $d | $u | $(wc -l < "$f.log") |"
			done
		done
	done
done
echo
echo "Klein (2005) Fig. 6.6, WSJ10 (7,422 sentences, train = test): DMV+CCM 69.3 / 88.0 / 77.6, 47.5 / 64.5;"
echo "DMV 46.6 / 59.2 / 52.1, 43.2 / 62.7 (Fig. 6.3: 43.2 / 63.7); CCM 64.2 / 81.6 / 71.9."
