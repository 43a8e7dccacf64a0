#!/bin/sh
# The estimators beyond the seeds on the PTB sample's Yamada–Matsumoto
# conversion (the .dp files, PTB punctuation and $ # removed, ≤ 10 words:
# 555 sentences, 3,856 tokens), trained and scored on the same sentences —
# pr-toolkit's protocol, so its numbers stand beside ours: K&M start (grind's
# km; the last rows pr-toolkit's own, km-prtoolkit), 100 iterations (--tol
# 0), Viterbi decoding, root counted. Each row: directed / undirected
# accuracy (%), and seconds.
#
#   sh examples/induce/peers.sh            (about 30 seconds on 2 idle cores)
#
# Needs the programs in ../../bin and jq; skips when ../shared/data is absent.
set -eu
cd "$(dirname "$0")"
dp=../../../shared/data/ptb-sample-deps-ym
[ -d "$dp" ] || { echo "peers: $dp not found; skipped"; exit 0; }
PATH=$(cd ../../bin && pwd):$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
conll2deps --quiet "$dp"/*.dp | filterlen 10 > "$tmp/c.jsonl"
# pr-toolkit 2010.11 run on these sentences (issue 20), from its own K&M
# start: EM, PR ungrouped σ = 10, 140.
peer() {
	case $1 in
	em*) echo "46.5 / 63.6" ;;
	sparsity-10 | sparsity-10-inter | pt-sparsity-10*) echo "46.2 / 63.9" ;;
	sparsity-140 | sparsity-140-inter | pt-sparsity-140*) echo "23.3 / 43.7" ;;
	*) echo - ;;
	esac
}
init=km
printf '%-26s %-13s %-13s %s\n' estimator grind pr-toolkit seconds
row() {
	name=$1
	shift
	start=$(date +%s.%N)
	train-em --init $init --tol 0 --max-iter 100 -q "$@" "$tmp/c.jsonl" -o "$tmp/m.jsonl"
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	acc=$(decode -m "$tmp/m.jsonl" -q "$tmp/c.jsonl" | score --json | jq -r '[.counted.directed.accuracy, .counted.undirected.accuracy] | map(. * 100) | @tsv' | awk '{ printf "%.1f / %.1f", $1, $2 }')
	printf '%-26s %-13s %-13s %.1f\n' "$name" "$acc" "$(peer "$name")" "$secs"
}
row em
# Posterior sparsity, every projection solved (--dual-rule exact: pr-toolkit's
# rules), then by the interleaved rule (train-em's default until 29 November).
for s in 1 2 5 10 20 140; do row "sparsity-$s" --sparsity "$s" --dual-rule exact; done
row sparsity-10-grouped --sparsity 10 --sparsity-grouped --dual-rule exact
row sparsity-10-1step --sparsity 10 --dual-rule exact --dual-steps 1
for s in 1 2 5 10 20 140; do row "sparsity-$s-inter" --sparsity "$s" --dual-rule interleaved; done
row sparsity-10-grouped-inter --sparsity 10 --sparsity-grouped --dual-rule interleaved
for a in 1 0.1 0.01 0.001; do row "vb-$a" --estimator vb --alpha "$a"; done
row evg-c2-l1 --child-valence 2 --lambda 1
row dmv-l1 --lambda 1
row lc-d1-c3 --max-depth 1 --max-chunk 3
row lc-d2 --max-depth 2
for t in 0.7 0.8 0.9; do row "rules-ptb-$t" --rules ptb --rule-share "$t"; done
# From pr-toolkit's own start (--init km-prtoolkit), its rows.
init=km-prtoolkit
row em-pt
for s in 10 140; do row "pt-sparsity-$s" --sparsity "$s" --dual-rule exact; done
for s in 10 140; do row "pt-sparsity-$s-inter" --sparsity "$s" --dual-rule interleaved; done
# The exact rule with a looser stopping rule for the dual (pr-toolkit's is
# 1e-5): fewer E-steps a projection.
for t in 1e-4 1e-3 3e-3 1e-2; do for s in 10 140; do row "pt-sparsity-$s-tol$t" --sparsity "$s" --dual-rule exact --dual-tol "$t"; done; done
# The exact rule stopped by the duality gap (--dual-gap: at most G·|f|, the
# warm start included, so a projection may take no step); G = 3e-2 is
# train-em's default for --sparsity, the rows "default".
for g in 1e-3 3e-3 1e-2; do for s in 10 140; do row "pt-sparsity-$s-gap$g" --sparsity "$s" --dual-gap "$g"; done; done
for s in 10 140; do row "pt-sparsity-$s-default" --sparsity "$s"; done
