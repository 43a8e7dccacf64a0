package score

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/pipeline"
)

// analyse runs score --analysis all --json on the records and returns the
// report.
func analyse(t *testing.T, records string) Report {
	t.Helper()
	var out bytes.Buffer
	src := pipeline.Source{Stdin: strings.NewReader(records)}
	if err := Score(src, &out, Options{JSON: true, Analyses: Analyses, AllAnalyses: true}); err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// Smith's own example (2006 §3.4.3, "foams at the mouth"): gold foams →
// at → mouth → the; the prediction makes "the" the parent of "mouth" and
// the child of "at". With a one-word sentence, so that the macro-average
// differs from the micro one. Every number below was worked by hand.
func TestSmithAnalysesByHand(t *testing.T) {
	r := analyse(t, `{"tags":["VBZ","IN","DT","NN"],"heads":[0,1,4,2],"pred":[0,1,2,3]}
{"tags":["VB"],"heads":[0],"pred":[0]}
`)
	// Link types, undirected: gold {VBZ,IN} {IN,NN} {DT,NN}, predicted
	// {VBZ,IN} {DT,IN} {DT,NN} (the last reversed, still found).
	want := map[string][3]int{ // predicted, gold, correct
		"IN VBZ": {1, 1, 1}, "DT NN": {1, 1, 1}, "IN NN": {0, 1, 0}, "DT IN": {1, 0, 0},
	}
	if len(r.Links.Undirected) != len(want) {
		t.Fatalf("undirected link rows %+v, want %v", r.Links.Undirected, want)
	}
	for _, row := range r.Links.Undirected {
		if w := want[strings.Join(row.Tags, " ")]; [3]int{row.Predicted, row.Gold, row.Correct} != w {
			t.Errorf("undirected %v: %+v, want predicted, gold, correct %v", row.Tags, row.PRF, w)
		}
	}
	// Directed: ROOT→VBZ, ROOT→VB and VBZ→IN right; IN→DT and DT→NN
	// over-proposed, IN→NN and NN→DT under-proposed.
	wantDir := map[string][2]int{ // over, under
		"ROOT VBZ": {0, 0}, "ROOT VB": {0, 0}, "VBZ IN": {0, 0},
		"IN DT": {1, 0}, "DT NN": {1, 0}, "IN NN": {0, 1}, "NN DT": {0, 1},
	}
	if len(r.Links.Directed) != len(wantDir) {
		t.Fatalf("directed link rows %+v", r.Links.Directed)
	}
	for _, row := range r.Links.Directed {
		if w := wantDir[strings.Join(row.Tags, " ")]; [2]int{*row.Over, *row.Under} != w {
			t.Errorf("directed %v: over %d under %d, want %v", row.Tags, *row.Over, *row.Under, w)
		}
	}
	// Divergence: two of three undirected types shared, each side's third
	// weighing 1/3 against a mean of 1/6: JS = 1/3 bit; directed, one of
	// three shared: 2/3 bit.
	if d := r.Links.Divergence; !near(d.Undirected, 1.0/3) || !near(d.Directed, 2.0/3) {
		t.Errorf("divergence %+v, want 1/3 and 2/3 bits", d)
	}
	// Distance: gold arcs foams–at (1, right), at–mouth (2, right),
	// the–mouth (1, left); predicted foams→at, at→the, the→mouth (1,
	// right each).
	wantDist := []DistanceRow{
		{Distance: 1, Undirected: NewPRF(2, 3, 2), Left: NewPRF(0, 0, 1), Right: NewPRF(1, 3, 1)},
		{Distance: 2, Undirected: NewPRF(0, 0, 1), Left: NewPRF(0, 0, 0), Right: NewPRF(0, 0, 1)},
	}
	if !slices.Equal(*r.ByDistance, wantDist) {
		t.Errorf("by distance %+v, want %+v", *r.ByDistance, wantDist)
	}
	// Paths in wall → foams → at → the → mouth: foams to the wall 1, at to
	// foams 1, the to mouth 1 undirected and ∞ directed (mouth is below),
	// mouth to at 2 both ways; go to the wall 1.
	p := r.Paths
	if p.Sentences != 2 || p.Tokens != 5 || !near(*p.Undirected.Micro, 6.0/5) || !near(*p.Undirected.Macro, (5.0/4+1)/2) {
		t.Errorf("paths: %d sentences, %d tokens, micro %v, macro %v; want 2, 5, 1.2, 1.125", p.Sentences, p.Tokens, *p.Undirected.Micro, *p.Undirected.Macro)
	}
	if want := []PathCount{{1, 4, 0.8}, {2, 1, 0.2}}; !slices.Equal(p.Undirected.ByLength, want) {
		t.Errorf("undirected paths %v, want %v", p.Undirected.ByLength, want)
	}
	if want := []PathCount{{1, 3, 0.6}, {2, 1, 0.2}}; !slices.Equal(p.Directed.ByLength, want) || *p.Directed.Infinite != (Infinite{1, 0.2}) {
		t.Errorf("directed paths %v, infinite %v; want %v and 1 token", p.Directed.ByLength, *p.Directed.Infinite, want)
	}
	if r.ByLabel != nil || r.Sequences != nil {
		t.Errorf("analyses of brackets without trees: %v %v", r.ByLabel, r.Sequences)
	}
}

// Klein's analyses on two small trees, worked by hand: "the big dog ran to
// the park" bracketed right-branching inside the NP and the VP, and "the
// dog ran" with a unary NP over NP (two nodes, both counted) bracketed as
// [dog ran].
func TestKleinAnalysesByHand(t *testing.T) {
	r := analyse(t, `{"tags":["DT","JJ","NN","VBD","IN","DT","NN"],"tree":"(S (NP (DT the) (JJ big) (NN dog)) (VP (VBD ran) (PP (IN to) (NP (DT the) (NN park)))))","pred_spans":[[0,7],[0,3],[1,3],[3,7],[3,5],[5,7]]}
{"tags":["DT","NN","VBD"],"tree":"(S (NP-SBJ (NP (DT the) (NN dog))) (VP (VBD ran)))","pred_spans":[[0,3],[1,3]]}
{"tags":["NN"],"tree":"(NP (NN dog))"}
`)
	// LR(X): NP [0,3] and [5,7] found, the two NP nodes over [0,2] not; VP
	// [3,7] found; PP [4,7] not; S is the whole sentence (trivial), VP
	// "ran" one token.
	wantLabels := []LabelRow{{"NP", 4, 2, 0.5}, {"PP", 1, 0, 0}, {"VP", 1, 1, 1}}
	if !slices.Equal(*r.ByLabel, wantLabels) {
		t.Errorf("LR(X) %+v, want %+v", *r.ByLabel, wantLabels)
	}
	// Over-proposed: JJ NN (inside the gold NP), VBD IN (crosses the PP),
	// NN VBD (crosses the NP); under-proposed: IN DT NN (the PP) and DT NN
	// of the second sentence (found in the first: predicted 1, gold 2).
	wantSeq := []SequenceRow{
		{Tags: []string{"DT", "NN"}, Predicted: 1, Gold: 2, Correct: 1, Under: 1},
		{Tags: []string{"IN", "DT", "NN"}, Gold: 1, Under: 1},
		{Tags: []string{"JJ", "NN"}, Predicted: 1, Over: 1},
		{Tags: []string{"NN", "VBD"}, Predicted: 1, Over: 1, Crossing: 1},
		{Tags: []string{"VBD", "IN"}, Predicted: 1, Over: 1, Crossing: 1},
	}
	if len(*r.Sequences) != len(wantSeq) {
		t.Fatalf("sequences %+v, want %+v", *r.Sequences, wantSeq)
	}
	for i, got := range *r.Sequences {
		w := wantSeq[i]
		if !slices.Equal(got.Tags, w.Tags) || got.Predicted != w.Predicted || got.Gold != w.Gold || got.Correct != w.Correct ||
			got.Over != w.Over || got.Under != w.Under || got.Crossing != w.Crossing {
			t.Errorf("sequence %d: %+v, want %+v", i, got, w)
		}
	}
	if r.Links != nil || r.Paths != nil || r.ByDistance != nil {
		t.Error("analyses of heads without gold heads")
	}
}

// bfsPath is the number of edges between a and b in the undirected tree
// of heads (nodes 0..n, 0 the wall), by breadth-first search.
func bfsPath(heads []int, a, b int) int {
	n := len(heads)
	adj := make([][]int, n+1)
	for i, h := range heads {
		adj[i+1] = append(adj[i+1], h)
		adj[h] = append(adj[h], i+1)
	}
	dist := slices.Repeat([]int{-1}, n+1)
	dist[a] = 0
	queue := []int{a}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, y := range adj[x] {
			if dist[y] < 0 {
				dist[y] = dist[x] + 1
				queue = append(queue, y)
			}
		}
	}
	return dist[b]
}

