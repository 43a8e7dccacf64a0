#!/bin/sh
# Checks that CE composed from programs equals train-ce, on the treebank grind
# ships: for weights w, Σ log Z(x) from `estep -m w` over the sentences minus
# Σ log Z(N(x)) from `nbhd | estep -m w` over their lattices is the objective
# train-ce reports at w (its log's first line), to 1e-9 relative, for each
# neighbourhood. Needs the programs in ../../bin (make build) and jq.
set -eu
cd "$(dirname "$0")"
PATH=$PWD/../../bin:$PATH
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

ptb2deps ../treebank/*.mrg | filterlen 10 > "$dir/corpus.jsonl"
for kind in del1ortrans1 trans1 dynasearch length; do
  # Some log-linear weights: two L-BFGS steps from the km start.
  train-ce --nbhd "$kind" --init km --max-iter 2 --quiet "$dir/corpus.jsonl" -o "$dir/w.jsonl"
  train-ce --nbhd "$kind" -m "$dir/w.jsonl" --max-iter 1 --quiet --log "$dir/log" "$dir/corpus.jsonl" -o /dev/null
  inproc=$(head -n 1 "$dir/log" | jq .objective)
  sent=$(estep -m "$dir/w.jsonl" "$dir/corpus.jsonl" | tail -n 1 | jq .loglik)
  tagset=
  [ "$kind" = length ] && tagset="-m $dir/w.jsonl" # length spells strings over the model's tags
  nbhd --kind "$kind" $tagset "$dir/corpus.jsonl" > "$dir/lattices.jsonl"
  lat=$(estep -m "$dir/w.jsonl" "$dir/lattices.jsonl" | tail -n 1 | jq .loglik)
  rel=$(jq -n --argjson a "$inproc" --argjson s "$sent" --argjson l "$lat" '(($s - $l) - $a | fabs) / ($a | fabs)')
  echo "$kind: train-ce objective $inproc, estep $sent − estep over nbhd $lat: relative difference $rel"
  jq -n --argjson r "$rel" 'if $r <= 1e-9 then empty else error("differ") end'
done
