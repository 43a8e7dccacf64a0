#!/bin/sh
# Viterbi against MBR decoding (decode --mbr: the tree with the most
# expected correct attachments) of a newlang.mk run's models, on each
# language's selection half (directed, root counted): induce's pick, EM's
# pick, and the mean change over all of induce's candidates (LANG/runs)
# with how many gain and lose. The report half is not read; gold heads only
# score.
#
# usage: mbr.sh OUT MAX LANG...   (MAX: score the selection half's sentences of ≤ MAX words)
#   sh examples/induce/mbr.sh examples/induce/out/newlang-10 10 en zh tr pt ja de bg eu fr it pl es nl
#   sh examples/induce/mbr.sh examples/induce/out/newlang-15-dev40 40 eu nl fr de it pl pt es
# Needs the programs in ../../bin (or on PATH) and jq.
set -eu
out=$1
max=$2
shift 2
. "$(dirname "$0")/halves.sh"
# acc [--mbr] MODEL: the directed accuracy (a fraction) on $tmp/dev.jsonl
acc() { decode "$@" -q "$tmp/dev.jsonl" | score --json | jq -r .directed; }
both() { awk -v a="$(acc -m "$1")" -v b="$(acc --mbr -m "$1")" 'BEGIN { printf "%.1f → %.1f", 100 * a, 100 * b }'; }
printf '%-4s %14s %14s %s\n' lang induce em 'all candidates: mean change, up/down'
for l in "$@"; do
	d=$out/$l
	filterlen "$max" "$d/dev.jsonl" > "$tmp/dev.jsonl"
	all=$(for m in "$d"/runs/*.jsonl; do echo "$(acc -m "$m") $(acc --mbr -m "$m")"; done |
		awk '{ d = $2 - $1; s += d; n++; up += d > 0; down += d < 0 } END { printf "%+.2f, %d/%d of %d", 100 * s / n, up, down, n }')
	printf '%-4s %14s %14s %s\n' "$l" "$(both "$d/induce.model")" "$(both "$d/em.model")" "$all"
done
