package score

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/golden"
	"github.com/grind-nlp/grind/pipeline"
)

// Hand-computed tallies, one per scoring rule.
func TestTallyRules(t *testing.T) {
	cases := []struct {
		name        string
		gold, pred  []int
		want        Tally
		countedDir  float64
		excludedDir PRF
		excludedUnd PRF
	}{
		{
			// Gold: 2 is the root with dependents 1 and 3; prediction is
			// head = previous word. 2→1 is gold 1→2 reversed.
			name: "attach left", gold: []int{2, 0, 2}, pred: []int{0, 1, 2},
			want: Tally{Sentences: 1, Tokens: 3, Directed: 1, Undirected: 2,
				DirectedArcs: 1, UndirectedArcs: 2, PredictedArcs: 2, GoldArcs: 2},
			countedDir:  1.0 / 3,
			excludedDir: PRF{1, 2, 2, 0.5, 0.5, 0.5},
			excludedUnd: PRF{2, 2, 2, 1, 1, 1},
		},
		{
			// A wrongly predicted root is wrong undirected too, even though
			// the arc it displaced is reversed correctly (1→2 for 2→1).
			name: "undirected root", gold: []int{0, 1}, pred: []int{2, 0},
			want: Tally{Sentences: 1, Tokens: 2, Directed: 0, Undirected: 1,
				DirectedArcs: 0, UndirectedArcs: 1, PredictedArcs: 1, GoldArcs: 1},
			countedDir:  0,
			excludedDir: PRF{0, 1, 1, 0, 0, 0},
			excludedUnd: PRF{1, 1, 1, 1, 1, 1},
		},
		{
			// Two gold roots: excluded precision and recall differ.
			name: "two gold roots", gold: []int{0, 0, 2}, pred: []int{2, 0, 2},
			want: Tally{Sentences: 1, Tokens: 3, Directed: 2, Undirected: 2,
				DirectedArcs: 1, UndirectedArcs: 1, PredictedArcs: 2, GoldArcs: 1},
			countedDir:  2.0 / 3,
			excludedDir: PRF{1, 2, 1, 0.5, 1, 2.0 / 3},
			excludedUnd: PRF{1, 2, 1, 0.5, 1, 2.0 / 3},
		},
		{
			// Two predicted roots, one of them the gold root.
			name: "two predicted roots", gold: []int{2, 0, 2}, pred: []int{0, 0, 2},
			want: Tally{Sentences: 1, Tokens: 3, Directed: 2, Undirected: 2,
				DirectedArcs: 1, UndirectedArcs: 1, PredictedArcs: 1, GoldArcs: 2},
			countedDir:  2.0 / 3,
			excludedDir: PRF{1, 1, 2, 1, 0.5, 2.0 / 3},
			excludedUnd: PRF{1, 1, 2, 1, 0.5, 2.0 / 3},
		},
		{
			// A reversed arc far from the root: gold 3→4, predicted 4→3.
			name: "reversed inner arc", gold: []int{0, 1, 4, 2}, pred: []int{0, 1, 2, 3},
			want: Tally{Sentences: 1, Tokens: 4, Directed: 2, Undirected: 3,
				DirectedArcs: 1, UndirectedArcs: 2, PredictedArcs: 3, GoldArcs: 3},
			countedDir:  0.5,
			excludedDir: PRF{1, 3, 3, 1.0 / 3, 1.0 / 3, 1.0 / 3},
			excludedUnd: PRF{2, 3, 3, 2.0 / 3, 2.0 / 3, 2.0 / 3},
		},
		{
			// One word: nothing to score without the root, and no NaN.
			name: "one word", gold: []int{0}, pred: []int{0},
			want:        Tally{Sentences: 1, Tokens: 1, Directed: 1, Undirected: 1},
			countedDir:  1,
			excludedDir: PRF{},
			excludedUnd: PRF{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got Tally
			got.Add(c.gold, c.pred)
			if got != c.want {
				t.Fatalf("tally %+v, want %+v", got, c.want)
			}
			if a := got.Counted().Directed.Accuracy; !close(a, c.countedDir) {
				t.Errorf("counted directed %v, want %v", a, c.countedDir)
			}
			ex := got.Excluded()
			if !samePRF(ex.Directed, c.excludedDir) {
				t.Errorf("excluded directed %+v, want %+v", ex.Directed, c.excludedDir)
			}
			if !samePRF(ex.Undirected, c.excludedUnd) {
				t.Errorf("excluded undirected %+v, want %+v", ex.Undirected, c.excludedUnd)
			}
		})
	}
}

