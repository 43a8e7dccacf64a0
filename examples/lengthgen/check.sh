#!/bin/sh
# Checks that the length table's cells are score's own numbers: for one model
# (EST, default em), scores every sentence once (`score --root exclude
# --json`), sums its by_length rows over each bucket (sentences, tokens, arcs
# between words = tokens − sentences, correct = directed × arcs) and compares
# them with the bucket's own score file and with the table's cell (rounded to
# 0.1). Run after `make` (from examples/lengthgen):
#
#   sh check.sh [EST]
set -eu
export PATH="$(cd ../.. && pwd)/bin:$PATH"
est=${1:-em}
L=out/ptb/lengthgen
col=$(case $est in em) echo 4 ;; ce) echo 5 ;; sa) echo 6 ;; esac)
fail=0
for src in all test; do
	score --root exclude --json "$L/$est.$src.jsonl" | jq -c .by_length > "$L/$est.$src.by_length"
done
row=1
for b in test10:test:1:10 11-20:all:11:20 11-40:all:11:40 11-:all:11:1000 whole:all:1:1000 \
	t11-15:test:11:15 t16-20:test:16:20 t21-30:test:21:30 t31-40:test:31:40 t41-:test:41:1000 t11-:test:11:1000 twhole:test:1:1000; do
	IFS=: read -r name src lo hi <<-E
	$b
	E
	row=$((row + 1))
	got=$(jq -r --argjson lo "$lo" --argjson hi "$hi" '
	  map(select(.length >= $lo and .length <= $hi))
	  | map(. + {arcs: (.tokens - .sentences)} | . + {correct: (.directed * .arcs | round)})
	  | [(map(.sentences) | add), (map(.arcs) | add), (map(.correct) | add)] | @tsv' "$L/$est.$src.by_length")
	want=$(jq -r '[.sentences, .excluded.directed.gold, .excluded.directed.correct] | @tsv' "$L/$est.$name.score")
	cell=$(sed -n "${row}p" "$L/table.tsv" | cut -f "$col")
	mine=$(echo "$got" | awk '{ printf "%.1f", int($3 / $2 * 1000 + 0.5) / 10 }')
	if [ "$got" = "$want" ] && [ "$(echo "$cell" | awk '{ printf "%.1f", $1 }')" = "$mine" ]; then
		echo "ok   $name: $got ($cell)"
	else
		echo "FAIL $name: by_length $got ($mine), score $want, table $cell"
		fail=1
	fi
done
exit $fail
