package report

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/plotcurve"
	"github.com/grind-nlp/grind/stages/score"
)

// tiny is a hand-made run of two sentences whose tables are worked out by
// hand below. In the first, DT is right, NN is attached to the root
// instead of VBD, and VBD under NN reverses a gold arc.
func tiny() *Run {
	return &Run{Name: "A", Parsed: "a.jsonl", Sentences: []*format.Sentence{
		{ID: "s1", Words: []string{"The", "<dog>", `&"ran'`}, Tags: []string{"DT", "NN", "VBD"}, Heads: []int{2, 3, 0}, Pred: []int{2, 0, 2}},
		{ID: "s2", Words: []string{"Dogs", "run"}, Tags: []string{"NN", "VBD"}, Heads: []int{2, 0}, Pred: []int{2, 0}},
	}}
}

func TestBreakdownByHand(t *testing.T) {
	tb := Breakdown(tiny().Sentences)
	want := map[string][]Row{
		"tag": {
			{"NN", score.Tally{Tokens: 2, Directed: 1, Undirected: 1, DirectedArcs: 1, UndirectedArcs: 1, PredictedArcs: 1, GoldArcs: 2}},
			{"VBD", score.Tally{Tokens: 2, Directed: 1, Undirected: 2, UndirectedArcs: 1, PredictedArcs: 1}},
			{"DT", score.Tally{Tokens: 1, Directed: 1, Undirected: 1, DirectedArcs: 1, UndirectedArcs: 1, PredictedArcs: 1, GoldArcs: 1}},
		},
		"pair": {
			{"ROOT → VBD", score.Tally{Tokens: 2, Directed: 1, Undirected: 2, UndirectedArcs: 1, PredictedArcs: 1}},
			{"VBD → NN", score.Tally{Tokens: 2, Directed: 1, Undirected: 1, DirectedArcs: 1, UndirectedArcs: 1, PredictedArcs: 1, GoldArcs: 2}},
			{"NN → DT", score.Tally{Tokens: 1, Directed: 1, Undirected: 1, DirectedArcs: 1, UndirectedArcs: 1, PredictedArcs: 1, GoldArcs: 1}},
		},
		"length": {
			{"root", score.Tally{Tokens: 2, Directed: 1, Undirected: 2, UndirectedArcs: 1, PredictedArcs: 1}},
			{"1", score.Tally{Tokens: 3, Directed: 2, Undirected: 2, DirectedArcs: 2, UndirectedArcs: 2, PredictedArcs: 2, GoldArcs: 3}},
		},
	}
	got := map[string][]Row{"tag": tb.ByTag, "pair": tb.ByPair, "length": tb.ByLength}
	for name, rows := range want {
		if len(got[name]) != len(rows) {
			t.Fatalf("by %s: %d rows %+v, want %d", name, len(got[name]), got[name], len(rows))
		}
		for i, r := range rows {
			if got[name][i] != r {
				t.Errorf("by %s row %d = %+v, want %+v", name, i, got[name][i], r)
			}
		}
	}
}

// Every breakdown partitions the tokens: its rows add up to what score
// counts for the whole corpus (sentences aside).
func TestBreakdownAddsUpToScore(t *testing.T) {
	run := tiny()
	sc := score.NewScorer()
	for _, s := range run.Sentences {
		sc.Add(s.Heads, s.Pred)
	}
	want := sc.Total()
	want.Sentences = 0
	tb := Breakdown(run.Sentences)
	for name, rows := range map[string][]Row{"tag": tb.ByTag, "pair": tb.ByPair, "length": tb.ByLength} {
		var sum score.Tally
		for _, r := range rows {
			sum.Merge(r.Tally)
		}
		if sum != want {
			t.Errorf("by %s: rows add up to %+v, score's total is %+v", name, sum, want)
		}
	}
	if tb.Total != sc.Total() {
		t.Errorf("total %+v, score's %+v", tb.Total, sc.Total())
	}
}

