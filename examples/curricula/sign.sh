#!/bin/sh
# sign.sh DIR A:B... — the paired sign tests of the curricula table (make
# sign): for each pair, run A's test parses against run B's (DIR/RUN.test.pred.jsonl
# and DIR/RUN.test10.pred.jsonl, written by make), directed attachments with
# the root counted, as the table's accuracies (score --against), on test
# ≤ 10 and on all of test. Columns, per part: token wins / losses of A
# against B (A right where B is wrong / the reverse), the two-sided exact
# binomial p, and the same for sentences (more right attachments wins).
set -eu
export LC_ALL=C # printf's %g with a decimal point
dir=$1
shift
report=$(mktemp)
trap 'rm -f "$report"' EXIT
printf 'run\tagainst\ttest<=10 tokens W/L\tp\tsentences W/L\tp\ttest(all) tokens W/L\tp\tsentences W/L\tp\n'
for pair in "$@"; do
  a=${pair%%:*}
  b=${pair#*:}
  printf '%s\t%s' "$a" "$b"
  for part in test10 test; do
    score --json --quiet --against "$dir/$b.$part.pred.jsonl" "$dir/$a.$part.pred.jsonl" -o "$report"
    jq -r '.sign_test | [.tokens.wins, .tokens.losses, .tokens.p, .sentences.wins, .sentences.losses, .sentences.p] | @tsv' "$report" |
      { IFS='	' read -r tw tl tp sw sl sp
        printf '\t%s/%s\t%.2g\t%s/%s\t%.2g' "$tw" "$tl" "$tp" "$sw" "$sl" "$sp"; }
  done
  printf '\n'
done
