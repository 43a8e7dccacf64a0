package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/grind-nlp/grind/stages/score"
	"github.com/grind-nlp/grind/stages/tageval"
)

// The page's error analyses: Smith's (2006) link types, precision and
// recall by distance and path analysis for the runs scored on heads,
// Klein's (2005) LR(X) and tag sequences for the runs scored on brackets,
// computed by score --analysis's code (stages/score), and for the runs
// scored on tags score-tags --analysis's (stages/tageval), runs side by
// side.

// analysisTable is one analysis: a shared column (the gold count, or
// nothing), then Cols cells per run.
type analysisTable struct {
	Title, Note string
	Shared      string   // the shared column's heading ("" for none)
	Cols        []string // each run's columns
	Names       []string // the runs
	Rows        []analysisRow
	Hidden      int // rows left out after the top ones
}

type analysisRow struct {
	Key, Shared string
	Runs        [][]string
}

// analyses computes a run's analyses (heads or brackets, by its kind);
// bracket runs already hold theirs (readBrackets).
func analyses(r *Run) *score.Report {
	if r.Analyses != nil || r.Kind != Heads {
		return r.Analyses
	}
	a := score.NewAnalyzer()
	for _, s := range r.Sentences {
		a.AddHeads(s.Tags, s.Heads, s.Pred)
	}
	r.Analyses = &score.Report{}
	a.Fill(r.Analyses, 0)
	return r.Analyses
}

// prCell is a precision or recall, "–" when there is nothing to divide.
func prCell(correct, of int) string {
	if of == 0 {
		return "–"
	}
	return score.Pct(float64(correct) / float64(of))
}

