#!/bin/sh
# Checks the cross-validation folds of ../corpora.mk (DATA=ptb-cv): in every
# fold, train, dev and test are disjoint and together the whole PTB sample
# (≤ 10); the ten test parts hold every sentence exactly once; and fold 10 is
# DATA=ptb's fixed split, byte for byte. Skips when ../shared/data is absent.
# Needs the programs in ../../bin (make build) and jq.
set -eu
cd "$(dirname "$0")"
wsj=../../../shared/data/ptb-sample/wsj
[ -d "$wsj" ] || { echo "check-folds: $wsj not found; skipped"; exit 0; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
parts() { make -s -f heldout.mk "$@" "$OUT/train.jsonl" "$OUT/dev.jsonl" "$OUT/test.jsonl" >/dev/null; }
ids() { jq -r .id "$@" | sort; }

../../bin/ptb2deps -q "$wsj"/0[01]/wsj_*.mrg | ../../bin/filterlen 10 | jq -r .id | sort > "$out/all"
: > "$out/tests"
for k in 1 2 3 4 5 6 7 8 9 10; do
	OUT=$out/fold-$k
	parts DATA=ptb-cv FOLD=$k OUT="$OUT"
	ids "$OUT/train.jsonl" "$OUT/dev.jsonl" "$OUT/test.jsonl" > "$out/parts"
	if ! cmp -s "$out/parts" "$out/all"; then
		echo "check-folds: fold $k: train, dev and test are not the sample, each sentence once" >&2
		exit 1
	fi
	ids "$OUT/test.jsonl" >> "$out/tests"
done
sort "$out/tests" > "$out/tests.sorted"
if ! cmp -s "$out/tests.sorted" "$out/all"; then
	echo "check-folds: the ten test folds are not every sentence once" >&2
	exit 1
fi
OUT=$out/ptb
parts DATA=ptb OUT="$OUT"
for p in train dev test; do
	if ! cmp -s "$out/fold-10/$p.jsonl" "$OUT/$p.jsonl"; then
		echo "check-folds: fold 10's $p part is not DATA=ptb's" >&2
		exit 1
	fi
done
echo "check-folds: ok ($(wc -l < "$out/all") sentences, 10 folds)"
