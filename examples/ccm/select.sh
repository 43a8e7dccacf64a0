#!/bin/sh
# The DMV alone, the CCM alone and DMV+CCM on the PTB sample's held-out
# split, each from the same start, the iteration chosen on dev:
#
#   select.sh OUT [DMV_INIT]      (OUT/en-{train,dev,test}.jsonl from the Makefile)
#
# Each system is the shell loop (estep -m | mstep: the trainers' EM, byte
# for byte) from its start model — DMV: dmv-init --init DMV_INIT (default
# km); CCM: split-uniform; DMV+CCM: both, as train-ccm --model dmvccm
# starts — for at most MAX (100) iterations, stopping when the training
# log-likelihood changes by less than TOL (1e-5), relatively. Every model
# m0, m1, … is scored on dev: directed accuracy (root counted) and bracket
# F1 of its Viterbi parses, and dev log-likelihood (estep). Selection:
#   supervised    the iteration of best dev directed accuracy (DMV, DMV+CCM)
#                 or best dev F1 (CCM, DMV+CCM)
#   unsupervised  the iteration of best dev log-likelihood
#   none          the last iteration (convergence)
# The chosen models decode test: OUT/sel/SYSTEM.SELECTION.test.jsonl, and
# OUT/sel/curves.tsv has every model's dev numbers.
set -eu
out=$1
init=${2:-km}
max=${MAX:-100}
tol=${TOL:-1e-5}
dir=$out/sel-$init
mkdir -p "$dir"
train=$out/en-train.jsonl dev=$out/en-dev.jsonl test=$out/en-test.jsonl

dev_scores() { # model → "directed f1 loglik"
	d=$(decode --quiet -m "$1" "$dev" | score --json | jq -r '"\(.directed) \(.brackets.standard.f1)"')
	l=$(estep --quiet -m "$1" "$dev" | tail -n 1 | jq -r .loglik)
	echo "$d $l"
}

printf 'system\titer\ttrain_loglik\tdev_directed\tdev_f1\tdev_loglik\n' > "$dir/curves.tsv"
for sys in dmv ccm dmvccm; do
	m=$dir/$sys
	mkdir -p "$m"
	case $sys in
	dmv) dmv-init --init "$init" "$train" > "$m/0.jsonl" ;;
	ccm) train-ccm --quiet --max-iter 0 --save-model "$m/0.jsonl" "$train" > /dev/null ;;
	dmvccm) train-ccm --quiet --model dmvccm --dmv-init "$init" --max-iter 0 --save-model "$m/0.jsonl" "$train" > /dev/null ;;
	esac
	i=0 prev=
	while :; do
		estep --quiet -m "$m/$i.jsonl" "$train" > "$m/counts.jsonl"
		ll=$(tail -n 1 "$m/counts.jsonl" | jq -r .loglik)
		printf '%s\t%d\t%s\t%s\n' "$sys" "$i" "$ll" "$(dev_scores "$m/$i.jsonl" | tr ' ' '\t')" >> "$dir/curves.tsv"
		if [ -n "$prev" ] && awk -v a="$ll" -v b="$prev" -v t="$tol" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; exit !(d <= t * m) }'; then
			break
		fi
		[ "$i" -ge "$max" ] && break
		mstep -o "$m/$((i + 1)).jsonl" "$m/counts.jsonl"
		prev=$ll i=$((i + 1))
	done
	rm -f "$m/counts.jsonl"
done

# The chosen iteration of SYSTEM by column COL (4 directed, 5 F1, 6 dev
# loglik; the first best on ties), or the last.
pick() {
	if [ "$2" = last ]; then
		awk -F'\t' -v s="$1" '$1 == s { i = $2 } END { print i }' "$dir/curves.tsv"
	else
		awk -F'\t' -v s="$1" -v c="$2" '$1 == s && (best == "" || $c + 0 > best + 0) { best = $c; i = $2 } END { print i }' "$dir/curves.tsv"
	fi
}
: > "$dir/chosen.tsv"
for choice in dmv:dir:4 dmv:lik:6 dmv:last:last ccm:f1:5 ccm:lik:6 ccm:last:last \
	dmvccm:dir:4 dmvccm:f1:5 dmvccm:lik:6 dmvccm:last:last; do
	sys=${choice%%:*} rest=${choice#*:}
	how=${rest%%:*} col=${rest#*:}
	it=$(pick "$sys" "$col")
	decode --quiet -m "$dir/$sys/$it.jsonl" "$test" > "$dir/$sys.$how.test.jsonl"
	printf '%s\t%s\t%s\n' "$sys" "$how" "$it" >> "$dir/chosen.tsv"
done