func close(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func samePRF(a, b PRF) bool {
	return a.Correct == b.Correct && a.Predicted == b.Predicted && a.Gold == b.Gold &&
		close(a.Precision, b.Precision) && close(a.Recall, b.Recall) && close(a.F1, b.F1)
}

// randomTree draws a head array with one root and no cycle (not
// necessarily projective): attach words in random order to words already
// in the tree.
func randomTree(rng *rand.Rand, n int) []int {
	order := rng.Perm(n)
	heads := make([]int, n)
	heads[order[0]] = 0
	for k := 1; k < n; k++ {
		heads[order[k]] = order[rng.IntN(k)] + 1
	}
	return heads
}

// With one root on both sides, Smith's F1 is accuracy over n−1 arcs, and
// the counted score adds exactly the root attachment.
func TestSingleRootProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := 1 + rng.IntN(12)
		gold, pred := randomTree(rng, n), randomTree(rng, n)
		if err := format.ValidateHeads(gold, n); err != nil {
			t.Fatal(err)
		}
		var tl Tally
		tl.Add(gold, pred)
		if tl.PredictedArcs != n-1 || tl.GoldArcs != n-1 {
			t.Fatalf("%v %v: %d predicted, %d gold arcs", gold, pred, tl.PredictedArcs, tl.GoldArcs)
		}
		rootRight := 0
		for i := range pred {
			if pred[i] == 0 && gold[i] == 0 {
				rootRight = 1
			}
		}
		if tl.Directed != tl.DirectedArcs+rootRight || tl.Undirected != tl.UndirectedArcs+rootRight {
			t.Fatalf("%v %v: counted %+v does not add the root to excluded", gold, pred, tl)
		}
		if tl.DirectedArcs > tl.UndirectedArcs {
			t.Fatalf("%v %v: more directed than undirected", gold, pred)
		}
		ex := tl.Excluded()
		if n > 1 && !close(ex.Directed.F1, float64(tl.DirectedArcs)/float64(n-1)) {
			t.Fatalf("F1 %v is not accuracy over n-1", ex.Directed.F1)
		}
		// Scoring gold against itself is perfect under every measure.
		var self Tally
		self.Add(gold, gold)
		if self.Directed != n || self.Undirected != n || self.DirectedArcs != n-1 || self.UndirectedArcs != n-1 {
			t.Fatalf("gold against itself: %+v", self)
		}
	}
}

func run(t *testing.T, input string, opts Options) (string, error) {
	t.Helper()
	var out bytes.Buffer
	src := pipeline.Source{Stdin: strings.NewReader(input)}
	err := Score(src, &out, opts)
	return out.String(), err
}

const corpus = `{"id":"a","words":["The","cat","sat"],"tags":["DT","NN","VBD"],"heads":[2,3,0],"pred":[2,3,0]}
{"id":"b","tags":["NN","VBD"],"heads":[2,0],"pred":[0,1]}
{"id":"c","tags":["DT","NN","VBD"],"heads":[2,3,0],"pred":[0,1,2]}
{"id":"d","tags":["NN"],"heads":[0],"pred":[0]}
`

