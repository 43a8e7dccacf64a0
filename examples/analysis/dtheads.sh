#!/bin/sh
# Klein's (2005) determiner-headed evaluation (§6.2, §6.3): the DMV and
# DMV+CCM scored against two gold standards of the same sentences, Collins'
# heads (nouns head their NPs) and Collins' heads with every NP that has a DT
# child headed by its leftmost DT (ptb2deps --dt-heads). Data: the PTB sample
# ≤ 10, all 555 sentences, trained and scored on the same sentences (Klein's
# WSJ10 setting); no model selection: every model is its trainer's last
# (EM to convergence). Accuracy with the root counted, as Klein reports.
# The models read tags only, so one model per system serves both standards.
#
#   examples/analysis/dtheads.sh [DIR] [SHARED]   (after make build; DIR=out/dtheads; 5 s on a busy machine)
#
# Systems:
#   dmv-km          train-em --init km (Smith's K&M start)
#   dmv-klein       train-em --init klein (Klein's harmonic start)
#   dmvccm          train-ccm --model dmvccm (released order, DMV start km)
#   dmvccm-mixture  train-ccm --model dmvccm --order mixture --dmv-init klein
#                   (the reading closest to Klein's Fig. 6.6, docs/results.md)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-out/dtheads}
shared=${2:-$here/../../../shared/data}
export PATH="$here/../../bin:$PATH"
mkdir -p "$dir"
wsj="$shared"/ptb-sample/wsj
[ -s "$dir/collins.jsonl" ] || ptb2deps --tree "$wsj"/*/*.mrg | filterlen 10 > "$dir/collins.jsonl"
[ -s "$dir/dt.jsonl" ] || ptb2deps --dt-heads --tree "$wsj"/*/*.mrg | filterlen 10 > "$dir/dt.jsonl"

# parse NAME TRAINER ARGS...: train on the sentences, then parse them under
# both standards (DIR/NAME.collins.jsonl, DIR/NAME.dt.jsonl).
parse() {
	name=$1
	shift
	[ -s "$dir/$name.dt.jsonl" ] && return 0
	case $1 in
	train-em) "$@" --quiet "$dir/collins.jsonl" -o "$dir/$name.model" ;;
	train-ccm) "$@" --quiet "$dir/collins.jsonl" --save-model "$dir/$name.model" > /dev/null ;;
	esac
	for g in collins dt; do
		decode --quiet -m "$dir/$name.model" "$dir/$g.jsonl" > "$dir/$name.$g.jsonl"
	done
}
parse dmv-km train-em --init km
parse dmv-klein train-em --init klein
parse dmvccm train-ccm --model dmvccm
parse dmvccm-mixture train-ccm --model dmvccm --order mixture --dmv-init klein

pct() { awk '{ printf "%.1f", 100*$0 }'; }
echo "| system | Collins heads: directed | undirected | DT-headed NPs: directed | undirected | bracket F1 (Klein's standard) |"
echo "|---|---:|---:|---:|---:|---:|"
for m in dmv-km dmv-klein dmvccm dmvccm-mixture; do
	score --json "$dir/$m.collins.jsonl" > "$dir/$m.collins.score.json"
	score --json "$dir/$m.dt.jsonl" > "$dir/$m.dt.score.json"
	c=$dir/$m.collins.score.json
	d=$dir/$m.dt.score.json
	printf '| %s | %s | %s | %s | %s | %s |\n' "$m" \
		"$(jq .counted.directed.accuracy "$c" | pct)" "$(jq .counted.undirected.accuracy "$c" | pct)" \
		"$(jq .counted.directed.accuracy "$d" | pct)" "$(jq .counted.undirected.accuracy "$d" | pct)" \
		"$(jq .brackets.standard.f1 "$c" | pct)"
done
