#!/bin/sh
# modelu-table.sh DIR... — Model U's table (Smith 2006, Table 4.9) from the
# runs each DIR's picks.tsv names (make modelu: per feature set and
# neighbourhood, the σ² picked on dev; last, the pick across all). Test
# attachments are pooled over the DIRs (the folds of a cross-validation):
# undirected F1, root excluded (Smith's), then in parentheses the directed F1
# of the trees read from the first word; the σ² picked, per DIR.
set -eu
for d in "$@"; do
  while IFS='	' read -r f n r; do
    jq -r --arg f "$f" --arg n "$n" --arg r "$r" \
      '[$f, $n, $r, .excluded.undirected.correct, .excluded.directed.correct, .excluded.undirected.gold] | @tsv' "$d/$r.test.score"
  done < "$d/picks.tsv"
done | awk -F '\t' '
  { k = $1 "\t" $2; if (!(k in g)) order[++n] = k
    u[k] += $4; dd[k] += $5; g[k] += $6
    s = $3; sub(/.*-s/, "", s); if ($1 == "overall") s = $3
    sig[k] = (c[k]++ ? sig[k] "," : "") s }
  function cell(k) { return sprintf("%.1f (%.1f)", 100 * u[k] / g[k], 100 * dd[k] / g[k]) }
  END {
    print "nbhd\tModel U\tsigma2\tModel U + spelling\tsigma2"
    for (i = 1; i <= n; i++) { split(order[i], p, "\t"); if (p[1] == "plain") nb[++m] = p[2] }
    for (j = 1; j <= m; j++) {
      a = "plain\t" nb[j]; b = "spelling\t" nb[j]
      print nb[j] "\t" cell(a) "\t" sig[a] "\t" cell(b) "\t" sig[b]
    }
    k = "overall\toverall"; print "overall\t" cell(k) "\t" sig[k] "\t\t"
  }' | column -t -s '	'
