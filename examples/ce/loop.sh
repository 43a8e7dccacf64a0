#!/bin/sh
# Contrastive estimation as a shell loop: the two E-steps of each evaluation
# (estep over the sentences, and over their neighbourhoods from nbhd) and
# ce-step between them, which takes L-BFGS's step and keeps its state. It
# gives train-ce's model, to summation order (check.sh: 1e-9), e.g.
#   loop.sh corpus.jsonl del1ortrans1 --init km --max-iter 10 --tol 0
# equals
#   train-ce --nbhd del1ortrans1 --init km --max-iter 10 --tol 0 corpus.jsonl
# Model L's δ (--delta0, annealed with --delta-final and --delta-step) is
# read from the state before each evaluation and given to both E-steps.
# With --states K it is the log-linear HMM of train-hmm --estimator ce over
# the words (nbhd --words): loop.sh corpus.jsonl trans1 --states 17
# --max-iter 10 equals train-hmm --estimator ce --states 17 --nbhd trans1
# --max-iter 10 --save-model FILE. With --family modelu it is Smith's Model U
# (ce-step --start gets --nbhd NBHD, which the model's header names):
# loop.sh corpus.jsonl trans1 --family modelu --spelling --max-iter 10
# equals train-ce --family modelu --nbhd trans1 --spelling --max-iter 10
# (its spelling features read the words: nbhd --spelling's lattices of
# tagged words).
# With CE_LOG set, ce-step appends each accepted iteration there, as
# train-ce --log writes it. Needs the programs in ../../bin and jq.
#
# usage: loop.sh CORPUS NBHD [ce-step --start's options] > model.jsonl
set -eu
corpus=$1
kind=$2
shift 2
case " $* " in
*" --family modelu "* | *" --family u "*) set -- --nbhd "$kind" "$@" ;;
esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

ce-step --start "$@" --quiet --state "$dir/state" ${CE_LOG:+--log "$CE_LOG"} -o "$dir/w.jsonl" "$corpus"
# The HMM's neighbourhoods are of words, the DMV's of tags, Model U's of
# tags or, with spelling, of tagged words.
words=
[ "$(jq -r .family "$dir/state")" = hmm ] && words=--words
[ "$(jq -r '.family == "modelu" and .spelling' "$dir/state")" = true ] && words=--spelling
delta=--delta # Model U's E-step has no δ
[ "$(jq -r .family "$dir/state")" = modelu ] && delta=
# length spells the strings of every length over the model's tags (or
# words); the others need only the sentences. The lattices are made once.
if [ "$kind" = length ]; then
	nbhd $words --kind length -m "$dir/w.jsonl" "$corpus" > "$dir/lattices.jsonl"
else
	nbhd $words --kind "$kind" "$corpus" > "$dir/lattices.jsonl"
fi
while [ "$(jq -r .status "$dir/state")" = evaluate ]; do
	d=${delta:+$delta=$(jq -r '.delta // 0' "$dir/state")} # the HMM's is 0
	estep --quiet $d -m "$dir/w.jsonl" "$corpus" > "$dir/sentences.counts"
	estep --quiet $d -m "$dir/w.jsonl" "$dir/lattices.jsonl" > "$dir/lattices.counts"
	ce-step --quiet --state "$dir/state" ${CE_LOG:+--log "$CE_LOG"} -o "$dir/w.jsonl" \
		"$dir/sentences.counts" "$dir/lattices.counts"
done
cat "$dir/w.jsonl"
