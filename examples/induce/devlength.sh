#!/bin/sh
# Which unannotated dev sentences induce should choose on: for each
# language of a newlang.mk run (trained on ≤ TRAIN_MAX words), the
# candidates in LANG/runs picked by the share of rules (ud1, induce's
# criterion) on the run's own dev set (LANG/dev.jsonl: the selection half,
# ≤ TRAIN_MAX words) and on the selection half up to LONG words, each pick
# scored on the selection half at ≤ TRAIN_MAX and at ≤ LONG words
# (directed, root counted, %). The selection half's gold heads score the
# picks here and choose nothing; the report half is not read.
#
# usage: devlength.sh OUT TRAIN_MAX LONG LANG...
#   sh examples/induce/devlength.sh examples/induce/out/newlang-15-full 15 40 eu nl fr de it pl pt es
# Needs the programs in ../../bin (or on PATH), ../shared/data and jq.
set -eu
out=$1 short=$2 long=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
PATH=$here/../../bin:$PATH
ud=$here/../../../shared/data/ud-nopunct
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
acc() { decode -m "$1" -q "$2" | score --json | jq -r '.directed * 100'; }
printf '%-4s %14s %14s %14s %14s\n' lang "dev≤$short@$short" "dev≤$long@$short" "dev≤$short@$long" "dev≤$long@$long"
for l in "$@"; do
	conll2deps --tag upos -q "$ud/$l-ud-dev-nopunct.conllu" | awk 'NR % 2 == 1' | filterlen "$long" > "$tmp/long.jsonl"
	filterlen "$short" "$tmp/long.jsonl" > "$tmp/short.jsonl"
	select-model --dev "$out/$l/dev.jsonl" --by rules --rules ud1 -q --best "$tmp/a.jsonl" "$out/$l"/runs/*.jsonl > /dev/null
	select-model --dev "$tmp/long.jsonl" --by rules --rules ud1 -q --best "$tmp/b.jsonl" "$out/$l"/runs/*.jsonl > /dev/null
	echo "$l $(acc "$tmp/a.jsonl" "$tmp/short.jsonl") $(acc "$tmp/b.jsonl" "$tmp/short.jsonl") $(acc "$tmp/a.jsonl" "$tmp/long.jsonl") $(acc "$tmp/b.jsonl" "$tmp/long.jsonl")"
done | awk '{ printf "%-4s %14.1f %14.1f %14.1f %14.1f\n", $1, $2, $3, $4, $5; for (i = 2; i <= 5; i++) s[i] += $i; n++ }
END { printf "%-4s %14.1f %14.1f %14.1f %14.1f\n", "mean", s[2] / n, s[3] / n, s[4] / n, s[5] / n }'
