#!/bin/sh
# Runs every ```sh block of docs/tutorial.md, in order, as one script from
# the repository's root (CI), and checks that the files it promises exist.
# Skips when ../shared/data is absent. Leaves nothing behind (tut/).
set -eu
cd "$(dirname "$0")/.."
if [ ! -d ../shared/data/ptb-sample ] || [ ! -d ../shared/data/ud-nopunct ]; then
	echo "docs/check-tutorial.sh: ../shared/data not found; skipping"
	exit 0
fi
script=$(mktemp)
trap 'rm -rf "$script" tut' EXIT
rm -rf tut
awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on' docs/tutorial.md > "$script"
[ -s "$script" ] || { echo "docs/check-tutorial.sh: no sh block in docs/tutorial.md" >&2; exit 1; }
sh -eu "$script" > tut.out 2>&1 || { cat tut.out >&2; rm -f tut.out; echo "docs/check-tutorial.sh: the tutorial failed" >&2; exit 1; }
for f in tut/model.jsonl tut/run/run.json tut/curve.svg tut/report.html tut/tr-model.jsonl tut/tr-words/tagger.jsonl tut/tr-words/model.jsonl tut/tr-words/report.txt; do
	[ -s "$f" ] || { cat tut.out >&2; rm -f tut.out; echo "docs/check-tutorial.sh: $f missing" >&2; exit 1; }
done
grep -q '^directed' tut.out || { cat tut.out >&2; rm -f tut.out; echo "docs/check-tutorial.sh: no score printed" >&2; exit 1; }
rm -f tut.out
echo "docs/tutorial.md: every command ran ($(awk 'NF && !/^#/' "$script" | wc -l) lines)"
