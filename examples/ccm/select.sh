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
#   unsupervised  the iteration of best dev log-likelihood (over the dev
#                 sentences of probability > 0 under the DMV's start)
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
	l=$(estep --quiet -m "$1" "$devlik" | tail -n 1 | jq -r .loglik)
	echo "$d $l"
}

# The dev log-likelihood is summed over the dev sentences the DMV's start
# gives probability > 0: the DMV (and DMV+CCM's DMV half) is unsmoothed,
# and EM never makes a zero parameter positive, so on the others every
# model of the DMV and of DMV+CCM has −Inf. Later models may give more
# sentences probability 0 (parameters underflow to 0): as select-model
# ranks, fewer such sentences first, so a model of −Inf here ranks below
# every model of a finite log-likelihood (the start's is).
mkdir -p "$dir/dmv"
dmv-init --init "$init" "$train" > "$dir/dmv/0.jsonl"
devlik=$dir/dev-lik.jsonl
: > "$devlik"
while IFS= read -r line; do
	printf '%s\n' "$line" > "$dir/one.jsonl"
	l=$(estep --quiet -m "$dir/dmv/0.jsonl" "$dir/one.jsonl" | tail -n 1 | jq -r .loglik)
	[ "$l" = -inf ] || printf '%s\n' "$line" >> "$devlik"
done < "$dev"
rm -f "$dir/one.jsonl"

printf 'system\titer\ttrain_loglik\tdev_directed\tdev_f1\tdev_loglik\n' > "$dir/curves.tsv"
# flat: DMV+CCM with its CCM held flat (every probability 1/2, so φ ≡ 1
# and K(s) is a constant): the product then scores a tree T by
# P_DMV(T)·N(T), N(T) the number of binary bracketings T is compatible
# with (its heads' orders of taking left and right dependents) — the
# product's DMV half without the CCM's information.
flatten() { jq -c 'if .p != null and (.ev == "span" or .ev == "context" or .ev == "unseen_span" or .ev == "unseen_context") then .p = 0.5 else . end' "$1"; }
# rf: DMV+CCM with the DMV's right-first order (train-ccm --right-first):
# one bracketing per tree, so with a flat CCM it is the DMV alone.
for sys in dmv ccm dmvccm flat rf; do
	m=$dir/$sys
	mkdir -p "$m"
	case $sys in
	dmv) ;; # made above
	ccm) train-ccm --quiet --max-iter 0 --save-model "$m/0.jsonl" "$train" > /dev/null ;;
	dmvccm) train-ccm --quiet --model dmvccm --dmv-init "$init" --max-iter 0 --save-model "$m/0.jsonl" "$train" > /dev/null ;;
	rf) train-ccm --quiet --model dmvccm --right-first --dmv-init "$init" --max-iter 0 --save-model "$m/0.jsonl" "$train" > /dev/null ;;
	flat)
		train-ccm --quiet --model dmvccm --dmv-init "$init" --max-iter 0 --save-model "$m/start.jsonl" "$train" > /dev/null
		flatten "$m/start.jsonl" > "$m/0.jsonl"
		;;
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
		if [ $sys = flat ]; then
			flatten "$m/$((i + 1)).jsonl" > "$m/next.jsonl"
			mv "$m/next.jsonl" "$m/$((i + 1)).jsonl"
		fi
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
		awk -F'\t' -v s="$1" -v c="$2" '$1 == s { v = $c == "-inf" ? -1e308 : $c + 0; if (best == "" || v > best) { best = v; i = $2 } } END { print i }' "$dir/curves.tsv"
	fi
}
: > "$dir/chosen.tsv"
for choice in dmv:dir:4 dmv:lik:6 dmv:last:last ccm:f1:5 ccm:lik:6 ccm:last:last \
	dmvccm:dir:4 dmvccm:f1:5 dmvccm:lik:6 dmvccm:last:last flat:dir:4 flat:lik:6 flat:last:last \
	rf:dir:4 rf:f1:5 rf:lik:6 rf:last:last; do
	sys=${choice%%:*} rest=${choice#*:}
	how=${rest%%:*} col=${rest#*:}
	it=$(pick "$sys" "$col")
	decode --quiet -m "$dir/$sys/$it.jsonl" "$test" > "$dir/$sys.$how.test.jsonl"
	printf '%s\t%s\t%s\n' "$sys" "$how" "$it" >> "$dir/chosen.tsv"
done