// The paths of addPaths against a breadth-first search (undirected) and a
// walk up the heads (directed), on random trees, some with several roots.
func TestPathsAgainstSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		n := 1 + rng.IntN(10)
		gold, pred := randomTree(rng, n), randomTree(rng, n)
		if n > 2 && rng.IntN(3) == 0 {
			pred[rng.IntN(n)] = 0 // a forest under the wall: still a tree with it
			if cyclic(pred) {
				continue
			}
		}
		d := newDepAnalyzer()
		d.addPaths(gold, pred)
		wantU, wantD := map[int]int{}, map[int]int{}
		for i := 1; i <= n; i++ {
			g := gold[i-1]
			wantU[bfsPath(pred, i, g)]++
			up, k := -1, 0
			for a := i; a != 0; {
				a = pred[a-1]
				k++
				if a == g {
					up = k
					break
				}
			}
			wantD[up]++
		}
		if !mapsEqual(d.undirectedPaths, wantU) || !mapsEqual(d.directedPaths, wantD) {
			t.Fatalf("gold %v pred %v: undirected %v directed %v, want %v %v", gold, pred, d.undirectedPaths, d.directedPaths, wantU, wantD)
		}
	}
}

func cyclic(heads []int) bool {
	for i := range heads {
		k := 0
		for h := i + 1; h != 0; h = heads[h-1] {
			if k++; k > len(heads) {
				return true
			}
		}
	}
	return false
}

