#!/bin/sh
# Model U's training cost, before and after a change: train-ce --family
# modelu built from commit OLD and from the working tree, run in turn
# (old new old new …, ROUNDS pairs) on UD Turkish ≤ 10 (UPOS, 2,886
# training sentences: the profile of issue 25's multilingual grid), one
# worker, each run's user + system seconds from GNU time; per run, the
# median of each binary's CPU seconds and the median of the pairs' ratios
# old/new. CPU time, not wall clock: on a loaded machine the wall clock
# swings by 2× between runs. Both builds must write the same model (the
# script says so when they do not). Both are built as make builds the
# programs: with GOEXPERIMENT=simd where the toolchain has it (Model U's
# AVX-512 lanes, stages/modelu/lanes.go).
#
#   sh examples/ce/modelu-cost.sh OLD [ROUNDS [RUNS]]
#   sh examples/ce/modelu-cost.sh 6ea160e 3     # before the shared shapes (docs/results.md, "Model U's cost")
#
# RUNS are FEATURES-NBHD-sSIGMA2 names as examples/anneal/heldout.mk's
# (default "spelling-del1ortrans2-s1 plain-trans2-sinf
# plain-del1ortrans1-sinf plain-del1-s1"). Skips when ../shared/data is
# absent.
set -eu
cd "$(dirname "$0")/../.."
old=$1
rounds=${2:-3}
runs=${3:-spelling-del1ortrans2-s1 plain-trans2-sinf plain-del1ortrans1-sinf plain-del1-s1}
data=${SHARED:-../shared/data}/ud-nopunct/tr-ud-train-nopunct-len15.conllu
[ -f "$data" ] || { echo "modelu-cost: $data absent; skipped" >&2; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
git archive "$old" | tar -x -C "$tmp/src"
# the Makefile's test for the simd experiment
simd=$([ "$(go env GOARCH)" = amd64 ] && GOEXPERIMENT=simd go list simd/archsimd >/dev/null 2>&1 && echo simd || true)
(cd "$tmp/src" && GOEXPERIMENT=$simd go build -o "$tmp/old/" ./cmd/train-ce)
GOEXPERIMENT=$simd go build -o "$tmp/new/" ./cmd/train-ce ./cmd/conll2deps ./cmd/filterlen
"$tmp/new/conll2deps" --tag upos -q "$data" | "$tmp/new/filterlen" 10 >"$tmp/tr10.jsonl"
cpu() { # CPU seconds of build $1 on run $2
	set -- "$1" $(echo "$2" | tr '-' ' ')
	sp=
	[ "$2" = spelling ] && sp=--spelling
	/usr/bin/time -f '%U %S' -o "$tmp/t" "$tmp/$1/train-ce" --family modelu $sp --nbhd "$3" --sigma2 "${4#s}" \
		--workers 1 -q "$tmp/tr10.jsonl" -o "$tmp/$1.model"
	awk '{ print $1 + $2 }' "$tmp/t"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-26s %9s %9s %7s\n' run "old CPU s" "new CPU s" old/new
for run in $runs; do
	: >"$tmp/pairs"
	for r in $(seq "$rounds"); do
		a=$(cpu old "$run")
		b=$(cpu new "$run")
		cmp -s "$tmp/old.model" "$tmp/new.model" || echo "modelu-cost: $run: the two builds' models differ" >&2
		echo "$a $b" >>"$tmp/pairs"
	done
	printf '%-26s %9.2f %9.2f %6.2f×\n' "$run" "$(cut -d' ' -f1 "$tmp/pairs" | median)" \
		"$(cut -d' ' -f2 "$tmp/pairs" | median)" "$(awk '{ print $1 / $2 }' "$tmp/pairs" | median)"
done