// score.SignTestP (the sign test the report uses) against the binomial sum in exact rational arithmetic.
func TestSignPExact(t *testing.T) {
	for n := 0; n <= 30; n++ {
		for w := 0; w <= n; w++ {
			k := min(w, n-w)
			sum := new(big.Rat)
			for i := 0; i <= k; i++ {
				sum.Add(sum, new(big.Rat).SetFrac(new(big.Int).Binomial(int64(n), int64(i)), new(big.Int).Lsh(big.NewInt(1), uint(n))))
			}
			exact, _ := sum.Mul(sum, big.NewRat(2, 1)).Float64()
			exact = math.Min(1, exact)
			if got := score.SignTestP(w, n-w); math.Abs(got-exact) > 1e-12*math.Max(1, exact) && math.Abs(got-exact) > 1e-15 {
				t.Errorf("score.SignTestP(%d, %d) = %g, want %g", w, n-w, got, exact)
			}
		}
	}
	// Thousands of sentences: 2^-n underflows, the log-space sum does not.
	if p := score.SignTestP(4000, 6000); !(p > 0 && p < 1e-80) {
		t.Errorf("score.SignTestP(4000, 6000) = %g, want a tiny positive number", p)
	}
}

func TestSign(t *testing.T) {
	a := tiny()
	b := tiny()
	b.Name = "B"
	b.Sentences[0] = &format.Sentence{Tags: a.Sentences[0].Tags, Heads: a.Sentences[0].Heads, Pred: []int{2, 3, 0}} // all right: a win
	b.Sentences[1] = &format.Sentence{Tags: a.Sentences[1].Tags, Heads: a.Sentences[1].Heads, Pred: []int{0, 1}}    // none right: a loss
	got := Sign(a, b)
	if want := (SignTest{Wins: 1, Losses: 1, Ties: 0, P: 1}); got != want {
		t.Errorf("Sign = %+v, want %+v", got, want)
	}
	if got := Sign(a, a); got != (SignTest{Ties: 2, P: 1}) {
		t.Errorf("a run against itself: %+v", got)
	}
}

