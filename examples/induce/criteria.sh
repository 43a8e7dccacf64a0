#!/bin/sh
# The unsupervised criteria side by side on induce's candidates: for each
# language of a newlang.mk run, the candidates induce trained (LANG/runs)
# ranked on the selection half (LANG/dev.jsonl) by each criterion of
# select-model, and the selection half's directed accuracy (%, root
# counted) of each criterion's pick. Only the selection half is read: its
# gold heads score the picks here (as induce-sup's ranking does) and
# choose nothing; the report half is not touched.
#
#   rules      the share of universal rules (ud1) in the dev parses (induce's)
#   likelihood dev log-likelihood
#   agreement  agreement of the dev parses with the other candidates'
#   pr0.8      the PR objective of the rules at τ = 0.8 (Naseem et al.'s τ)
#   pr0.9      the same at τ = 0.9
#   accuracy   the selection half's own accuracy: the best pick there is
#
# usage: criteria.sh OUT LANG...
#   make -C examples/induce -f newlang.mk -j2 && sh examples/induce/criteria.sh examples/induce/out/newlang-10 en zh ...
# Needs the programs in ../../bin (or on PATH) and jq.
set -eu
out=$1
shift
PATH=$(cd "$(dirname "$0")/../../bin" 2>/dev/null && pwd):$PATH
pick() { # pick LANG ARGS...: the directed accuracy of the first model ranked by select-model ARGS
	l=$1
	shift
	rows=$(select-model --dev "$out/$l/dev.jsonl" --root count --json -q "$@" "$out/$l"/runs/*.jsonl) || exit 1
	printf '%.1f' "$(printf '%s\n' "$rows" | jq -rs '.[0].directed * 100')"
}
table=$(mktemp)
trap 'rm -f "$table"' EXIT
for l in "$@"; do
	rules=$(pick "$l" --by rules --rules ud1)
	likelihood=$(pick "$l" --by likelihood)
	agreement=$(pick "$l" --by agreement)
	pr8=$(pick "$l" --by pr --rules ud1 --rule-share 0.8)
	pr9=$(pick "$l" --by pr --rules ud1 --rule-share 0.9)
	accuracy=$(pick "$l" --by accuracy)
	echo "$l $rules $likelihood $agreement $pr8 $pr9 $accuracy" >> "$table"
done
awk 'BEGIN { printf "%-4s %6s %10s %9s %6s %6s %8s\n", "lang", "rules", "likelihood", "agreement", "pr0.8", "pr0.9", "accuracy" }
{ printf "%-4s %6s %10s %9s %6s %6s %8s\n", $1, $2, $3, $4, $5, $6, $7; for (i = 2; i <= NF; i++) s[i] += $i; n++ }
END { printf "%-4s %6.1f %10.1f %9.1f %6.1f %6.1f %8.1f\n", "mean", s[2] / n, s[3] / n, s[4] / n, s[5] / n, s[6] / n, s[7] / n }' "$table"
