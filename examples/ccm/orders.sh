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
# Which side a head of dependents on both sides takes first in the Viterbi
# derivation: the side of its smallest bracket (en-all).
echo "| start | order | model | heads with dependents on both sides | left side first | verbs (VB*) | verbs left first |"
echo "|---|---|---|---:|---:|---:|---:|"
for init in km klein; do
	for order in released right-first mixture footnote8; do
		for model in product alone; do
			label="DMV+CCM"
			[ $model = alone ] && label="DMV alone (flat CCM)"
			jq -r '. as $s | ($s.pred | length) as $n | range(0; $n) as $h |
				[range(0; $n) | select($s.pred[.] == $h + 1)] as $deps |
				select(($deps | any(. < $h)) and ($deps | any(. > $h))) |
				([$s.pred_spans[] | select(.[0] <= $h and $h < .[1] and .[1] - .[0] >= 2)] | min_by(.[1] - .[0])) as $first |
				[(if ($s.tags[$h] | startswith("VB")) then 1 else 0 end), (if $first[0] < $h then 1 else 0 end)] | @tsv' \
				"$out/orders.en-all.$init.$order.$model.jsonl" |
				awk -v l="| $init | $order | $label" '{ n++; left += $2; if ($1) { v++; vl += $2 } }
					END { printf "%s | %d | %.1f%% | %d | %.1f%% |\n", l, n, 100 * left / n, v, 100 * vl / v }'
		done
	done
done
echo
# Sign tests (en-all, km start) between the readings' DMV+CCM, on tokens
# (directed, root counted) and on brackets.
echo "| DMV+CCM, km start, en-all | against | tokens won / lost (p) | brackets won / lost (p) |"
echo "|---|---|---:|---:|"
for pair in right-first:released mixture:released footnote8:released mixture:right-first footnote8:mixture; do
	a=${pair%:*} b=${pair#*:}
	score --json --against "$out/orders.en-all.km.$b.product.jsonl" "$out/orders.en-all.km.$a.product.jsonl" |
		jq -r --arg a "$a" --arg b "$b" '.sign_test as $t |
			def p(x): if x < 0.001 then "< 0.001" else (x * 1000 | round / 1000 | tostring) end;
			def wl(x): "\(x.wins) / \(x.losses) (p \(p(x.p)))";
			"| \($a) | \($b) | \(wl($t.tokens)) | \(wl($t.brackets.brackets)) |"'
done
echo
echo "Klein (2005) Fig. 6.6, WSJ10 (7,422 sentences, train = test): DMV+CCM 69.3 / 88.0 / 77.6, 47.5 / 64.5;"
echo "DMV 46.6 / 59.2 / 52.1, 43.2 / 62.7 (Fig. 6.3: 43.2 / 63.7); CCM 64.2 / 81.6 / 71.9."
