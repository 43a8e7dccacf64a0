package score

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/pipeline"
)

// Exact binomial values: the small ones by hand (2·Σ C(n, i)/2ⁿ), the
// large ones from exact integer sums (Python's big integers).
func TestSignTestP(t *testing.T) {
	for _, c := range []struct {
		wins, losses int
		want         float64
	}{
		{0, 0, 1},
		{1, 0, 1},        // 2·1/2
		{0, 5, 0.0625},   // 2·1/32
		{8, 2, 0.109375}, // 2·(1 + 10 + 45)/1024
		{3, 3, 1},        // 2·42/64, capped
		{6, 1, 0.125},    // 2·(1 + 7)/128
		{25, 5, 0.00032491423189640045},
		{50500, 49500, 0.0015823598788515956},
		{49900, 50100, 0.52915729408019319},
		{52000, 48000, 1.1530938666722977e-36}, // far in the tail, no underflow
	} {
		got := SignTestP(c.wins, c.losses)
		if math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("SignTestP(%d, %d) = %.17g, want %.17g", c.wins, c.losses, got, c.want)
		}
	}
	// Beyond floating point the value is 0, never NaN.
	if p := SignTestP(60000, 40000); p != 0 {
		t.Errorf("SignTestP(60000, 40000) = %v, want 0 (below 1e-800)", p)
	}
}

// score --against counts wins, losses and ties per sentence and per token.
func TestScoreAgainst(t *testing.T) {
	dir := t.TempDir()
	// Gold: 2 ← 1 → 3 style trees; A and B differ token by token.
	a := `{"tags":["X","Y","Z"],"heads":[0,1,1],"pred":[0,1,1]}
{"tags":["X","Y"],"heads":[0,1],"pred":[2,0]}
{"tags":["X","Y","Z"],"heads":[2,0,2],"pred":[2,0,1]}
`
	b := `{"tags":["X","Y","Z"],"pred":[0,1,2]}
{"tags":["X","Y"],"pred":[0,1]}
{"tags":["X","Y","Z"],"pred":[2,0,1]}
`
	if err := os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		root       Convention
		sent, toks Signs
	}{
		// Counted: sentence 1 A 3 B 2 (win), 2: A 0 B 2 (loss), 3: 2 = 2 (tie).
		// Tokens: s1 t3 win; s2 t1, t2 losses; the rest ties (5).
		{RootCounted, Signs{Wins: 1, Losses: 1, Ties: 1, P: 1}, Signs{Wins: 1, Losses: 2, Ties: 5, P: 1}},
		// Excluded: root attachments do not count: s1 A 2 B 1 (win), s2 A 0
		// B 1 (loss), s3 1 = 1 (tie); tokens: s1 t3 win, s2 t2 loss.
		{RootExcluded, Signs{Wins: 1, Losses: 1, Ties: 1, P: 1}, Signs{Wins: 1, Losses: 1, Ties: 6, P: 1}},
	} {
		var out bytes.Buffer
		src := pipeline.Source{Stdin: strings.NewReader(a)}
		if err := Score(src, &out, Options{Root: c.root, JSON: true, Against: filepath.Join(dir, "b.jsonl")}); err != nil {
			t.Fatal(err)
		}
		var r Report
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.SignTest == nil || r.SignTest.Sentences != c.sent || r.SignTest.Tokens != c.toks {
			t.Errorf("%s: sign test %+v, want sentences %+v tokens %+v", c.root, r.SignTest, c.sent, c.toks)
		}
	}
	// A different number of sentences is an error.
	var out bytes.Buffer
	src := pipeline.Source{Stdin: strings.NewReader(a + a)}
	if err := Score(src, &out, Options{Against: filepath.Join(dir, "b.jsonl")}); err == nil {
		t.Error("more input sentences than --against has: no error")
	}
}