func mapsEqual(a, b map[int]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Smith's ATTACH-RIGHT rows (Tables 3.4, 3.5) follow from the gold trees
// alone: every predicted arc is a left dependent at distance 1, so every
// gold arc of distance 1 is found undirected, and a token's gold parent is
// an ancestor exactly when it lies to the right (or is the wall).
func TestAttachRightRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := newDepAnalyzer()
	infinite, adjacent, tokens := 0, 0, 0
	for range 300 {
		n := 1 + rng.IntN(10)
		gold := randomTree(rng, n)
		pred := make([]int, n)
		for i := range n - 1 {
			pred[i] = i + 2
		}
		tags := slices.Repeat([]string{"X"}, n)
		d.add(tags, gold, pred)
		for i, g := range gold {
			tokens++
			if g != 0 && g < i+1 {
				infinite++
			}
			if g != 0 && (g == i || g == i+2) {
				adjacent++
			}
		}
	}
	p := d.paths()
	if p.Directed.Infinite.Tokens != infinite || p.Tokens != tokens {
		t.Errorf("infinite directed paths %d of %d, want %d of %d", p.Directed.Infinite.Tokens, p.Tokens, infinite, tokens)
	}
	for _, row := range d.byDistance() {
		if row.Distance == 1 && (row.Undirected.Correct != adjacent || row.Undirected.Gold != adjacent || row.Right.Predicted != 0) {
			t.Errorf("distance 1: %+v, want all %d adjacent gold arcs found, no right dependent predicted", row, adjacent)
		}
		if row.Distance > 1 && row.Undirected.Predicted != 0 {
			t.Errorf("distance %d predicted %d arcs", row.Distance, row.Undirected.Predicted)
		}
	}
}

