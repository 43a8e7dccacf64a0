#!/bin/sh
# labelled.sh — Merialdo's (1994) and Smith & Eisner's (2004, §4.3)
# labelled initialisation on the PTB sample: the first N sentences are
# labelled (their gold tags make a supervised HMM: estep --gold | mstep),
# the rest are unlabelled text that EM then trains that HMM on, with the
# full tag dictionary of the unlabelled text (train-hmm --dict 1 -m). Tag
# accuracy on the unlabelled text before EM and after 1, 2, … iterations,
# next to EM from the uniform start with the same dictionary.
#
#   sh examples/tags/labelled.sh            N = 100 and 500, 50 EM iterations, bitag
#   NS="100 500 1000" ITER=100 TRIGRAM=1 sh examples/tags/labelled.sh
#
# Data: ptb2deps --keep-punct over the PTB sample (3,914 sentences, 94,084
# tokens, 45 tags), in file order (wsj_0001 …). Split: the first N
# sentences labelled, sentences N+1 … 3,914 unlabelled; no other
# selection. Scored (score-tags accuracy: the states are the gold tags) on
# every token of the unlabelled sentences — transductive, as the tag
# dictionary section of docs/results.md. The supervised model is add-LAMBDA
# (default 1) over the labelled counts; EM's M-steps add nothing (Merialdo's
# maximum likelihood). N must leave every tag of the labelled sentences
# in the unlabelled ones (N = 1000 does not: sentence 997 has the only
# SYM outside the rest, and estep --gold -m refuses it). The states of the supervised HMM are the tag
# dictionary's (the unlabelled text's 45 tags, from the uniform run's
# model: estep --gold -m), so that tags the labelled sentences never show
# are states too. Needs the programs in bin/ (make build) and jq; writes
# to examples/tags/out/labelled. Prints the Markdown table of results.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PATH=$here/../../bin:$PATH
SHARED=${SHARED:-$here/../../../shared/data}
NS=${NS:-100 500}
ITER=${ITER:-50}
LAMBDA=${LAMBDA:-1}
AT=${AT:-0 1 2 5 10 20} # EM iterations done: 0 is the start (under the dictionary)
order=
kind=bitag
if [ "${TRIGRAM:-}" = 1 ]; then order=--trigram kind=trigram; fi
out=$here/out/labelled/$kind-l$LAMBDA
mkdir -p "$out"
if [ ! -d "$SHARED/ptb-sample" ]; then
	echo "labelled.sh: $SHARED/ptb-sample not found; skipping" >&2
	exit 0
fi
ptb=$here/out/ptb.jsonl
[ -s "$ptb" ] || ptb2deps --keep-punct "$SHARED"/ptb-sample/wsj/*/*.mrg -o "$ptb"

acc() { score-tags --json "$1" | jq -r '.accuracy*10000|round/100'; }

# run DIR START... — EM with the dictionary from START (none: uniform),
# saving every model an iteration ran on (iter-0001.jsonl is the start,
# iter-000(k+1).jsonl the model after k iterations); each listed one
# tags the unlabelled text and is scored; the last is train-hmm's own
# output, after ITER iterations.
run() {
	d=$1; shift
	mkdir -p "$d"
	train-hmm $order --dict 1 --max-iter "$ITER" -q "$@" --save-every 1 --save-dir "$d" \
		--save-model "$d/final.jsonl" --log "$d/log.jsonl" "$rest" -o "$d/tagged.jsonl"
	for i in $AT; do
		[ "$i" -lt "$ITER" ] || continue
		tag -q -m "$d/$(printf iter-%04d.jsonl "$((i + 1))")" "$rest" -o "$d/tagged-$i.jsonl"
		echo "$i $(acc "$d/tagged-$i.jsonl")"
	done > "$d/acc.txt"
}

row() { # row LABEL BEFORE DIR
	printf '| %s | %s |' "$1" "$2"
	while read -r _ a; do printf ' %s |' "$a"; done < "$3/acc.txt"
	printf ' %s | %s |\n' "$(acc "$3/tagged.jsonl")" "$(tail -n 1 "$3/log.jsonl" | jq -r .iter)"
}

header=$(for i in $AT; do [ "$i" -lt "$ITER" ] && printf ' %s |' "$i"; done)
rule=$(for i in $AT; do [ "$i" -lt "$ITER" ] && printf -- '---:|'; done)
echo "| start ($kind; tag accuracy % on the unlabelled text after k EM iterations with --dict 1) | supervised model alone (tag -m, no dictionary) |$header $ITER | iterations run |"
echo "|---|---:|$rule---:|---:|"
for n in $NS; do
	lab=$out/n$n/labelled.jsonl rest=$out/n$n/unlabelled.jsonl
	mkdir -p "$out/n$n"
	head -n "$n" "$ptb" > "$lab"
	tail -n +"$((n + 1))" "$ptb" > "$rest"
	run "$out/n$n/uniform"
	estep --gold -m "$out/n$n/uniform/final.jsonl" "$lab" | mstep --lambda "$LAMBDA" -o "$out/n$n/init.jsonl"
	tag -q -m "$out/n$n/init.jsonl" "$rest" -o "$out/n$n/init-tagged.jsonl"
	run "$out/n$n/labelled" -m "$out/n$n/init.jsonl"
	row "uniform (noise 1, seed 1), $((3914 - n)) unlabelled sentences" — "$out/n$n/uniform"
	row "supervised on the first $n sentences (add-$LAMBDA)" "$(acc "$out/n$n/init-tagged.jsonl")" "$out/n$n/labelled"
	# The ceiling: the same supervised estimate from the unlabelled text's own gold tags.
	estep --gold -m "$out/n$n/uniform/final.jsonl" "$rest" | mstep --lambda "$LAMBDA" -o "$out/n$n/oracle.jsonl"
	tag -q -m "$out/n$n/oracle.jsonl" "$rest" -o "$out/n$n/oracle-tagged.jsonl"
	printf '| supervised on the %s unlabelled sentences themselves (add-%s; oracle) | %s |%s — | — |\n' \
		"$((3914 - n))" "$LAMBDA" "$(acc "$out/n$n/oracle-tagged.jsonl")" "$(for i in $AT; do [ "$i" -lt "$ITER" ] && printf ' — |'; done)"
done
