#!/bin/sh
# loop.sh checked against pipelines composed by hand, byte for byte, on the
# treebank grind ships (examples/treebank):
#
# 1. its first iteration equals the gold counts of `estep --gold` (no model:
#    "model":"none"), their header re-stamped with the model's hash by jq,
#    added by sumcounts to `estep -m M` over the unlabelled sentences, then
#    mstep — so `estep --gold -m M` adds nothing but the hash;
# 2. `estep --gold -m M L | mstep --lambda 1`, M over L's own tags, equals
#    the supervised `estep --gold L | mstep --lambda 1` (with no unlabelled
#    sentence semisupervised EM's M-step is the supervised one);
# 3. ten iterations of loop.sh equal ten hand-written iterations of
#    `{ estep --gold -m M L; estep -m M U; } | sumcounts | mstep`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PATH=$here/../../bin:$PATH
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
tb=$here/../treebank
ptb2deps "$tb"/grind_000[1-2].mrg | filterlen 10 > "$dir/L.jsonl"
ptb2deps "$tb"/grind_000[3-5].mrg | filterlen 10 | jq -c 'del(.heads)' > "$dir/U.jsonl"
dmv-init --init km "$dir/U.jsonl" > "$dir/km.model"

# 1
h=$(estep -m "$dir/km.model" "$dir/U.jsonl" | head -n 1 | jq -r .model)
{
	estep --gold "$dir/L.jsonl" | jq -c --arg h "$h" 'if .ev == "header" then .model = $h else . end'
	estep -m "$dir/km.model" "$dir/U.jsonl"
} | sumcounts | mstep > "$dir/hand1.model"
sh "$here/loop.sh" "$dir/L.jsonl" "$dir/U.jsonl" "$dir/km.model" 0 1 > "$dir/loop1.model" 2> /dev/null
cmp "$dir/hand1.model" "$dir/loop1.model"
echo "ok: first iteration = estep --gold (re-stamped) + estep -m, sumcounts, mstep"

# 2
dmv-init --init km "$dir/L.jsonl" > "$dir/kmL.model"
estep --gold -m "$dir/kmL.model" "$dir/L.jsonl" | mstep --lambda 1 > "$dir/a.model"
estep --gold "$dir/L.jsonl" | mstep --lambda 1 > "$dir/b.model"
cmp "$dir/a.model" "$dir/b.model"
echo "ok: estep --gold -m M = estep --gold (the supervised model)"

# 3
cp "$dir/km.model" "$dir/m.model"
for _ in 1 2 3 4 5 6 7 8 9 10; do
	{
		estep --gold -m "$dir/m.model" --quiet "$dir/L.jsonl"
		estep -m "$dir/m.model" "$dir/U.jsonl"
	} | sumcounts | mstep -o "$dir/m.model"
done
sh "$here/loop.sh" "$dir/L.jsonl" "$dir/U.jsonl" "$dir/km.model" 0 10 0 > "$dir/loop10.model" 2> /dev/null
cmp "$dir/m.model" "$dir/loop10.model"
echo "ok: ten iterations of loop.sh = ten hand-written ones"
