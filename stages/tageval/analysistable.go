package tageval

import (
	"fmt"
	"strings"

	"github.com/grind-nlp/grind/stages/score"
)

// CellsShown is how many cells of a confusion row the tables for people
// show (the JSON has them all).
const CellsShown = 5

// Cells writes the first n tags of cs with their shares (percentages),
// and how many there are in all when there are more.
func Cells(cs []TagCount, n int) string {
	parts := make([]string, 0, n+1)
	for _, c := range cs[:min(len(cs), n)] {
		parts = append(parts, c.Tag+" "+score.Pct(c.Share))
	}
	if len(cs) > n {
		parts = append(parts, fmt.Sprintf("… (%d)", len(cs)))
	}
	return strings.Join(parts, ", ")
}

// AppendAnalyses appends to b the tables for people of r's analyses, each
// after a blank line, every table cut to its top rows (0: all);
// percentages to one decimal.
func AppendAnalyses(b []byte, r Report, top int) []byte {
	add := func(format string, args ...any) { b = fmt.Appendf(b, format, args...) }
	pct, shown := score.Pct, score.Shown
	cut := func(n int) int { return score.TopRows(n, top) }
	cells := func(cs []TagCount) string { return Cells(cs, CellsShown) }
	if c := r.Confusion; c != nil {
		n := cut(len(c.Induced))
		add("\ninduced tags against gold tags: each induced tag's tokens, the gold tag the many-to-1 and the 1-to-1 map give it,\nand the gold tags of its tokens (%% of its tokens), largest first%s\n", shown(n, len(c.Induced)))
		add("  %-10s %8s %-8s %-8s %s\n", "induced", "tokens", "M-1", "1-to-1", "gold tags")
		for _, row := range c.Induced[:n] {
			o := row.OneToOne
			if o == "" {
				o = "-"
			}
			add("  %-10s %8d %-8s %-8s %s\n", row.Tag, row.Tokens, row.ManyToOne, o, cells(row.Gold))
		}
		n = cut(len(c.Gold))
		add("\ngold tags spread over the induced tags (%% of the gold tag's tokens), largest first%s\n", shown(n, len(c.Gold)))
		add("  %-10s %8s %s\n", "gold", "tokens", "induced tags")
		for _, row := range c.Gold[:n] {
			add("  %-10s %8d %s\n", row.Tag, row.Tokens, cells(row.Induced))
		}
	}
	if r.ByGoldTag != nil {
		rows := *r.ByGoldTag
		n := cut(len(rows))
		named := len(rows) > 0 && rows[0].Named != nil
		add("\nprecision, recall and F1 by gold tag, each token given the gold tag its induced tag maps to: under the many-to-1 map\n(tags: how many induced tags map to it) and the 1-to-1 one")
		if named {
			add(", and the induced tag itself (named)")
		}
		add("%s\n", shown(n, len(rows)))
		add("  %-10s %8s  %4s %8s %5s %5s %5s  %8s %5s %5s %5s", "gold", "tokens", "tags", "M-1 pred", "P", "R", "F1", "1-1 pred", "P", "R", "F1")
		if named {
			add("  %8s %5s %5s %5s", "named", "P", "R", "F1")
		}
		add("\n")
		prf := func(p score.PRF) string {
			return fmt.Sprintf("%8d %5s %5s %5s", p.Predicted, pct(p.Precision), pct(p.Recall), pct(p.F1))
		}
		for _, row := range rows[:n] {
			add("  %-10s %8d  %4d %s  %s", row.Tag, row.Tokens, row.ManyToOneTags, prf(row.ManyToOne), prf(row.OneToOne))
			if row.Named != nil {
				add("  %s", prf(*row.Named))
			}
			add("\n")
		}
	}
	if s := r.Sizes; s != nil {
		longest := max(len(s.Gold), len(s.Induced))
		n := cut(longest)
		add("\ntokens of each tag, largest first, gold tags beside induced ones (Johnson 2007: EM's states are far more\nuniform in size than the gold tags); %% of all tokens, then cumulative%s\n", shown(n, longest))
		add("  %4s  %-10s %8s %6s %6s  %-10s %8s %6s %6s\n", "rank", "gold", "tokens", "%", "cum.", "induced", "tokens", "%", "cum.")
		var cumG, cumI float64
		side := func(cs []TagCount, k int, cum *float64) string {
			if k >= len(cs) {
				return fmt.Sprintf("%-10s %8s %6s %6s", "", "", "", "")
			}
			*cum += cs[k].Share
			return fmt.Sprintf("%-10s %8d %6s %6s", cs[k].Tag, cs[k].Tokens, pct(cs[k].Share), pct(*cum))
		}
		for k := range n {
			add("  %4d  %s  %s\n", k+1, side(s.Gold, k, &cumG), side(s.Induced, k, &cumI))
		}
	}
	if r.Words != nil {
		rows := *r.Words
		n := cut(len(rows))
		add("\nthe most frequent words of each induced tag (Klein 2005, Fig. 5.9), largest first, with its tokens, distinct words\nand many-to-1 gold tag; %% of its tokens%s\n", shown(n, len(rows)))
		add("  %-10s %8s %6s %-8s %s\n", "induced", "tokens", "words", "M-1", "most frequent words")
		for _, row := range rows[:n] {
			words := make([]string, len(row.Words))
			for k, w := range row.Words {
				words[k] = w.Word + " " + pct(w.Share)
			}
			add("  %-10s %8d %6d %-8s %s\n", row.Tag, row.Tokens, row.Types, row.ManyToOne, strings.Join(words, ", "))
		}
	}
	return b
}
