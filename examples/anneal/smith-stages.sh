#!/bin/sh
# Which stage did Smith's (2006) Tables 5.1 (DA) and 5.3 (SDA) report? For
# each of his 18 schedules, trains DA from zero and SDA from km on a
# training file and prints, beside his H_C (bits per sentence) and
# iteration counts, grind's H_C of the last stage below β = 1 — the
# tempered −(1/N)·Σ log₂ Σ_y p(x,y)^β·λ₀(x,y)^(1−β), what the chart computes
# at that β — and after the β = 1 stage (the log-likelihood), and the
# iterations without and with the β = 1 stage. His numbers are copied
# from the thesis (WSJ10, 5,301 sentences); ours differ by the data, so
# compare the ratio, which is constant only for the stage he reported.
#
# usage: smith-stages.sh TRAIN.jsonl   (e.g. out/ptb/train.jsonl; needs ../../bin)
set -eu
train=$1
PATH=$(cd "$(dirname "$0")/../../bin" && pwd):$PATH
n=$(wc -l < "$train")
# Smith's Table 5.1, Zero column, and Table 5.3, K&M column: H_C and
# iterations, rows β₀ = 0.1, 0.01, 0.001 × γ = 2.5, 2.25, 2.0, 1.75, 1.5, 1.25.
smith_da_hc="14.25 9.51 20.21 24.30 18.94 24.00 25.42 12.37 14.81 22.63 22.12 22.19 13.69 15.44 9.74 20.97 25.51 20.43"
smith_da_it="57 23 68 93 95 165 73 61 81 118 134 199 69 76 45 104 167 222"
smith_sda_hc="29.62 30.23 27.92 26.09 28.38 26.18 25.51 29.94 29.51 26.90 27.09 27.06 29.73 29.37 30.21 27.61 25.38 27.82"
smith_sda_it="38 27 52 84 66 136 73 47 50 84 105 152 54 55 49 86 141 188"
nth() { echo "$2" | cut -d' ' -f"$1"; }
printf 'run\tβ0\tγ\tlast β<1\tSmith H_C\tH_C at last β<1\tratio\tH_C at β=1\tratio\tSmith iters\titers to last β<1\titers with β=1\n'
for run in "DA zero" "SDA km --skew"; do
	set -- $run
	name=$1 init=$2
	shift 2
	if [ "$name" = DA ]; then hc=$smith_da_hc it=$smith_da_it; else hc=$smith_sda_hc it=$smith_sda_it; fi
	k=0
	for b in 0.1 0.01 0.001; do
		for g in 2.5 2.25 2.0 1.75 1.5 1.25; do
			k=$((k + 1))
			train-da --init "$init" "$@" --beta0 $b --gamma $g "$train" -o /dev/null 2>&1 | grep '^stage' |
				awk -v n="$n" -v run="$name $init" -v b=$b -v g=$g -v shc="$(nth $k "$hc")" -v sit="$(nth $k "$it")" '
				{ match($0, /beta [0-9.e-]+/); beta = substr($0, RSTART + 5, RLENGTH - 5)
				  match($0, /after [0-9]+/); it = substr($0, RSTART + 6, RLENGTH - 6); obj = $NF
				  if (beta + 0 < 1) { lastb = beta; lasto = obj; before += it } else { fin = obj; last = it } }
				END { below = -lastb * lasto / n / log(2); one = -fin / n / log(2)
				  printf "%s\t%s\t%s\t%.3f\t%s\t%.2f\t%.3f\t%.2f\t%.3f\t%s\t%d\t%d\n", run, b, g, lastb, shc, below, shc / below, one, shc / one, sit, before, before + last }'
		done
	done
done
