#!/bin/sh
# modelu-sign.sh DIR... — paired sign tests for Model U's table (make modelu;
# modelu-table.sh prints the scores): per neighbourhood, the σ² dev picked
# with spelling against the one it picked without; and the pick across all
# against ATTACH-RIGHT. Undirected attachments, root excluded (score
# --root exclude --undirected, Smith's F1). Each DIR is a make modelu output
# (picks.tsv, the models) beside its test.jsonl; the picked models' test
# parses are written there (RUN.test.jsonl) and, for several DIRs (the folds
# of a cross-validation), pooled in the order given. Columns: token wins /
# losses of the first against the second, the two-sided p of tokens and of
# sentences.
set -eu
pool=$(mktemp -d)
trap 'rm -rf "$pool"' EXIT
for d in "$@"; do
  test=$(dirname "$d")/test.jsonl
  [ -f "$d/picks.tsv" ] && [ -f "$test" ] || { echo "modelu-sign.sh: $d/picks.tsv or $test missing (run make modelu)" >&2; exit 1; }
  cat "$test" >> "$pool/gold.jsonl"
  baseline --attach right "$test" >> "$pool/attach-right.jsonl"
  while IFS='	' read -r f n r; do
    if [ ! -f "$d/$r.test.jsonl" ]; then
      decode -m "$d/$r.model" -q "$test" > "$d/$r.test.jsonl.tmp" && mv "$d/$r.test.jsonl.tmp" "$d/$r.test.jsonl"
    fi
    cat "$d/$r.test.jsonl" >> "$pool/$f-$n.jsonl"
  done < "$d/picks.tsv"
done
# sign A B LABEL prints LABEL, then A's test against B.
sign() {
  score --root exclude --undirected --json --against "$pool/$2.jsonl" "$pool/$1.jsonl" | jq -r --arg l "$3" '
    def p: if . < 0.001 then "<0.001" else (. * 1000 | round / 1000 | tostring) end;
    .sign_test | [$l, "\(.tokens.wins)/\(.tokens.losses)", (.tokens.p | p), "\(.sentences.wins)/\(.sentences.losses)", (.sentences.p | p)] | @tsv'
}
{
  printf 'comparison\ttokens W/L\tp(tokens)\tsentences W/L\tp(sentences)\n'
  grep '^plain' "$1/picks.tsv" | cut -f2 | while read -r n; do
    sign "spelling-$n" "plain-$n" "$n: spelling vs plain"
  done
  sign overall-overall attach-right "picked across all vs attach-right"
} | column -t -s '	'