// The sign test on brackets, worked by hand. Gold trees (A (B C)) D and
// (A B) (C D) over four tokens; A (the input) gives pred_spans, B
// (--against) pred_spans for the first sentence and heads for the second.
//
//	sentence 1, gold {0,4} {0,3} {1,3}: A {0,4} {0,3} {1,3} (3 right),
//	  B {0,4} {1,4} {2,4} (1 right): a sentence win; brackets {0,3} and
//	  {1,3} wins, {0,4} a tie.
//	sentence 2, gold {0,4} {0,2} {2,4}: A {0,4} {1,4} {2,4} (2 right),
//	  B's heads [2,3,0,3] give {0,2} {0,4} (2 right): a sentence tie;
//	  {2,4} a win, {0,2} a loss, {0,4} a tie.
//
// Sentences 1 win, 1 tie (p = 1); brackets 3 wins, 1 loss, 2 ties (p =
// 2·(1 + 4)/16 = 0.625).
func TestScoreAgainstBrackets(t *testing.T) {
	dir := t.TempDir()
	a := `{"tags":["A","B","C","D"],"tree":"(S (X (A a) (Y (B b) (C c))) (D d))","pred_spans":[[0,4],[0,3],[1,3]]}
{"tags":["A","B","C","D"],"tree":"(S (X (A a) (B b)) (Y (C c) (D d)))","pred_spans":[[0,4],[1,4],[2,4]]}
`
	b := `{"tags":["A","B","C","D"],"pred_spans":[[0,4],[1,4],[2,4]]}
{"tags":["A","B","C","D"],"pred":[2,3,0,3]}
`
	if err := os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	src := pipeline.Source{Stdin: strings.NewReader(a)}
	if err := Score(src, &out, Options{Root: RootCounted, JSON: true, Against: filepath.Join(dir, "b.jsonl")}); err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	want := BracketSigns{
		Sentences: Signs{Wins: 1, Losses: 0, Ties: 1, P: 1},
		Brackets:  Signs{Wins: 3, Losses: 1, Ties: 2, P: 0.625},
	}
	if r.SignTest == nil || r.SignTest.Brackets == nil || !sameSigns(*r.SignTest.Brackets, want) {
		t.Fatalf("bracket sign test %+v, want %+v", r.SignTest, want)
	}
	if s := r.SignTest.Sentences; s.Wins+s.Losses+s.Ties != 0 {
		t.Errorf("no dependencies to compare, yet %+v", s)
	}
}

func sameSigns(a, b BracketSigns) bool {
	close := func(x, y Signs) bool {
		return x.Wins == y.Wins && x.Losses == y.Losses && x.Ties == y.Ties && math.Abs(x.P-y.P) < 1e-12
	}
	return close(a.Sentences, b.Sentences) && close(a.Brackets, b.Brackets)
}

// score --against --undirected, by hand: gold X ← Y ← Z read as heads
// [0,1,2]; A = [2,0,2] has Y–X reversed and Z's arc right, B = [0,1,1]
// has Y–X right and Z on X. Root excluded, directed: Y a loss, Z a win,
// sentence 1 = 1; undirected: Y a tie (A has the arc reversed), Z a win,
// sentence 2 > 1. Root counted adds X: A attaches it to Y, B to the root
// (a loss), sentence 2 = 2.
func TestScoreAgainstUndirected(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(b, []byte(`{"tags":["X","Y","Z"],"pred":[0,1,1]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := `{"tags":["X","Y","Z"],"heads":[0,1,2],"pred":[2,0,2]}` + "\n"
	for _, c := range []struct {
		root       Convention
		undirected bool
		sent, toks Signs
	}{
		{RootExcluded, false, Signs{Ties: 1, P: 1}, Signs{Wins: 1, Losses: 1, Ties: 1, P: 1}},
		{RootExcluded, true, Signs{Wins: 1, P: 1}, Signs{Wins: 1, Ties: 2, P: 1}},
		{RootCounted, true, Signs{Ties: 1, P: 1}, Signs{Wins: 1, Losses: 1, Ties: 1, P: 1}},
	} {
		out, err := run(t, a, Options{Root: c.root, JSON: true, Against: b, UndirectedSign: c.undirected})
		if err != nil {
			t.Fatal(err)
		}
		var r Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		st := r.SignTest
		if st == nil || st.Undirected != c.undirected || st.Sentences != c.sent || st.Tokens != c.toks {
			t.Errorf("%s undirected=%v: sign test %+v, want sentences %+v tokens %+v", c.root, c.undirected, st, c.sent, c.toks)
		}
	}
}

// The undirected sign test agrees with the undirected score: on random
// trees, per sentence, the token wins minus losses are A's undirected
// count minus B's (Tally, which counts predicted arcs rather than gold
// attachments), and the sentence is a win, loss or tie as those counts
// say; under both root conventions.
func TestUndirectedSignsMatchTally(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, root := range []Convention{RootCounted, RootExcluded} {
		for range 3000 {
			n := 1 + rng.IntN(9)
			gold, a, b := randomTree(rng, n), randomTree(rng, n), randomTree(rng, n)
			tally := &signTally{root: root, undirected: true}
			tally.add(gold, a, b)
			st := tally.report("b")
			var ta, tb Tally
			ta.Add(gold, a)
			tb.Add(gold, b)
			ra, rb := ta.Undirected, tb.Undirected
			if root == RootExcluded {
				ra, rb = ta.UndirectedArcs, tb.UndirectedArcs
			}
			tok := st.Tokens
			if tok.Wins-tok.Losses != ra-rb || tok.Wins+tok.Losses+tok.Ties != n {
				t.Fatalf("%s gold %v a %v b %v: tokens %+v, undirected counts %d and %d", root, gold, a, b, tok, ra, rb)
			}
			want := Signs{Wins: b2i(ra > rb), Losses: b2i(rb > ra), Ties: b2i(ra == rb)}
			if s := st.Sentences; s.Wins != want.Wins || s.Losses != want.Losses || s.Ties != want.Ties {
				t.Fatalf("%s gold %v a %v b %v: sentence %+v, counts %d and %d", root, gold, a, b, s, ra, rb)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
