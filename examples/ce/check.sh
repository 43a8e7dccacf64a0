#!/bin/sh
# Checks that CE composed from programs equals train-ce, on the treebank grind
# ships:
#  1. for weights w, Σ log Z(x) from `estep -m w` over the sentences minus
#     Σ log Z(N(x)) from `nbhd | estep -m w` over their lattices is the
#     objective train-ce reports at w (its log's first line), to 1e-9
#     relative, for each neighbourhood;
#  2. CE as a shell loop (loop.sh: the two E-steps and ce-step) equals
#     train-ce over a fixed number of iterations — DMV CE, Model L CE at a
#     fixed δ and annealed, length: the same iterations, each one's
#     objective to 1e-9 (relative), and every weight of the model to 1e-9
#     (absolute, or relative for a weight beyond ±1); and HMM CE (--states)
#     against train-hmm --estimator ce: each objective to 1e-9 and every
#     token's tag (train-hmm saves a CE tagger, the loop its weights; the
#     Go test TestCEStepLoopEqualsTrainCE compares those weight by weight);
#     and Smith's Model U (--family modelu: over tags, length, and with
#     spelling over nbhd --spelling's lattices of tagged words) against
#     train-ce --family modelu, objectives and weights as the DMV's.
#     The E-steps add in another order than the trainers', and
#     L-BFGS amplifies that last bit over the iterations (README, "ce-step"):
#     the runs are a fixed number of iterations, as examples/em/check.sh's.
# Run by CI. Needs the programs in ../../bin (make build) and jq.
set -eu
cd "$(dirname "$0")"
PATH=$PWD/../../bin:$PATH
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

ptb2deps ../treebank/*.mrg | filterlen 10 > "$dir/corpus.jsonl"
for kind in del1ortrans1 trans1 dynasearch length; do
  # Some log-linear weights: two L-BFGS steps from the km start.
  train-ce --nbhd "$kind" --init km --max-iter 2 --quiet "$dir/corpus.jsonl" -o "$dir/w.jsonl"
  train-ce --nbhd "$kind" -m "$dir/w.jsonl" --max-iter 1 --quiet --log "$dir/log" "$dir/corpus.jsonl" -o /dev/null
  inproc=$(head -n 1 "$dir/log" | jq .objective)
  sent=$(estep -m "$dir/w.jsonl" "$dir/corpus.jsonl" | tail -n 1 | jq .loglik)
  tagset=
  [ "$kind" = length ] && tagset="-m $dir/w.jsonl" # length spells strings over the model's tags
  nbhd --kind "$kind" $tagset "$dir/corpus.jsonl" > "$dir/lattices.jsonl"
  lat=$(estep -m "$dir/w.jsonl" "$dir/lattices.jsonl" | tail -n 1 | jq .loglik)
  rel=$(jq -n --argjson a "$inproc" --argjson s "$sent" --argjson l "$lat" '(($s - $l) - $a | fabs) / ($a | fabs)')
  echo "$kind: train-ce objective $inproc, estep $sent − estep over nbhd $lat: relative difference $rel"
  jq -n --argjson r "$rel" 'if $r <= 1e-9 then empty else error("differ") end'
done

# 2. The shell loop against train-ce.
loop_vs_train() { # NAME NBHD [options]: train-ce's, or with --states train-hmm's
  name=$1 kind=$2
  shift 2
  rm -f "$dir/loop.log"
  CE_LOG=$dir/loop.log ./loop.sh "$dir/corpus.jsonl" "$kind" "$@" > "$dir/loop.jsonl"
  case " $* " in
  *" --states "*) train-hmm --estimator ce --nbhd "$kind" "$@" --quiet --log "$dir/train.log" --save-model "$dir/tagger.jsonl" "$dir/corpus.jsonl" > "$dir/train.jsonl" ;;
  *) train-ce --nbhd "$kind" "$@" --quiet --log "$dir/train.log" "$dir/corpus.jsonl" > "$dir/train.jsonl" ;;
  esac
  # The same iterations (number, stage, δ), each one's objective to 1e-9.
  obj=$(jq -r -n --slurpfile a "$dir/train.log" --slurpfile b "$dir/loop.log" '
    if ($a | length) != ($b | length) then error("train-ce logged \($a | length) iterations, the loop \($b | length)") else . end |
    [range($a | length) as $i | $a[$i] as $x | $b[$i] as $y |
      if [$x.iter, $x.stage, $x.delta] != [$y.iter, $y.stage, $y.delta] then error("iteration \($i + 1): \($x) against \($y)") else . end |
      if $x.objective == $y.objective then 0 else (($x.objective - $y.objective) | fabs) / ($x.objective | fabs) end] |
    "\(length) \(max)"')
  case " $* " in
  *" --states "*)
    # train-hmm saves a CE tagger (family hmmce), the loop a log-linear
    # HMM (its weights, spelling folded in; the Go test compares those
    # weight by weight): both tag the corpus alike.
    tag -m "$dir/loop.jsonl" "$dir/corpus.jsonl" > "$dir/loop-tags.jsonl"
    set -- $obj $(jq -r -n --slurpfile a "$dir/train.jsonl" --slurpfile b "$dir/loop-tags.jsonl" '
      [range($a | length) as $i | range($a[$i].tags | length) as $j | $a[$i].tags[$j] == $b[$i].tags[$j]] |
      "\(length) \(map(select(. | not)) | length)"')
    echo "$name: $1 iterations, objective per iteration within $2 (relative); $3 tokens tagged, $4 differently"
    jq -n --argjson o "$2" --argjson d "$4" 'if $o <= 1e-9 and $d == 0 then empty else error("the loop differs from the trainer") end' ;;
  *)
    set -- $obj $(../compare-models.sh "$dir/train.jsonl" "$dir/loop.jsonl")
    echo "$name: $1 iterations, objective per iteration within $2 (relative); $3 weights within $5 (absolute), $6 (relative beyond ±1)"
    jq -n --argjson o "$2" --argjson w "$6" 'if $o <= 1e-9 and $w <= 1e-9 then empty else error("the loop differs from the trainer") end' ;;
  esac
}
loop_vs_train "DMV CE (del1ortrans1, km)" del1ortrans1 --init km --max-iter 10 --tol 0
loop_vs_train "Model L CE (trans1, δ = -0.2, σ² = 1)" trans1 --init km --sigma2 1 --delta0 -0.2 --max-iter 8 --tol 0
loop_vs_train "Model L CE annealed (del1ortrans1, δ -0.2 → 0, zero)" del1ortrans1 --init zero --delta0 -0.2 --delta-final 0 --delta-step 0.1 --max-iter 5 --tol 0
loop_vs_train "DMV CE (length, local, σ² = 1)" length --init local --sigma2 1 --max-iter 12 --tol 0
loop_vs_train "HMM CE (trans1, 8 states)" trans1 --states 8 --max-iter 10
loop_vs_train "HMM CE (del1ortrans1, 5 states, spelling, σ² = 2)" del1ortrans1 --states 5 --spelling --sigma2 2 --seed 3 --max-iter 10
loop_vs_train "Model U CE (trans1)" trans1 --family modelu --max-iter 6 --tol 0
loop_vs_train "Model U CE (length, σ² = 1)" length --family modelu --sigma2 1 --max-iter 3 --tol 0
loop_vs_train "Model U CE (del1ortrans1, spelling, σ² = 1)" del1ortrans1 --family modelu --spelling --sigma2 1 --max-iter 5 --tol 0
