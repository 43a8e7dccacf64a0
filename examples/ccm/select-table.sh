#!/bin/sh
# The tables of select.sh's results in DIR (OUT/sel-INIT): each system's
# chosen iteration, its dev numbers and its test scores; then the sign
# tests of DMV+CCM against the DMV (directed, tokens, root counted) and
# against the CCM (brackets), under the same kind of selection.
set -eu
dir=$1
pct() { awk '{ if ($0 == "null" || $0 == "") print "–"; else printf "%.1f\n", 100*$0 }'; }
echo "| system | selection | iteration | dev dir | dev F1 | dev loglik | test dir | test undir | test F1 |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
while IFS='	' read -r sys how it; do
	row=$(awk -F'\t' -v s="$sys" -v i="$it" '$1 == s && $2 == i' "$dir/curves.tsv")
	dd=$(echo "$row" | cut -f4 | pct)
	df=$(echo "$row" | cut -f5 | pct)
	dl=$(echo "$row" | cut -f6 | awk '{ if ($0 == "-inf") print "−inf"; else printf "%.1f\n", $0 }')
	json=$(score --json "$dir/$sys.$how.test.jsonl")
	td=$(echo "$json" | jq -r .directed | pct)
	tu=$(echo "$json" | jq -r .undirected | pct)
	tf=$(echo "$json" | jq -r .brackets.standard.f1 | pct)
	[ "$sys" = ccm ] && dd="–" td="–" tu="–"
	label=$(echo "$sys" | sed 's/^dmvccm$/DMV+CCM/; s/^dmv$/DMV/; s/^ccm$/CCM/; s/^flat$/DMV+flat CCM/; s/^rf$/DMV+CCM right-first/')
	sel=$(echo "$how" | sed 's/^dir$/supervised (dev directed)/; s/^f1$/supervised (dev F1)/; s/^lik$/unsupervised (dev likelihood)/; s/^last$/none (convergence)/')
	echo "| $label | $sel | $it | $dd | $df | $dl | $td | $tu | $tf |"
done < "$dir/chosen.tsv"
echo
echo "| comparison (test) | selection | tokens won / lost (p) | sentences won / lost (p) | brackets won / lost (p) |"
echo "|---|---|---:|---:|---:|"
sign() { # A B label selection
	score --json --against "$dir/$2" "$dir/$1" | jq -r --arg l "$3" --arg s "$4" '.sign_test as $t |
		def wl(x): "\(x.wins) / \(x.losses) (p \(x.p))";
		"| \($l) | \($s) | \(wl($t.tokens)) | \(wl($t.sentences)) | \(wl($t.brackets.brackets)) |"' |
		perl -pe 's/p ([0-9.eE+-]+)/sprintf("p = %.2g", $1)/ge'
}
sign dmvccm.dir.test.jsonl dmv.dir.test.jsonl "DMV+CCM vs DMV" "supervised (dev directed)"
sign dmvccm.lik.test.jsonl dmv.lik.test.jsonl "DMV+CCM vs DMV" "unsupervised (dev likelihood)"
sign dmvccm.last.test.jsonl dmv.last.test.jsonl "DMV+CCM vs DMV" "none (convergence)"
sign flat.dir.test.jsonl dmv.dir.test.jsonl "DMV+flat CCM vs DMV" "supervised (dev directed)"
sign flat.last.test.jsonl dmv.last.test.jsonl "DMV+flat CCM vs DMV" "none (convergence)"
sign rf.dir.test.jsonl dmv.dir.test.jsonl "DMV+CCM right-first vs DMV" "supervised (dev directed)"
sign rf.lik.test.jsonl dmv.lik.test.jsonl "DMV+CCM right-first vs DMV" "unsupervised (dev likelihood)"
sign rf.last.test.jsonl dmv.last.test.jsonl "DMV+CCM right-first vs DMV" "none (convergence)"
sign rf.f1.test.jsonl ccm.f1.test.jsonl "DMV+CCM right-first vs CCM" "supervised (dev F1)"
sign rf.last.test.jsonl ccm.last.test.jsonl "DMV+CCM right-first vs CCM" "none (convergence)"
sign dmvccm.f1.test.jsonl ccm.f1.test.jsonl "DMV+CCM vs CCM" "supervised (dev F1)"
sign dmvccm.lik.test.jsonl ccm.lik.test.jsonl "DMV+CCM vs CCM" "unsupervised (dev likelihood)"
sign dmvccm.last.test.jsonl ccm.last.test.jsonl "DMV+CCM vs CCM" "none (convergence)"
