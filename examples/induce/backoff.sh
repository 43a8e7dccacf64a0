#!/bin/sh
# Headden et al.'s learned back-off (train-em --learn-backoff) against a
# fixed interpolation (--child-backoff W) and against the DMV, on two
# corpora (docs/results.md, "Learned back-off"):
#
#   1. the PTB sample's Yamada–Matsumoto conversion ≤ 10 (555 sentences),
#      examples/induce/peers.sh's protocol: K&M start, 100 iterations
#      (--tol 0), Viterbi decoding, trained and scored on the same
#      sentences, no selection;
#   2. UD English ≤ 10 (XPOS, punctuation removed): trained on train (5,387
#      sentences), the dev set cut in halves as examples/corpora.mk cuts it
#      (odd lines: selection, even lines: test). Every row is scored on
#      both halves; among the learned back-off's six settings (what it
#      forgets × three priors) the one of highest log-likelihood on the
#      selection half is marked "selected" — never by accuracy.
#
#   sh examples/induce/backoff.sh      (under a minute of CPU)
#
# Each row: directed / undirected accuracy (%, root counted); for UD also
# the selection half's log-likelihood per token (nats). Needs the programs
# in ../../bin and jq; skips when ../shared/data is absent.
set -eu
cd "$(dirname "$0")"
data=../../../shared/data
[ -d "$data/ptb-sample-deps-ym" ] && [ -d "$data/ud-nopunct" ] || { echo "backoff: $data not found; skipped"; exit 0; }
PATH=$(cd ../../bin && pwd):$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

acc() { # model corpus → "dir / undir"
	decode -m "$1" -q "$2" | score --json | jq -r '[.counted.directed.accuracy, .counted.undirected.accuracy] | map(. * 100) | @tsv' | awk '{ printf "%.1f / %.1f", $1, $2 }'
}
ll() { # model corpus → log-likelihood per token ("-inf": some sentence impossible)
	estep -m "$1" "$2" | tail -n 1 | jq -r 'if (.loglik | type) == "number" then .loglik / .tokens * 10000 | round / 10000 else .loglik end'
}

# The rows: name, then train-em's flags.
rows() {
	echo "dmv --lambda 0"
	echo "dmv-l1 --lambda 1"
	echo "dmv-l1-learn --lambda 1 --learn-backoff"
	echo "evg-l1 --child-valence 2 --lambda 1"
	echo "evg-l1-fixed0.33 --child-valence 2 --lambda 1 --child-backoff 0.33"
	for forget in head valence; do
		for prior in 1,10 1,1 10,1; do
			echo "evg-l1-learn-$forget-$prior --child-valence 2 --lambda 1 --learn-backoff --backoff-forget $forget --backoff-prior $prior"
		done
	done
}

echo "PTB sample (YM) ≤ 10: train = test, no selection"
conll2deps --quiet "$data"/ptb-sample-deps-ym/*.dp | filterlen 10 > "$tmp/ptb.jsonl"
rows | while read -r name flags; do
	# shellcheck disable=SC2086 # flags are words
	train-em --init km --tol 0 --max-iter 100 -q $flags "$tmp/ptb.jsonl" -o "$tmp/m.jsonl"
	printf '%-34s %s\n' "$name" "$(acc "$tmp/m.jsonl" "$tmp/ptb.jsonl")"
done

echo
echo "UD English ≤ 10 (XPOS): train; dev halves (selection: odd lines, test: even lines)"
ud=$data/ud-nopunct
conll2deps --tag xpos -q "$ud/en-ud-train-nopunct-len15.conllu" | filterlen 10 > "$tmp/train.jsonl"
conll2deps --tag xpos -q "$ud/en-ud-dev-nopunct.conllu" | awk 'NR % 2 == 1' | filterlen 10 > "$tmp/sel.jsonl"
conll2deps --tag xpos -q "$ud/en-ud-dev-nopunct.conllu" | awk 'NR % 2 == 0' | filterlen 10 > "$tmp/test.jsonl"
printf '%-34s %-13s %-13s %s\n' row selection test "selection loglik/token"
rows | while read -r name flags; do
	# shellcheck disable=SC2086
	train-em --init km --tol 0 --max-iter 100 -q $flags "$tmp/train.jsonl" -o "$tmp/$name.jsonl"
	l=$(ll "$tmp/$name.jsonl" "$tmp/sel.jsonl")
	printf '%-34s %-13s %-13s %s\n' "$name" "$(acc "$tmp/$name.jsonl" "$tmp/sel.jsonl")" "$(acc "$tmp/$name.jsonl" "$tmp/test.jsonl")" "$l"
	case $name in evg-l1-learn-*) echo "$l $name" >> "$tmp/learned" ;; esac
done
echo "selected (highest selection-half log-likelihood among the learned back-off's): $(sort -g -r "$tmp/learned" | head -n 1 | cut -d' ' -f2)"