// The report of a small corpus, against hand-computed numbers.
func TestScoreReport(t *testing.T) {
	out, err := run(t, corpus, Options{JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := format.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// Tokens 3+2+3+1 = 9. Directed: 3 + 0 + 0 + 1 = 4. Undirected: 3 + 1
	// (2→1 reverses 1→2) + 2 (1→2, 2→3 reverse) + 1 = 7.
	// Excluded: predicted arcs 2+1+2+0 = 5, gold 2+1+2+0 = 5, directed
	// correct 2, undirected 2+1+2 = 5.
	if r.Sentences != 4 || r.Tokens != 9 || r.Root != RootCounted {
		t.Fatalf("sizes: %+v", r)
	}
	if r.Counted.Directed != (Accuracy{4, 9, 4.0 / 9}) || r.Counted.Undirected != (Accuracy{7, 9, 7.0 / 9}) {
		t.Errorf("counted %+v", r.Counted)
	}
	if !samePRF(r.Excluded.Directed, PRF{2, 5, 5, 0.4, 0.4, 0.4}) || !samePRF(r.Excluded.Undirected, PRF{5, 5, 5, 1, 1, 1}) {
		t.Errorf("excluded %+v", r.Excluded)
	}
	if r.Directed != 4.0/9 || r.Undirected != 7.0/9 {
		t.Errorf("headline %v %v", r.Directed, r.Undirected)
	}
	want := []LengthRow{{1, 1, 1, 1, 1}, {2, 1, 2, 0, 0.5}, {3, 2, 6, 0.5, 5.0 / 6}}
	if len(r.ByLength) != len(want) {
		t.Fatalf("by_length %+v", r.ByLength)
	}
	for i, row := range r.ByLength {
		w := want[i]
		if row.Length != w.Length || row.Sentences != w.Sentences || row.Tokens != w.Tokens ||
			!close(row.Directed, w.Directed) || !close(row.Undirected, w.Undirected) {
			t.Errorf("by_length[%d] = %+v, want %+v", i, row, w)
		}
	}

	out, err = run(t, corpus, Options{JSON: true, Root: RootExcluded})
	if err != nil {
		t.Fatal(err)
	}
	r = Report{}
	if err := format.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Root != RootExcluded || r.Directed != 0.4 || r.Undirected != 1 {
		t.Errorf("excluded headline: %s", out)
	}
	// One-word sentences have no arc to score: 0, never NaN.
	if row := r.ByLength[0]; row.Length != 1 || row.Directed != 0 || row.Undirected != 0 {
		t.Errorf("length 1 excluded: %+v", row)
	}
}

// The JSON line's field names and order are part of the interface.
func TestScoreJSONShape(t *testing.T) {
	out, err := run(t, corpus, Options{JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("not one line: %q", out)
	}
	prefix := `{"sentences":4,"tokens":9,"root":"count","directed":0.4444444444444444,"undirected":0.7777777777777778,` +
		`"counted":{"directed":{"correct":4,"total":9,"accuracy":0.4444444444444444},`
	if !strings.HasPrefix(out, prefix) {
		t.Errorf("got %s\nwant prefix %s", out, prefix)
	}
	for _, key := range []string{`"excluded":{"directed":{"correct":2,"predicted":5,"gold":5,"precision":0.4,"recall":0.4,"f1":0.4}`,
		`"by_length":[{"length":1,"sentences":1,"tokens":1,"directed":1,"undirected":1},`} {
		if !strings.Contains(out, key) {
			t.Errorf("%s lacks %s", out, key)
		}
	}
}

// The table for people, as a golden file.
func TestScoreTableGolden(t *testing.T) {
	for _, root := range []Convention{RootCounted, RootExcluded} {
		out, err := run(t, corpus, Options{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "table-"+string(root)+".golden"), []byte(out))
	}
}

func TestScoreErrors(t *testing.T) {
	cases := []struct{ input, want string }{
		{``, "no sentences to score"},
		{"\n\n", "no sentences to score"},
		{`{"tags":["A","B"],"heads":[0,1]}`, `<stdin>:1: sentence has no prediction "pred" to score`},
		{`{"tags":["A","B"],"pred":[0,1]}`, `<stdin>:1: sentence has no gold "heads" to score against`},
		{`{"tags":["A","B"]}`, `<stdin>:1: sentence has neither gold "heads" nor "pred" to score`},
		{"\n" + `{"tags":["A","B"],"heads":[0,1],"pred":[0,1,1]}`, `<stdin>:2: pred: 3 heads for 2 tokens`},
		{`{"tags":["A","B"],"heads":[0,1],"pred":[2,1]}`, `<stdin>:1: pred: cycle in heads through token`},
		{`{"tags":["A","B"],"heads":[0,1],"pred":[0,1]`, `<stdin>:1: invalid JSON`},
	}
	for _, c := range cases {
		_, err := run(t, c.input, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("input %q: error %v, want %q", c.input, err, c.want)
		}
	}
	if _, err := run(t, "", Options{}); !errors.Is(err, ErrNoSentences) {
		t.Errorf("empty input: %v is not ErrNoSentences", err)
	}
}

// --skip-bad scores the good sentences and counts the others.
func TestScoreSkipBad(t *testing.T) {
	input := `{"tags":["A","B"],"heads":[0,1]}
{"tags":["A","B"],"heads":[0,1],"pred":[0,1]}
not json
`
	bad := &pipeline.BadRecords{Skip: true}
	var out bytes.Buffer
	err := Score(pipeline.Source{Stdin: strings.NewReader(input), Bad: bad}, &out, Options{JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	if bad.Count != 2 || !strings.HasPrefix(out.String(), `{"sentences":1,"tokens":2,"root":"count","directed":1,`) {
		t.Errorf("skipped %d, report %s", bad.Count, out.String())
	}
}

// --gold scores predictions that dropped gold heads against a gold file,
// by order, checking the tags.
func TestScoreGoldFile(t *testing.T) {
	dir := t.TempDir()
	goldPath := filepath.Join(dir, "gold.jsonl")
	goldText := `{"tags":["NN","VBD"],"heads":[2,0]}

{"tags":["DT","NN","VBD"],"heads":[2,3,0]}
`
	if err := os.WriteFile(goldPath, []byte(goldText), 0o644); err != nil {
		t.Fatal(err)
	}
	pred := `{"tags":["NN","VBD"],"pred":[2,0]}
{"tags":["DT","NN","VBD"],"pred":[0,1,2]}
`
	// 2/2 + 0/3 directed; 2/2 + 2/3 undirected (the predicted root is wrong).
	out, err := run(t, pred, Options{JSON: true, Gold: goldPath})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, `{"sentences":2,"tokens":5,"root":"count","directed":0.4,"undirected":0.8,`) {
		t.Errorf("report %s", out)
	}
	// The gold file overrides heads the input may carry.
	withHeads := strings.ReplaceAll(pred, `"pred":[2,0]`, `"heads":[0,1],"pred":[2,0]`)
	if out2, err := run(t, withHeads, Options{JSON: true, Gold: goldPath}); err != nil || out2 != out {
		t.Errorf("input heads changed the score: %v %s", err, out2)
	}
	errCases := []struct{ input, want string }{
		{`{"tags":["NN","VB"],"pred":[2,0]}`, `<stdin>:1: does not match sentence 1 of gold file ` + goldPath + ` (line 1): tag 2 is "VB", gold has "VBD"`},
		{`{"tags":["NN","VBD"],"pred":[2,0]}`, `input ended after 1 sentences, but gold file ` + goldPath + ` has 2`},
		{pred + `{"tags":["NN"],"pred":[0]}`, `<stdin>:3: more sentences than gold file`},
	}
	for _, c := range errCases {
		_, err := run(t, c.input, Options{Gold: goldPath})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("input %q: error %v, want %q", c.input, err, c.want)
		}
	}
	badGold := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(badGold, []byte(`{"tags":["NN"],"heads":[0]}`+"\n"+`{"tags":["NN"]}`+"\n"), 0o644)
	if _, err := run(t, pred, Options{Gold: badGold}); err == nil || err.Error() != `gold: `+badGold+`:2: gold sentence has no "heads"` {
		t.Errorf("gold without heads: %v", err)
	}
}
