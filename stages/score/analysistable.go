package score

import (
	"fmt"
	"slices"
	"strings"
)

// Pct writes a share as a percentage to one decimal, as the tables for
// people of score's and score-tags' analyses do.
func Pct(f float64) string { return fmt.Sprintf("%.1f", 100*f) }

// TopRows is how many of a table's n rows it shows when cut to its top
// rows (top ≤ 0: all).
func TopRows(n, top int) int {
	if top > 0 {
		return min(n, top)
	}
	return n
}

// Shown is the heading's note that a table shows n of its rows, or ""
// when it shows them all.
func Shown(n, of int) string {
	if n < of {
		return fmt.Sprintf(", the first %d of %d", n, of)
	}
	return ""
}

// AppendAnalyses appends to b the tables for people of r's analyses, each
// after a blank line, every table cut to its top rows (0: all);
// percentages to one decimal.
func AppendAnalyses(b []byte, r Report, top int) []byte {
	add := func(format string, args ...any) { b = fmt.Appendf(b, format, args...) }
	pct, shown := Pct, Shown
	cut := func(n int) int { return TopRows(n, top) }
	// pr is a precision or recall with "-" when there is nothing to divide.
	pr := func(correct, of int) string {
		if of == 0 {
			return "-"
		}
		return pct(ratio(correct, of))
	}
	if l := r.Links; l != nil {
		n := cut(len(l.Undirected))
		add("\nlink types (Smith 2006 Tables 3.3, 4.3): arcs between words by the unordered pair of their tags, found in either direction%s\n", shown(n, len(l.Undirected)))
		add("  %-20s %9s %9s %7s %7s\n", "tags", "predicted", "precision", "recall", "gold")
		for _, row := range l.Undirected[:n] {
			add("  %-20s %9d %9s %7s %7d\n", strings.Join(row.Tags, " "), row.Predicted, pr(row.Correct, row.Predicted), pr(row.Correct, row.Gold), row.Gold)
		}
		add("  divergence of the predicted link types from gold (mean KL to the mean, Table 8.9): %.3f bits undirected, %.3f directed\n",
			l.Divergence.Undirected, l.Divergence.Directed)
		for _, list := range []struct {
			what, field string
			get         func(LinkRow) int
		}{
			{"most over-proposed (predicted, not gold; Klein 2005 Fig. 6.5)", "over", func(r LinkRow) int { return *r.Over }},
			{"most under-proposed (gold, not predicted)", "under", func(r LinkRow) int { return *r.Under }},
		} {
			rows := slices.Clone(l.Directed)
			rows = slices.DeleteFunc(rows, func(r LinkRow) bool { return list.get(r) == 0 })
			slices.SortStableFunc(rows, func(a, b LinkRow) int { return list.get(b) - list.get(a) })
			n := cut(len(rows))
			add("\ndirected link types, head → dependent, %s%s\n", list.what, shown(n, len(rows)))
			add("  %-20s %6s %9s %9s %7s %7s\n", "head → dependent", list.field, "predicted", "precision", "recall", "gold")
			for _, row := range rows[:n] {
				add("  %-20s %6d %9d %9s %7s %7d\n", row.Tags[0]+" → "+row.Tags[1], list.get(row), row.Predicted, pr(row.Correct, row.Predicted), pr(row.Correct, row.Gold), row.Gold)
			}
		}
	}
	if r.ByDistance != nil {
		add("\nprecision and recall by distance |head − dependent| (Smith 2006 Tables 3.4, 4.4): arcs between words of that distance,\nundirected, and directed for left dependents (before their head) and right ones\n")
		add("  %8s  %17s  %13s  %13s  %13s  %17s\n", "", "predicted", "undirected", "left", "right", "gold")
		add("  %8s  %5s %5s %5s  %6s %6s  %6s %6s  %6s %6s  %5s %5s %5s\n", "distance", "all", "left", "right", "P", "R", "P", "R", "P", "R", "all", "left", "right")
		for _, row := range *r.ByDistance {
			u, le, ri := row.Undirected, row.Left, row.Right
			add("  %8d  %5d %5d %5d  %6s %6s  %6s %6s  %6s %6s  %5d %5d %5d\n", row.Distance,
				u.Predicted, le.Predicted, ri.Predicted,
				pr(u.Correct, u.Predicted), pr(u.Correct, u.Gold),
				pr(le.Correct, le.Predicted), pr(le.Correct, le.Gold),
				pr(ri.Correct, ri.Predicted), pr(ri.Correct, ri.Gold),
				u.Gold, le.Gold, ri.Gold)
		}
	}
	if p := r.Paths; p != nil {
		add("\npath analysis (Smith 2006 Tables 3.5, 4.5): the path in the predicted tree from each token to its gold parent,\nthe wall a node; %d tokens, %d sentences\n", p.Tokens, p.Sentences)
		add("  mean undirected path length %.2f over tokens, %.2f over sentences (macro, Table 8.9)\n", *p.Undirected.Micro, *p.Undirected.Macro)
		add("  %11s  %10s  %8s  (%% of tokens)\n", "path length", "undirected", "directed")
		longest := 0
		for _, c := range p.Undirected.ByLength {
			longest = max(longest, c.Length)
		}
		for _, c := range p.Directed.ByLength {
			longest = max(longest, c.Length)
		}
		share := func(cs []PathCount, l int) string {
			for _, c := range cs {
				if c.Length == l {
					return pct(c.Share)
				}
			}
			return pct(0)
		}
		for l := 1; l <= longest; l++ {
			add("  %11d  %10s  %8s\n", l, share(p.Undirected.ByLength, l), share(p.Directed.ByLength, l))
		}
		add("  %11s  %10s  %8s\n", "∞", "-", pct(p.Directed.Infinite.Share))
	}
	if r.ByLabel != nil {
		rows := *r.ByLabel
		n := cut(len(rows))
		add("\nrecall by gold label LR(X) (Klein 2005 §2.2.4, Fig. 5.8): gold nodes of two or more tokens, not the whole sentence%s\n", shown(n, len(rows)))
		add("  %-8s %7s %7s %7s\n", "label", "gold", "found", "recall")
		for _, row := range rows[:n] {
			add("  %-8s %7d %7d %7s\n", row.Label, row.Gold, row.Correct, pr(row.Correct, row.Gold))
		}
	}
	if r.Sequences != nil {
		for _, list := range []struct {
			what, field string
			get         func(SequenceRow) int
		}{
			{"most over-proposed (predicted, not gold; Klein 2005 Figs. 5.7, 6.7)", "over", func(r SequenceRow) int { return r.Over }},
			{"most under-proposed (gold, not predicted)", "under", func(r SequenceRow) int { return r.Under }},
			{"most often proposed crossing a gold bracket", "crossing", func(r SequenceRow) int { return r.Crossing }},
		} {
			rows := slices.DeleteFunc(slices.Clone(*r.Sequences), func(r SequenceRow) bool { return list.get(r) == 0 })
			slices.SortStableFunc(rows, func(a, b SequenceRow) int { return list.get(b) - list.get(a) })
			n := cut(len(rows))
			add("\ntag sequences %s%s\n", list.what, shown(n, len(rows)))
			add("  %-30s %8s %9s %7s\n", "sequence", list.field, "predicted", "gold")
			for _, row := range rows[:n] {
				add("  %-30s %8d %9d %7d\n", strings.Join(row.Tags, " "), list.get(row), row.Predicted, row.Gold)
			}
		}
	}
	return b
}
