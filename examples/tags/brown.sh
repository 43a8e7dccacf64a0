#!/bin/sh
# brown.sh RUN... — one Markdown row per Brown run: RUN.full.json and
# RUN.simple.json (score-tags --json against the full and the simplified
# tags), RUN.log (iterations), RUN.timev (/usr/bin/time -v: wall, CPU, peak RSS).
echo "| run | iterations | states used | M-1 | 1-to-1 | VI (bits) | V-measure | M-1 | 1-to-1 | VI (bits) | V-measure | wall | CPU (user+sys) | peak RSS |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for r in "$@"; do
	it=$(tail -n 1 "$r.log" | jq -r .iter)
	wall=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$r.timev")
	cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.0f s", s}' "$r.timev")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f MB", $2 / 1024}' "$r.timev")
	used=$(jq -r .induced_tags "$r.full.json")
	full=$(jq -r '"\(.many_to_1*1000|round/10) | \(.one_to_1*1000|round/10) | \(.vi*1000|round/1000) | \(.v_measure*1000|round/10)"' "$r.full.json")
	simple=$(jq -r '"\(.many_to_1*1000|round/10) | \(.one_to_1*1000|round/10) | \(.vi*1000|round/1000) | \(.v_measure*1000|round/10)"' "$r.simple.json")
	echo "| $(basename "$r") | $it | $used | $full | $simple | $wall | $cpu | $rss |"
done
