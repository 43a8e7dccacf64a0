package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/stages/score"
)

// The page's analyses of tiny's two sentences, worked by hand: the
// prediction reverses VBD and NN in the first (NN under the wall, VBD its
// dependent).
func TestHeadAnalysesByHand(t *testing.T) {
	tables := headAnalyses([]*Run{tiny()}, 20)
	if len(tables) != 3 {
		t.Fatalf("%d tables, want links, distance, paths", len(tables))
	}
	rows := func(tb analysisTable) []string {
		var out []string
		for _, r := range tb.Rows {
			out = append(out, r.Key+" "+r.Shared+" "+strings.Join(r.Runs[0], " "))
		}
		return out
	}
	// Both undirected link types are found whichever way they point.
	if got, want := rows(tables[0]), []string{"NN VBD 2 2 100.0 100.0", "DT NN 1 1 100.0 100.0"}; !slices.Equal(got, want) {
		t.Errorf("links %q, want %q", got, want)
	}
	if got, want := rows(tables[1]), []string{"1 3 3 100.0 100.0"}; !slices.Equal(got, want) {
		t.Errorf("distance %q, want %q", got, want)
	}
	// Paths: DT → NN 1; NN → VBD 1 undirected, ∞ directed (VBD is below
	// it); VBD → wall 2 both ways; the second sentence 1 and 1. Means 6/5
	// over tokens, (4/3 + 1)/2 over sentences. Link types: the same
	// undirected (0 bits); directed, gold {VBD→NN 2/3, NN→DT 1/3} against
	// {VBD→NN, NN→DT, NN→VBD 1/3 each}: ½(⅔ log₂ 4/3 + ⅓ + ⅓ log₂ 2/3) =
	// 0.2075 bits.
	want := []string{"1  80.0 60.0", "2  20.0 20.0", "∞  – 20.0", "mean over tokens  1.20 –", "mean over sentences  1.17 –", "link-type divergence (bits)  0.000 0.208"}
	if got := rows(tables[2]); !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
}

// Klein's tables of a bracket run, on the two trees of stages/score's
// TestKleinAnalysesByHand, and the page that shows them.
func TestBracketAnalysesByHand(t *testing.T) {
	a := score.NewAnalyzer()
	for _, s := range []struct {
		tags []string
		tree string
		pred [][2]int
	}{
		{strings.Fields("DT JJ NN VBD IN DT NN"), "(S (NP (DT the) (JJ big) (NN dog)) (VP (VBD ran) (PP (IN to) (NP (DT the) (NN park)))))", [][2]int{{0, 7}, {0, 3}, {1, 3}, {3, 7}, {3, 5}, {5, 7}}},
		{strings.Fields("DT NN VBD"), "(S (NP-SBJ (NP (DT the) (NN dog))) (VP (VBD ran)))", [][2]int{{0, 3}, {1, 3}}},
	} {
		if err := a.AddBrackets(s.tags, s.tree, s.pred); err != nil {
			t.Fatal(err)
		}
	}
	r := &Run{Name: "ccm", Kind: Brackets, Analyses: &score.Report{}}
	a.Fill(r.Analyses, 0)
	tables := bracketAnalyses([]*Run{r}, 2)
	var got []string
	for _, tb := range tables {
		for _, row := range tb.Rows {
			got = append(got, row.Key+": "+strings.Join(row.Runs[0], ", "))
		}
	}
	want := []string{
		"NP: 4, 2, 50.0", "PP: 1, 0, 0.0", // VP (one node) cut by top 2
		"1: JJ NN (1), DT NN (1), NN VBD (1)",
		"2: NN VBD (1), IN DT NN (1), VBD IN (1)",
	}
	if !slices.Equal(got, want) || tables[0].Hidden != 1 {
		t.Errorf("rows %q (%d hidden), want %q (1 hidden)", got, tables[0].Hidden, want)
	}
	var page bytes.Buffer
	r.Brackets = &score.BracketReport{}
	if err := Write(&page, []*Run{r}, Options{Top: 2, Trees: -1}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<h2>Error analyses</h2>", "Recall by gold label LR(X)", "JJ NN (1)"} {
		if !strings.Contains(page.String(), s) {
			t.Errorf("the page lacks %q", s)
		}
	}
}