// headAnalyses are the tables of the runs scored on heads.
func headAnalyses(runs []*Run, top int) []analysisTable {
	if len(runs) == 0 {
		return nil
	}
	names := make([]string, len(runs))
	reps := make([]*score.Report, len(runs))
	for i, r := range runs {
		names[i], reps[i] = r.Name, analyses(r)
	}
	var out []analysisTable

	// Link types: every pair some run proposes or gold has, by gold count.
	gold := map[string]int{} // by the pair's tags, "DT NN"
	byRun := make([]map[string]score.LinkRow, len(runs))
	for i, rep := range reps {
		byRun[i] = map[string]score.LinkRow{}
		for _, row := range rep.Links.Undirected {
			k := strings.Join(row.Tags, " ")
			byRun[i][k] = row
			gold[k] = row.Gold
		}
	}
	keys := make([]string, 0, len(gold))
	for k := range gold {
		keys = append(keys, k)
	}
	predicted := func(k string) int {
		n := 0
		for _, m := range byRun {
			n = max(n, m[k].Predicted)
		}
		return n
	}
	slices.SortFunc(keys, func(a, b string) int {
		if gold[a] != gold[b] {
			return gold[b] - gold[a]
		}
		if pa, pb := predicted(a), predicted(b); pa != pb {
			return pb - pa
		}
		return strings.Compare(a, b)
	})
	links := analysisTable{Title: "Link types, undirected (Smith 2006, Table 3.3)",
		Note:   "Arcs between words by the unordered pair of their tags, found in either direction: how many each run predicts, their precision and the recall of the gold ones. Most gold arcs first.",
		Shared: "gold", Cols: []string{"predicted", "P", "R"}, Names: names}
	for j, k := range keys {
		if j == top {
			links.Hidden = len(keys) - top
			break
		}
		row := analysisRow{Key: k, Shared: strconv.Itoa(gold[k])}
		for i := range runs {
			l := byRun[i][k]
			row.Runs = append(row.Runs, []string{strconv.Itoa(l.Predicted), prCell(l.Correct, l.Predicted), prCell(l.Correct, gold[k])})
		}
		links.Rows = append(links.Rows, row)
	}
	out = append(out, links)

	// By distance: the distances some run or gold has.
	dist := analysisTable{Title: "Precision and recall by distance |head − dependent| (Smith 2006, Table 3.4)",
		Note:   "Arcs between words of that distance, undirected (score --analysis distance adds the directed figures of left and right dependents).",
		Shared: "gold", Cols: []string{"predicted", "P", "R"}, Names: names}
	longest := 0
	for _, rep := range reps {
		for _, row := range *rep.ByDistance {
			longest = max(longest, row.Distance)
		}
	}
	for l := 1; l <= longest; l++ {
		row := analysisRow{Key: strconv.Itoa(l)}
		for _, rep := range reps {
			u := score.PRF{}
			for _, d := range *rep.ByDistance {
				if d.Distance == l {
					u = d.Undirected
				}
			}
			row.Shared = strconv.Itoa(u.Gold) // gold is the runs' common corpus
			row.Runs = append(row.Runs, []string{strconv.Itoa(u.Predicted), prCell(u.Correct, u.Predicted), prCell(u.Correct, u.Gold)})
		}
		dist.Rows = append(dist.Rows, row)
	}
	out = append(out, dist)

	// Paths.
	paths := analysisTable{Title: "Path analysis (Smith 2006, Tables 3.5 and 8.9)",
		Note: "The path in the predicted tree from each token to its gold parent, the wall a node: % of tokens by length, undirected and directed (∞ when the gold parent is not an ancestor; length 1 is a right attachment). Then the mean undirected length over tokens and over sentences (Smith's macro-average), and the divergence of the predicted link types from gold (mean KL to the mean, bits).",
		Cols: []string{"undirected", "directed"}, Names: names}
	longest = 0
	for _, rep := range reps {
		for _, c := range rep.Paths.Undirected.ByLength {
			longest = max(longest, c.Length)
		}
		for _, c := range rep.Paths.Directed.ByLength {
			longest = max(longest, c.Length)
		}
	}
	share := func(cs []score.PathCount, l int) string {
		for _, c := range cs {
			if c.Length == l {
				return score.Pct(c.Share)
			}
		}
		return score.Pct(0)
	}
	for l := 1; l <= longest; l++ {
		row := analysisRow{Key: strconv.Itoa(l)}
		for _, rep := range reps {
			row.Runs = append(row.Runs, []string{share(rep.Paths.Undirected.ByLength, l), share(rep.Paths.Directed.ByLength, l)})
		}
		paths.Rows = append(paths.Rows, row)
	}
	summary := []struct {
		key  string
		cell func(*score.Report) []string
	}{
		{"∞", func(r *score.Report) []string { return []string{"–", score.Pct(r.Paths.Directed.Infinite.Share)} }},
		{"mean over tokens", func(r *score.Report) []string { return []string{fmt.Sprintf("%.2f", *r.Paths.Undirected.Micro), "–"} }},
		{"mean over sentences", func(r *score.Report) []string { return []string{fmt.Sprintf("%.2f", *r.Paths.Undirected.Macro), "–"} }},
		{"link-type divergence (bits)", func(r *score.Report) []string {
			return []string{fmt.Sprintf("%.3f", r.Links.Divergence.Undirected), fmt.Sprintf("%.3f", r.Links.Divergence.Directed)}
		}},
	}
	for _, s := range summary {
		row := analysisRow{Key: s.key}
		for _, rep := range reps {
			row.Runs = append(row.Runs, s.cell(rep))
		}
		paths.Rows = append(paths.Rows, row)
	}
	return append(out, paths)
}

