#!/bin/sh
# Bracket baselines (LBRANCH, RBRANCH, expected RANDOM, UBOUND) and the CCM
# on the ≤10 sentences of the three constituency samples in ../shared/data:
# English (PTB sample), Spanish (cess_esp) and Chinese (sinica_treebank).
# Standard F1: micro-averaged, whole-sentence bracket counted (Klein).
# The CCM rows come from the library's tests until the CCM has its
# programs: EM from the split-uniform start, Klein's smoothing, Viterbi
# bracketing, trained and scored on the same sentences, as Klein did; then
# DMV+CCM (stages/dmvccm) on the PTB sample.
# Usage: examples/ccm/brackets.sh [SHARED_DATA]   (after make build)
set -eu
cd "$(dirname "$0")"
PATH=$PWD/../../bin:$PATH
data=${1:-$PWD/../../../shared/data}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

ptb2deps --tree "$data"/ptb-sample/wsj/*/*.mrg | filterlen 10 > "$dir/en.jsonl"
ptbstrip --format cess --quiet "$data"/cess_esp/*.tbf | filterlen 10 > "$dir/es.jsonl"
ptbstrip --format sinica "$data"/sinica_treebank/parsed | filterlen 10 > "$dir/zh.jsonl"

f1() { score --json | jq -r '.brackets | "\(.standard.f1*1000|round/10) \(.random_expected.f1*1000|round/10)"'; }
echo "| corpus ≤10 | sentences | LBRANCH | RBRANCH | RANDOM (expected) | UBOUND |"
echo "|---|---:|---:|---:|---:|---:|"
for lang in en es zh; do
	in=$dir/$lang.jsonl
	set -- $(baseline --brackets left "$in" | f1)
	left=$1 random=$2
	right=$(baseline --brackets right "$in" | f1 | cut -d' ' -f1)
	ubound=$(baseline --brackets ubound "$in" | f1 | cut -d' ' -f1)
	echo "| $lang | $(wc -l < "$in") | $left | $right | $random | $ubound |"
done
echo
cd ../..
go test -count=1 -v -run 'TestCCMOn' ./stages/ccm/ | grep -E 'CCM|standard'
go test -count=1 -v -run 'TestDMVCCMOn' ./stages/dmvccm/ | grep -E 'CCM'
