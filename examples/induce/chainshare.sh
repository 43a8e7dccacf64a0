#!/bin/sh
# How much of the rules a chain already meets: for each language of a
# newlang.mk run, the share (%) of ud1's rules that attach-right's and
# attach-left's parses instantiate, on the selection half's sentences of
# ≤ 10 words (its dev.jsonl, what induce compares with --chain-limit) and
# of ≤ 40 words (the dev file's odd-numbered sentences), and on the
# training file; then the share in the dev parses of induce's pick.
# No model is needed for the chains, no gold head is read, and the report
# half is not read.
#
# usage: chainshare.sh OUT LANG...
#   sh examples/induce/chainshare.sh examples/induce/out/newlang-10 en zh tr pt ja de bg eu fr it pl es nl
# Needs the programs in ../../bin (or on PATH), jq, awk and
# ../shared/data/ud-nopunct beside the repository (UD=DIR for another).
set -eu
out=$1
shift
ud=${UD:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/data/ud-nopunct}
. "$(dirname "$0")/halves.sh"
printf '%-4s | %-21s | %-21s | %-9s | %s\n' '' 'attach-right' 'attach-left' '' 'induce'
printf '%-4s | %6s %6s %7s | %6s %6s %7s | %9s | %6s\n' lang dev10 dev40 train dev10 dev40 train switched dev10
for l in "$@"; do
	d=$out/$l
	conll2deps --tag upos -q "$ud/$l-ud-dev-nopunct.conllu" | awk 'NR % 2 == 1' | filterlen 40 > "$tmp/dev40.jsonl"
	printf '%-4s |' "$l"
	for a in right left; do
		printf ' %6s %6s %7s |' "$(chain_share $a "$d/dev.jsonl")" "$(chain_share $a "$tmp/dev40.jsonl")" "$(chain_share $a "$d/train.jsonl")"
	done
	switched=no
	grep -q "cannot tell a chain from a grammar" "$d/induce.report" && switched=yes
	printf ' %9s | %6s\n' "$switched" "$(rule_share "$d/dev.jsonl" ud1 "$d/induce.model")"
done
