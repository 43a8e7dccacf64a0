#!/bin/sh
# compare-models.sh A B: two model or count files of any family, record by
# record. Prints the number of records compared, the largest relative
# difference of their numbers (p, n or w; a stats record's loglik), the
# largest absolute difference, and the largest difference relative to the
# numbers' magnitude where it is above 1 and absolute below it
# (|a − b| / max(1, |a|, |b|), for weights near 0 and far from it), and
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
  def abs(x; y): if x == y then 0 else (x - y) | fabs end;
  [$x | keys[] as $k | [rel($x[$k]; $y[$k]), abs($x[$k]; $y[$k]), abs($x[$k]; $y[$k]) / ([1, ($x[$k] | fabs), ($y[$k] | fabs)] | max)]] |
  "\(length) \(map(.[0]) | max) \(map(.[1]) | max) \(map(.[2]) | max)"'