// The divergence is 0 between identical trees, symmetric, and at most 1
// bit.
func TestDivergenceBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	tagset := []string{"A", "B", "C", "D"}
	for range 200 {
		n := 2 + rng.IntN(8)
		tags := make([]string, n)
		for i := range tags {
			tags[i] = tagset[rng.IntN(len(tagset))]
		}
		a, b := randomTree(rng, n), randomTree(rng, n)
		same, ab, ba := newDepAnalyzer(), newDepAnalyzer(), newDepAnalyzer()
		same.add(tags, a, a)
		ab.add(tags, a, b)
		ba.add(tags, b, a)
		ls, lab, lba := same.links(0), ab.links(0), ba.links(0)
		if !near(ls.Divergence.Undirected, 0) || !near(ls.Divergence.Directed, 0) {
			t.Fatalf("divergence of a tree from itself %+v", ls.Divergence)
		}
		if !near(lab.Divergence.Undirected, lba.Divergence.Undirected) || !near(lab.Divergence.Directed, lba.Divergence.Directed) ||
			lab.Divergence.Undirected > 1+1e-12 || lab.Divergence.Directed > 1+1e-12 {
			t.Fatalf("divergence %+v against %+v", lab.Divergence, lba.Divergence)
		}
	}
}

func TestParseAnalyses(t *testing.T) {
	got, all, err := ParseAnalyses([]string{"paths,links", "paths"})
	if err != nil || all || !slices.Equal(got, []Analysis{AnalysisLinks, AnalysisPaths}) {
		t.Errorf("got %v %v %v", got, all, err)
	}
	if got, all, err := ParseAnalyses([]string{"all"}); err != nil || !all || !slices.Equal(got, Analyses) {
		t.Errorf("all: %v %v %v", got, all, err)
	}
	if _, _, err := ParseAnalyses([]string{"link"}); err == nil || !strings.Contains(err.Error(), `"link"`) {
		t.Errorf("a misspelt name: %v", err)
	}
}

// The sign test on paths (Smith 2006, Tables 4.5, 6.6), by hand: against
// ATTACH-RIGHT, Smith's example has undirected paths 1, 1, 1, 2 (sum 5)
// where ATTACH-RIGHT's are 4, 1, 1, 2 (foams climbs through the whole
// chain to the wall): one token and one sentence won, the rest tied.
func TestPathSignTestByHand(t *testing.T) {
	dir := t.TempDir()
	b := dir + "/right.jsonl"
	if err := os.WriteFile(b, []byte(`{"tags":["VBZ","IN","DT","NN"],"heads":[0,1,4,2],"pred":[2,3,4,0]}
{"tags":["VB"],"heads":[0],"pred":[0]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	src := pipeline.Source{Stdin: strings.NewReader(`{"tags":["VBZ","IN","DT","NN"],"heads":[0,1,4,2],"pred":[0,1,2,3]}
{"tags":["VB"],"heads":[0],"pred":[0]}
`)}
	if err := Score(src, &out, Options{JSON: true, Against: b, Analyses: []Analysis{AnalysisPaths}}); err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	p := r.SignTest.Paths
	if p == nil || p.Sentences != (Signs{1, 0, 1, 1}) || p.Tokens != (Signs{1, 0, 4, 1}) {
		t.Errorf("path signs %+v, want sentences 1/0/1 and tokens 1/0/4, p = 1", p)
	}
	if u, _ := TokenPaths([]int{0, 1, 4, 2}, []int{2, 3, 4, 0}); !slices.Equal(u, []int{4, 1, 1, 2}) {
		t.Errorf("ATTACH-RIGHT's paths %v, want 4 1 1 2", u)
	}
}
