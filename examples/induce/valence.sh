#!/bin/sh
# Extended valence over the ending-refined tags: does a richer DMV family
# let a head-final language pass attach-right without annotation? For each
# language of a newlang.mk run, on the selection half (directed, root
# counted, Viterbi):
#
#   right        attach-right
#   sup          the supervised model (add-1 MLE of the training file's
#                gold trees) of the DMV over the bare tags, of the family
#                with 3 stop valences and 2 child valences (--stop-valence
#                3 --child-valence 2: "3/2") over the bare tags, and of
#                3/2 over ceiling.sh's tags refined by the word's ending
#   EM 3/2       EM (λ 0, train-em's stopping) in the 3/2 family over the
#                refined tags, from km, from attach-right's trees (right),
#                from the supervised model (sup, a reference that reads
#                the gold trees), from zero, and from 5 random projective
#                head-final trees a sentence (hf: halves.sh's
#                headfinal_trees, a start that needs no annotation but
#                knows the direction), each as accuracy/bits (the training
#                file's cross-entropy in bits a token at the last
#                iteration: lower is likelier); then zero and hf at λ 1
#   share        the share of rules (ud1 over the refined tags) in the dev
#                parses of hf at λ 1, of induce's pick (bare tags), and of
#                attach-right's parses (bare tags): how much of the rules
#                a chain already meets
#
# The report half is not read; the gold heads score, and make the sup
# models, which choose nothing.
#
# usage: valence.sh OUT LANG...
#   sh examples/induce/valence.sh examples/induce/out/newlang-10 ja
# Needs the programs in ../../bin (or on PATH), jq and awk.
set -eu
out=$1
shift
. "$(dirname "$0")/halves.sh"
v='--stop-valence 3 --child-valence 2'
# sup TRAIN DEV FLAGS...: the supervised model of the family FLAGS name
sup() {
	t=$1 dev=$2
	shift 2
	dmv-init --init zero "$@" -q "$t" > "$tmp/shape.jsonl"
	estep --gold -m "$tmp/shape.jsonl" -q "$t" | mstep --lambda 1 -q > "$tmp/sup.jsonl"
	accuracy "$tmp/sup.jsonl" "$dev"
}
# counted TREES OUT: the 3/2 model (add-1) of TREES' heads, over the refined tags
counted() { estep --gold -m "$tmp/shape.jsonl" -q "$1" | mstep --lambda 1 -q > "$2"; }
# em START LAMBDA: EM in the 3/2 family over the refined tags, accuracy/bits
em() {
	# shellcheck disable=SC2086 # the start and the family are words
	train-em $1 $v --lambda "$2" --log "$tmp/log" -q "$tmp/train.jsonl" -o "$tmp/em.jsonl"
	printf '%s/%.3f' "$(accuracy "$tmp/em.jsonl" "$tmp/dev.jsonl")" "$(tail -1 "$tmp/log" | jq .cross_entropy)"
}
printf '%-4s %5s | %-17s | %-59s | %-11s | %s\n' '' '' 'sup: bare | endings' 'EM 3/2 over the endings, λ 0, from' 'λ 1, from' 'share of rules'
printf '%-4s %5s | %5s %5s %5s | %11s %11s %11s %11s %11s | %5s %5s | %5s %6s %5s\n' lang right DMV 3/2 3/2 km right sup zero hf zero hf hf induce right
for l in "$@"; do
	d=$out/$l
	printf '%-4s %5s |' "$l" "$(right "$d/dev.jsonl")"
	printf ' %5s %5s' "$(sup "$d/train.jsonl" "$d/dev.jsonl")" "$(sup "$d/train.jsonl" "$d/dev.jsonl" $v)"
	refine_halves "$d/train.jsonl" "$d/dev.jsonl"
	refined_rules > "$tmp/rules"
	printf ' %5s |' "$(sup "$tmp/train.jsonl" "$tmp/dev.jsonl" $v)" # leaves the refined 3/2 shape and sup model
	right_trees "$tmp/train.jsonl" > "$tmp/right.trees"
	counted "$tmp/right.trees" "$tmp/right.jsonl"
	headfinal_trees "$tmp/train.jsonl" 5 > "$tmp/hf.trees"
	counted "$tmp/hf.trees" "$tmp/hf.jsonl"
	for start in "--init km" "-m $tmp/right.jsonl" "-m $tmp/sup.jsonl" "--init zero" "-m $tmp/hf.jsonl"; do
		printf ' %11s' "$(em "$start" 0)"
	done
	printf ' | %5s' "$(em "--init zero" 1 | cut -d/ -f1)"
	printf ' %5s |' "$(em "-m $tmp/hf.jsonl" 1 | cut -d/ -f1)"
	printf ' %5s %6s %5s\n' "$(rule_share "$tmp/dev.jsonl" "$tmp/rules" "$tmp/em.jsonl")" "$(rule_share "$d/dev.jsonl" ud1 "$d/induce.model")" "$(chain_share right "$d/dev.jsonl")"
done
