#!/bin/sh
# The table over the PTB sample's ten folds (../corpora.mk, DATA=ptb-cv):
# each fold's test part parsed by the models of its own train part (its
# first POOL sentences the annotated pool, the rest unannotated), the ten
# test parts' parses concatenated (555 sentences) and scored once.
#
# usage: [NS='5 10 …'] sh cv.sh [MAKEFLAGS…]   (e.g. sh cv.sh -j2)
set -eu
cd "$(dirname "$0")"
PATH=$PWD/../../bin:$PATH
ns=${NS:-5 10 20 50 100 200}
for k in 1 2 3 4 5 6 7 8 9 10; do
	make -s "$@" DATA=ptb-cv FOLD=$k NS="$ns" parsed
done
out=out/ptb-cv
models="sup supinit-em semi-zero semi-km semi-local semi-sup em-supsel"
{
	printf 'N'; for m in $models; do printf '\t%s' "$m"; done; printf '\tpicks (folds)\n'
	for n in $ns; do
		printf '%s' "$n"
		for m in $models; do
			acc=$(cat $out/fold-*/"$m-$n".test.parsed | score --json | jq '.excluded.directed.f1 * 1000 | round / 10')
			printf '\t%s' "$acc"
		done
		picks=$(for k in 1 2 3 4 5 6 7 8 9 10; do basename "$(cut -f 2 $out/fold-$k/supsel-$n.tsv)" .model; done | sort | uniq -c | sort -k1,1nr | awk '{printf "%s%s ×%s", (NR > 1 ? ", " : ""), $2, $1}')
		printf '\t%s\n' "$picks"
	done
} > $out/results.tsv
column -t -s '	' $out/results.tsv
