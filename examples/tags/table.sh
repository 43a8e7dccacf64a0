#!/bin/sh
# table.sh RUN... — one Markdown row per run (RUN.json from score-tags --json,
# RUN.time the wall seconds, RUN.log the last objective).
echo "| run | iterations | M-1 | 1-to-1 | VI (bits) | H(G\|I) | H(I\|G) | V-measure | objective | seconds |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for r in "$@"; do
	it=$(tail -n 1 "$r.log" | jq -r .iter)
	obj=$(tail -n 1 "$r.log" | jq -r '.objective | floor')
	jq -r --arg run "$(basename "$r")" --arg it "$it" --arg obj "$obj" --arg sec "$(cat "$r.time")" \
		'"| \($run) | \($it) | \(.many_to_1*1000|round/10) | \(.one_to_1*1000|round/10) | \(.vi*1000|round/1000) | \(.h_gold_given_induced*1000|round/1000) | \(.h_induced_given_gold*1000|round/1000) | \(.v_measure*1000|round/10) | \($obj) | \($sec) |"' "$r.json"
done
