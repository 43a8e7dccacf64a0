#!/bin/sh
# Posterior sparsity on UD English v1.4 (no punctuation, XPOS tags, ≤ 10
# words): EM and σ = 10 by either rule of the dual (exact: every
# projection solved, to pr-toolkit's --dual-tol, or to --dual-gap 3e-2,
# train-em's default since 29 November, the row "default"; interleaved:
# the default before), trained on the train file from km to train-em's
# default stopping rule (relative change 1e-5), no selection, scored on
# the whole dev file ≤ 10. Each row: directed
# accuracy, root excluded / counted (%), iterations, the dual's steps and
# seconds.
#
#   sh examples/induce/sparsity-ud.sh        (about a minute on 2 idle cores)
#
# Needs the programs in ../../bin and jq; skips when ../shared/data is absent.
set -eu
cd "$(dirname "$0")"
ud=../../../shared/data/ud-nopunct
[ -d "$ud" ] || { echo "sparsity-ud: $ud not found; skipped"; exit 0; }
PATH=$(cd ../../bin && pwd):$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
conll2deps --tag xpos -q "$ud/en-ud-train-nopunct-len15.conllu" | filterlen 10 > "$tmp/train.jsonl"
conll2deps --tag xpos -q "$ud/en-ud-dev-nopunct.conllu" | filterlen 10 > "$tmp/dev.jsonl"
printf '%-22s %-13s %6s %6s %s\n' row 'dir excl/root' iters dual seconds
row() {
	name=$1
	shift
	start=$(date +%s.%N)
	train-em --init km -q --log "$tmp/log" "$@" "$tmp/train.jsonl" -o "$tmp/m.jsonl"
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	acc=$(decode -m "$tmp/m.jsonl" -q "$tmp/dev.jsonl" | score --json | jq -r '[.excluded.directed.f1, .counted.directed.accuracy] | map(. * 100) | @tsv' | awk '{ printf "%.1f / %.1f", $1, $2 }')
	printf '%-22s %-13s %6s %6s %.1f\n' "$name" "$acc" "$(wc -l < "$tmp/log")" "$(jq -s 'map(.dual_steps // 0) | add' "$tmp/log")" "$secs"
}
row em
row sparsity-10-exact --sparsity 10 --dual-rule exact
row sparsity-10-interleaved --sparsity 10 --dual-rule interleaved
row sparsity-10-default --sparsity 10
