#!/bin/sh
# compare-models.sh A B: two model or count files of any family, record by
# record. Prints the number of records compared, the largest relative
# difference of their numbers (p, n or w; a stats record's loglik) and the
# largest absolute difference, and
# fails when the files do not hold the same records (a stats record's
# sentences and tokens must be equal too). Header records are left out:
# shards merged and one E-step carry different shard counts. Needs jq.
set -eu
jq -n -r --slurpfile a "$1" --slurpfile b "$2" '
  def key: del(.n, .p, .w, .loglik) | tojson;
  def num: .n // .p // .w // .loglik;
  def rel(x; y): if x == y then 0 else ((x - y) | fabs) / ([(x | fabs), (y | fabs)] | max) end;
  def table(rs): rs | map(select(.ev != "header") | {(key): num}) | add;
  table($a) as $x | table($b) as $y |
  if ($x | keys) != ($y | keys) then error("the files hold different records") else . end |
  [$x | keys[] as $k | [rel($x[$k]; $y[$k]), (if $x[$k] == $y[$k] then 0 else ($x[$k] - $y[$k]) | fabs end)]] |
  "\(length) \(map(.[0]) | max) \(map(.[1]) | max)"'