func TestWriteEscapesAndStaysOffline(t *testing.T) {
	a := tiny()
	a.Name = `<b>"A"&`
	a.Log = &plotcurve.Series{File: "a.log", Name: a.Name, Iterations: []format.Iteration{{Iter: 1, Objective: -50}, {Iter: 2, Objective: -40}}}
	b := tiny()
	b.Name = "B"
	var buf bytes.Buffer
	if err := Write(&buf, []*Run{a, b}, Options{Title: "<title>"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"<dog>", `<b>"A"`, "<title><title>", "<script", "<link", "src=", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	for _, good := range []string{"&lt;dog&gt;", "&lt;b&gt;", "&lt;title&gt;", "Sign tests against", "ROOT → VBD", `class="bad"`, "Learning curves", "<svg"} {
		if !strings.Contains(page, good) {
			t.Errorf("page lacks %q", good)
		}
	}
}

func TestWriteRefusesDifferentCorpora(t *testing.T) {
	a, b := tiny(), tiny()
	b.Name = "B"
	b.Sentences[1] = &format.Sentence{Tags: []string{"NN", "VBZ"}, Heads: []int{2, 0}, Pred: []int{2, 0}}
	err := Write(&bytes.Buffer{}, []*Run{a, b}, Options{})
	if err == nil || !strings.Contains(err.Error(), "sentence 2 of run \"B\"") {
		t.Errorf("err = %v, want sentence 2 of run B named", err)
	}
}

// The diagram marks exactly the wrong predicted arcs.
func TestArcDiagramMarksErrors(t *testing.T) {
	svg := ArcDiagram(tiny().Sentences[0])
	if n := strings.Count(svg, `class="bad"`); n != 2 {
		t.Errorf("%d wrong arcs drawn, want 2", n)
	}
	if n := strings.Count(svg, `class="ok"`); n != 1 {
		t.Errorf("%d right arcs drawn, want 1", n)
	}
	if n := strings.Count(svg, `class="gold"`); n != 3 {
		t.Errorf("%d gold arcs drawn, want 3", n)
	}
	if !strings.Contains(svg, "&amp;&#34;ran&#39;") {
		t.Errorf("word not escaped: %s", svg)
	}
}

func TestPickTrees(t *testing.T) {
	sent := func(pred ...int) *format.Sentence {
		return &format.Sentence{Tags: []string{"A", "B", "C", "D"}, Heads: []int{2, 0, 2, 3}, Pred: pred}
	}
	a := &Run{Sentences: []*format.Sentence{
		sent(2, 0, 2, 3), // all right
		sent(0, 1, 2, 3), // partly right
		{Tags: []string{"A", "B"}, Heads: []int{0, 1}, Pred: []int{2, 0}}, // too short
		sent(3, 0, 2, 3), // partly right
	}}
	if got := pickTrees([]*Run{a}, 3); fmt.Sprint(got) != "[1 3 0]" {
		t.Errorf("one run: picked %v, want [1 3 0]", got)
	}
	b := &Run{Sentences: []*format.Sentence{a.Sentences[0], a.Sentences[1], a.Sentences[2], sent(2, 0, 2, 3)}}
	if got := pickTrees([]*Run{a, b}, 4); fmt.Sprint(got) != "[3 0 1 2]" {
		t.Errorf("two runs: picked %v, want [3 0 1 2]", got)
	}
}

// TestMarkBest: the best figure of a row or column is marked, ties all,
// lower where lower is better, "–" not compared, nothing with one figure.
func TestMarkBest(t *testing.T) {
	for _, tc := range []struct {
		texts []string
		lower bool
		want  []bool
	}{
		{[]string{"41.3", "52.0", "47.9"}, false, []bool{false, true, false}},
		{[]string{"41.3", "41.3", "40.0"}, false, []bool{true, true, false}},
		{[]string{"2.310", "1.905"}, true, []bool{false, true}},
		{[]string{"–", "12.5", "–"}, false, []bool{false, false, false}},
		{[]string{"–", "12.5", "13.0"}, false, []bool{false, false, true}},
		{[]string{"99.0"}, false, []bool{false}},
	} {
		cs := make([]*cell, len(tc.texts))
		for i, s := range tc.texts {
			cs[i] = &cell{Text: s}
		}
		markBest(cs, tc.lower)
		for i, c := range cs {
			if c.Best != tc.want[i] {
				t.Errorf("%q (lower %v): cell %d best %v, want %v", tc.texts, tc.lower, i, c.Best, tc.want[i])
			}
		}
	}
}

// TestWriteBoldsTheBestRun: in the runs table and in each breakdown row
// the better run's figure is bold; the curves are drawn at the page's
// width, their accuracies marked as the training set's.
func TestWriteBoldsTheBestRun(t *testing.T) {
	a, b := tiny(), tiny()
	b.Name = "B"
	b.Sentences[0] = &format.Sentence{ID: "s1", Words: a.Sentences[0].Words, Tags: a.Sentences[0].Tags, Heads: []int{2, 3, 0}, Pred: []int{2, 3, 0}}
	dir := 0.5
	a.Log = &plotcurve.Series{File: "a.log", Name: "A", Iterations: []format.Iteration{{Iter: 1, Objective: -10, Directed: &dir}, {Iter: 2, Objective: -9, Directed: &dir}}}
	var buf bytes.Buffer
	if err := Write(&buf, []*Run{a, b}, Options{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	// B gets every token right: 100.0 in bold, A's 60.0 not.
	for _, want := range []string{`<td>B</td>`, `<td class="n best">100.0</td>`, `<td class="n first best">100.0</td>`, `<td class="n first">50.0</td>`,
		`training-set accuracy (%)`, `width="756pt"`} {
		if !strings.Contains(page, want) {
			t.Errorf("no %q on the page", want)
		}
	}
	if strings.Contains(page, `<td class="n best">60.0</td>`) {
		t.Error("the worse run's 60.0 is bold")
	}
}
