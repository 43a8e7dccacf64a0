#!/bin/sh
# Why the DMV's likelihood keeps a head-final language at the chain: for
# each language of a newlang.mk run, EM (λ 0, train-em's stopping) from
# three starts — km, the model of attach-right's trees (right) and the
# supervised model (sup: the MLE, add-1, of the training file's gold
# trees, a reference that reads them) — over the bare tags and over
# ceiling.sh's tags refined by the word's ending, each as accuracy/bits
# (the selection half's directed accuracy, %, root counted, Viterbi; the
# training file's cross-entropy in bits a token at the last iteration:
# lower is likelier);
# then three annotation-free pushes away from the chain over the refined
# tags, from km: Model L with δ = +0.2 (longer edges favoured, in training
# only), posterior sparsity σ = 10 (the interleaved rule) and CE (DEL1ORTRANS1, σ² = 1).
#
# The report half is not read; the gold heads score, and make the `sup`
# start, which chooses nothing.
#
# usage: chains.sh OUT LANG...
#   sh examples/induce/chains.sh examples/induce/out/newlang-10 ja
# Needs the programs in ../../bin (or on PATH), jq and awk.
set -eu
out=$1
shift
. "$(dirname "$0")/halves.sh"
# starts TRAIN DEV: accuracy/bits of EM from km, right and sup
starts() {
	right_model "$1" "$tmp/right.jsonl"
	supervised_model "$1" "$tmp/sup.jsonl"
	for start in "--init km" "-m $tmp/right.jsonl" "-m $tmp/sup.jsonl"; do
		# shellcheck disable=SC2086 # the start is two words
		train-em $start --lambda 0 --log "$tmp/log" -q "$1" -o "$tmp/em.jsonl"
		printf ' %10s' "$(accuracy "$tmp/em.jsonl" "$2")/$(printf '%.3f' "$(tail -1 "$tmp/log" | jq .cross_entropy)")"
	done
}
printf '%-4s %5s | %-32s | %-32s | %s\n' '' '' 'bare tags: EM from' 'refined tags: EM from' 'refined tags, from km'
printf '%-4s %5s | %10s %10s %10s | %10s %10s %10s | %5s %5s %5s\n' lang right km right sup km right sup 'δ+0.2' 'σ10' CE
for l in "$@"; do
	d=$out/$l
	refine_halves "$d/train.jsonl" "$d/dev.jsonl"
	printf '%-4s %5s |' "$l" "$(right "$d/dev.jsonl")"
	starts "$d/train.jsonl" "$d/dev.jsonl"
	printf ' |'
	starts "$tmp/train.jsonl" "$tmp/dev.jsonl"
	train-sa --init km --lambda 1 --delta0 0.2 --delta-final 0.2 -q "$tmp/train.jsonl" -o "$tmp/sa.jsonl" 2> /dev/null
	train-em --init km --lambda 1 --sparsity 10 --dual-rule interleaved -q "$tmp/train.jsonl" -o "$tmp/sp.jsonl"
	train-ce --nbhd del1ortrans1 --sigma2 1 -q "$tmp/train.jsonl" -o "$tmp/ce.jsonl"
	printf ' | %5s %5s %5s\n' "$(accuracy "$tmp/sa.jsonl" "$tmp/dev.jsonl")" \
		"$(accuracy "$tmp/sp.jsonl" "$tmp/dev.jsonl")" "$(accuracy "$tmp/ce.jsonl" "$tmp/dev.jsonl")"
done
