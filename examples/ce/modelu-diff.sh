#!/bin/sh
# modelu-diff.sh OLD NEW [OLD NEW ...] — how far two runs of Model U's
# grid are apart: for each model in directory OLD (FEATURES-NBHD-sSIGMA2.model,
# as make modelu and heldout.mk's modelu/ write them) and its namesake in
# NEW, the largest difference of a weight, relative beyond ±1
# (|a − b| / max(1, |a|)); then, per feature set, with a prior and without
# (σ² = ∞), over every pair of directories, the models compared and the
# median and largest of those differences.
#
#   sh examples/ce/modelu-diff.sh old/modelu examples/ce/out/ptb/modelu
#   cd examples/anneal && sh ../ce/modelu-diff.sh $(for l in en zh tr; do
#     echo out/multilingual-now/$l/heldout/modelu out/multilingual-pairs/$l/heldout/modelu; done)
# Needs jq.
set -eu
[ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] || { echo "usage: modelu-diff.sh OLD NEW [OLD NEW ...]" >&2; exit 2; }
diffs=$(mktemp)
trap 'rm -f "$diffs"' EXIT
while [ $# -gt 0 ]; do
old=$1 new=$2
shift 2
for a in "$old"/*.model; do
  [ -f "$a" ] || { echo "modelu-diff.sh: no models in $old" >&2; exit 1; }
  r=$(basename "$a" .model)
  b=$new/$r.model
  [ -f "$b" ] || { echo "modelu-diff.sh: $b missing" >&2; exit 1; }
  d=$(jq -n --slurpfile x "$a" --slurpfile y "$b" '
    [$x[] | select(.w != null) | .w] as $a | [$y[] | select(.w != null) | .w] as $b
    | if ($a | length) != ($b | length) then error("the two models have other weights") else . end
    | [range(0; $a | length) | (($a[.] - $b[.]) | fabs) / ([1, ($a[.] | fabs)] | max)] | max // 0')
  case $r in *-sinf) prior=none ;; *) prior=prior ;; esac
  echo "${r%%-*} $prior $d" >>"$diffs"
done
done
sort -k1,1 -k2,2 -k3,3g "$diffs" | awk '
  { k = $1 " " $2; v[k, ++n[k]] = $3 }
  END {
    printf "%-9s %-6s %6s %10s %10s\n", "features", "prior", "models", "median", "largest"
    for (k in n) {
      m = n[k]; med = (m % 2) ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2
      split(k, f, " ")
      printf "%-9s %-6s %6d %10.2g %10.2g\n", f[1], f[2], m, med, v[k, m]
    }
  }' | { IFS= read -r h; echo "$h"; sort; }