// bracketAnalyses are the tables of the runs scored on brackets.
func bracketAnalyses(runs []*Run, top int) []analysisTable {
	if len(runs) == 0 {
		return nil
	}
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = r.Name
	}
	// LR(X): the labels of every run's gold trees (runs may test on
	// different corpora: each row shows each run's own gold count).
	labels := map[string]int{}
	for _, r := range runs {
		for _, row := range *r.Analyses.ByLabel {
			labels[row.Label] = max(labels[row.Label], row.Gold)
		}
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if labels[a] != labels[b] {
			return labels[b] - labels[a]
		}
		return strings.Compare(a, b)
	})
	lr := analysisTable{Title: "Recall by gold label LR(X) (Klein 2005, §2.2.4, Fig. 5.8)",
		Note: "Gold nodes of two or more tokens, not the whole sentence, that are predicted brackets.",
		Cols: []string{"gold", "found", "recall"}, Names: names}
	for j, k := range keys {
		if j == top {
			lr.Hidden = len(keys) - top
			break
		}
		row := analysisRow{Key: k}
		for _, r := range runs {
			cell := []string{"0", "0", "–"}
			for _, x := range *r.Analyses.ByLabel {
				if x.Label == k {
					cell = []string{strconv.Itoa(x.Gold), strconv.Itoa(x.Correct), prCell(x.Correct, x.Gold)}
				}
			}
			row.Runs = append(row.Runs, cell)
		}
		lr.Rows = append(lr.Rows, row)
	}
	seq := analysisTable{Title: "Tag sequences most often mis-bracketed (Klein 2005, Figs. 5.7 and 6.7)",
		Note: "For each run, the yields most often predicted and not gold (over), gold and not predicted (under), and predicted crossing a gold bracket, with their counts.",
		Cols: []string{"over", "under", "crossing"}, Names: names}
	lists := make([][3][]string, len(runs))
	rows := 0
	for i, r := range runs {
		for f, get := range []func(score.SequenceRow) int{
			func(s score.SequenceRow) int { return s.Over },
			func(s score.SequenceRow) int { return s.Under },
			func(s score.SequenceRow) int { return s.Crossing },
		} {
			ss := slices.DeleteFunc(slices.Clone(*r.Analyses.Sequences), func(s score.SequenceRow) bool { return get(s) == 0 })
			slices.SortStableFunc(ss, func(a, b score.SequenceRow) int { return get(b) - get(a) })
			for _, s := range ss[:min(len(ss), top)] {
				lists[i][f] = append(lists[i][f], fmt.Sprintf("%s (%d)", strings.Join(s.Tags, " "), get(s)))
			}
			rows = max(rows, len(lists[i][f]))
		}
	}
	for k := range rows {
		row := analysisRow{Key: strconv.Itoa(k + 1)}
		for i := range runs {
			cell := make([]string, 3)
			for f := range 3 {
				if k < len(lists[i][f]) {
					cell[f] = lists[i][f][k]
				}
			}
			row.Runs = append(row.Runs, cell)
		}
		seq.Rows = append(seq.Rows, row)
	}
	return []analysisTable{lr, seq}
}

