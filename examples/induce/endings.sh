#!/bin/sh
# Two annotation-free ways past attach-right in a head-final language whose
# tags hide what decides the head (UD v1.4 Japanese: 70% NOUN, a noun in
# の attached to the next noun, one in は, が or を to the verb), each
# scored on the selection half (≤ 10 words in newlang.mk's default;
# directed, root counted). The report half is not read; gold heads are
# read only to score and by the `best` columns, which choose nothing.
#
#   right         attach-right
#   from right    EM (λ 0 and 1) from the model of attach-right's trees
#                 (their counts, add-1): a start that needs no learning
#   tags          induce --preset medium over the tags: its pick, and the
#                 best of its 20 candidates by this very accuracy
#   endings       the same over tags refined by the word's last character
#                 (ceiling.sh's sup+suffix tags) with the ud1 rules written
#                 over them (a refined tag keeps its bare tag's rules)
#
# usage: endings.sh OUT LANG...
#   sh examples/induce/endings.sh examples/induce/out/newlang-10 ja
# Needs the programs in ../../bin (or on PATH), jq and awk.
set -eu
out=$1
shift
. "$(dirname "$0")/halves.sh"
# medium TRAIN DEV RULES: induce --preset medium's pick and its best
# candidate, scored on DEV, in $picked
medium() {
	rm -rf "$tmp/runs"
	induce --train "$1" --dev "$2" --rules "$3" --preset medium --save-dir "$tmp/runs" -q -o "$tmp/induce.jsonl" 2> /dev/null
	picked="$(accuracy "$tmp/induce.jsonl" "$2") / $(select-model --dev "$2" --root count --json -q "$tmp"/runs/*.jsonl | head -1 | pct)"
}
printf '%-4s %6s %14s %14s %14s\n' lang right 'from right' 'tags' 'endings'
for l in "$@"; do
	d=$out/$l
	right_model "$d/train.jsonl" "$tmp/right.jsonl"
	fromright=
	for lambda in 0 1; do
		train-em -m "$tmp/right.jsonl" --lambda $lambda -q "$d/train.jsonl" -o "$tmp/em.jsonl"
		fromright="$fromright${fromright:+ / }$(accuracy "$tmp/em.jsonl" "$d/dev.jsonl")"
	done
	refine_halves "$d/train.jsonl" "$d/dev.jsonl"
	refined_rules > "$tmp/rules"
	medium "$d/train.jsonl" "$d/dev.jsonl" ud1
	tags=$picked
	medium "$tmp/train.jsonl" "$tmp/dev.jsonl" "$tmp/rules"
	endings=$picked
	printf '%-4s %6s %14s %14s %14s\n' "$l" "$(right "$d/dev.jsonl")" "$fromright" "$tags" "$endings"
done
