#!/bin/sh
# How far the DMV over a language's tags can go at all: for each language
# of a newlang.mk run, the selection half's directed accuracy (%, root
# counted) of
#
#   right      attach-right
#   sup        the supervised DMV: the MLE (add-λ 1) of the training
#              file's gold trees (LANG/train.jsonl), Viterbi-decoded
#   sup+suffix the same over tags refined by the word's last character
#              (a final 。 dropped): TAG_c where the pair is seen at least
#              100 times in training, else TAG — what a word's ending
#              (a case particle, an inflection) adds to its tag
#   best       the best of induce's candidates (LANG/runs), picked by this
#              very accuracy
#   induce     induce's own pick (the share of rules)
#
# sup and best read gold trees: they bound what an estimator or a
# selection could reach, and choose nothing. The report half is not
# touched. Where the language has no train file (de, bg, nl: newlang.mk
# trains on the selection half), sup is scored on sentences it was trained
# on (marked *).
#
# usage: ceiling.sh OUT LANG...
#   sh examples/induce/ceiling.sh examples/induce/out/newlang-10 en zh tr pt ja de bg eu fr it pl es nl
# Needs the programs in ../../bin (or on PATH) and jq.
set -eu
out=$1
shift
. "$(dirname "$0")/halves.sh"
supervised() { # supervised TRAIN DEV: the supervised DMV's accuracy on DEV
	supervised_model "$1" "$tmp/sup.jsonl"
	accuracy "$tmp/sup.jsonl" "$2"
}
printf '%-4s %6s %6s %10s %6s %6s\n' lang right sup sup+suffix best induce
for l in "$@"; do
	d=$out/$l
	case $(head -1 "$d/train.jsonl" | jq -r .id) in # trained on the dev file's selection half?
	*-dev-*) mark='*' ;;
	*) mark='' ;;
	esac
	sup=$(supervised "$d/train.jsonl" "$d/dev.jsonl")
	refine_halves "$d/train.jsonl" "$d/dev.jsonl"
	suffix=$(supervised "$tmp/train.jsonl" "$tmp/dev.jsonl")
	best=$(select-model --dev "$d/dev.jsonl" --root count --json -q "$d"/runs/*.jsonl | head -1 | pct)
	printf '%-4s %6s %6s %10s %6s %6s\n' "$l" "$(right "$d/dev.jsonl")" "$sup$mark" "$suffix$mark" "$best" "$(accuracy "$d/induce.model" "$d/dev.jsonl")"
done