// tagAnalyses are the tables of the runs scored on tags, from the
// analyses score-tags --analysis all computes (readTags).
func tagAnalyses(runs []*Run, top int) []analysisTable {
	if len(runs) == 0 {
		return nil
	}
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = r.Name
	}
	// Gold tags by tokens: the runs may be scored on different corpora,
	// so each run's cells say its own figures and the shared column the
	// largest.
	goldN := map[string]int{}
	for _, r := range runs {
		for _, row := range *r.TagScores.ByGoldTag {
			goldN[row.Tag] = max(goldN[row.Tag], row.Tokens)
		}
	}
	gold := slices.SortedFunc(maps.Keys(goldN), func(a, b string) int {
		return cmp.Or(goldN[b]-goldN[a], strings.Compare(a, b))
	})
	hidden := func(n int) int { return max(0, n-top) }

	byTag := analysisTable{Title: "Precision, recall and F1 by gold tag under the many-to-1 and 1-to-1 maps",
		Note:   "Every token given the gold tag its induced tag maps to: F1 of each gold tag under the many-to-1 map (tags: how many induced tags that map gives the gold tag) and under the greedy 1-to-1 map; score-tags --analysis tags has precision and recall too. The most frequent gold tags first.",
		Shared: "gold", Cols: []string{"tags", "M-1 F1", "1-to-1 F1"}, Names: names, Hidden: hidden(len(gold))}
	spread := analysisTable{Title: "Gold tags spread over the induced tags",
		Note:   "The induced tags a gold tag's tokens are given, the first three with their % of its tokens, and how many in all (score-tags --analysis confusion has the table both ways).",
		Shared: "gold", Cols: []string{"induced tags"}, Names: names, Hidden: hidden(len(gold))}
	for _, g := range gold[:min(len(gold), top)] {
		row := analysisRow{Key: g, Shared: strconv.Itoa(goldN[g])}
		srow := analysisRow{Key: g, Shared: strconv.Itoa(goldN[g])}
		for _, r := range runs {
			cell := []string{"0", "–", "–"}
			for _, x := range *r.TagScores.ByGoldTag {
				if x.Tag == g {
					cell = []string{strconv.Itoa(x.ManyToOneTags), score.Pct(x.ManyToOne.F1), score.Pct(x.OneToOne.F1)}
				}
			}
			row.Runs = append(row.Runs, cell)
			scell := "–"
			for _, x := range r.TagScores.Confusion.Gold {
				if x.Tag == g {
					scell = tageval.Cells(x.Induced, 3)
				}
			}
			srow.Runs = append(srow.Runs, []string{scell})
		}
		byTag.Rows = append(byTag.Rows, row)
		spread.Rows = append(spread.Rows, srow)
	}

	// Sizes and words: row k is each run's k-th largest induced tag.
	longest := 0
	for _, r := range runs {
		longest = max(longest, len(r.TagScores.Sizes.Induced), len(r.TagScores.Sizes.Gold))
	}
	sizes := analysisTable{Title: "Tokens per tag, largest first (Johnson 2007)",
		Note:   "The k-th largest gold tag (the first run's corpus) beside each run's k-th largest induced tag, % of all tokens: Johnson (2007) found EM's states far more uniform in size than the gold tags.",
		Shared: "gold tag (%)", Cols: []string{"induced", "%"}, Names: names, Hidden: hidden(longest)}
	first := runs[0].TagScores.Sizes.Gold
	for k := range min(longest, top) {
		row := analysisRow{Key: strconv.Itoa(k + 1), Shared: "–"}
		if k < len(first) {
			row.Shared = fmt.Sprintf("%s (%s)", first[k].Tag, score.Pct(first[k].Share))
		}
		for _, r := range runs {
			cell := []string{"–", "–"}
			if in := r.TagScores.Sizes.Induced; k < len(in) {
				cell = []string{in[k].Tag, score.Pct(in[k].Share)}
			}
			row.Runs = append(row.Runs, cell)
		}
		sizes.Rows = append(sizes.Rows, row)
	}
	out := []analysisTable{byTag, spread, sizes}

	words := analysisTable{Title: "The most frequent words of each induced tag (Klein 2005, Fig. 5.9)",
		Note: "Each run's induced tags, largest first: its tokens, its many-to-1 gold tag and its five most frequent words (score-tags --analysis words lists ten, with their shares).",
		Cols: []string{"induced", "tokens", "M-1", "words"}, Names: names}
	longest = 0
	for _, r := range runs {
		if w := r.TagScores.Words; w != nil {
			longest = max(longest, len(*w))
		}
	}
	words.Hidden = hidden(longest)
	for k := range min(longest, top) {
		row := analysisRow{Key: strconv.Itoa(k + 1)}
		for _, r := range runs {
			cell := []string{"–", "", "", ""}
			if w := r.TagScores.Words; w != nil && k < len(*w) {
				x := (*w)[k]
				ws := make([]string, 0, 5)
				for _, c := range x.Words[:min(len(x.Words), 5)] {
					ws = append(ws, c.Word)
				}
				cell = []string{x.Tag, strconv.Itoa(x.Tokens), x.ManyToOne, strings.Join(ws, " ")}
			}
			row.Runs = append(row.Runs, cell)
		}
		words.Rows = append(words.Rows, row)
	}
	if longest > 0 {
		out = append(out, words)
	}
	return out
}
