# One row of `make early`: the start, the number of L-BFGS steps, and the
# test accuracy (root excluded, %) of the last step, of the step dev accuracy
# picks, of the step the dev contrastive objective picks, and of the best
# step on test. A saved iter-K is the model after K − 1 steps (iter-0001 is
# the start). Inputs (--slurpfile): select-model --json rankings on dev
# ($dev), by contrast on dev ($con) and on test ($test).
def step: .model | capture("iter-(?<n>[0-9]+)").n | tonumber - 1;
def pct: . * 1000 | round / 10;
($test | map({key: (step | tostring), value: .excluded.directed.f1}) | from_entries) as $acc
| ($test | map(step) | max) as $last
| def at($s): $acc[$s | tostring] | pct;
  [$init, $last, at($last), ($dev[0] | step), at($dev[0] | step),
   ($con[0] | step), at($con[0] | step), ($test[0] | step), at($test[0] | step)]
| @tsv
