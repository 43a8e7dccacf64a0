package dmv

import (
	"math"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/internal/brute"
)

// TestAdHocTreesBrute checks the chart's best trees against every
// projective tree scored by AdHocScore.
func TestAdHocTreesBrute(t *testing.T) {
	for n := 1; n <= 8; n++ {
		trees := brute.ProjectiveTrees(n)
		best := AdHocScore(trees[0])
		for _, h := range trees {
			best = max(best, AdHocScore(h))
		}
		var want [][]int
		for _, h := range trees {
			if AdHocScore(h) >= best-adhocTieTol {
				want = append(want, h)
			}
		}
		got := AdHocTrees(n)
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d best trees, brute force %d: %v vs %v", n, len(got), len(want), got, want)
		}
		for _, g := range got {
			if !slices.ContainsFunc(want, func(w []int) bool { return slices.Equal(w, g) }) {
				t.Errorf("n=%d: %v is not a best tree (%v)", n, g, want)
			}
		}
		t.Logf("n=%d: %d best trees %v", n, len(got), got)
	}
}

// The Ad-Hoc* scores of three trees over three tokens, by hand (P̃STOP =
// 1/(d+3), continuing 1 − P̃STOP, P̃ATTACH = 1/(d+2)):
//
//	1 ← 2 → 3: 2 continues at 0 (2/3), takes 1 at 1 (1/3), stops at 1 (1/4)
//	           on each side: (1/18)²; 1 and 3 stop at once on both sides:
//	           (1/3)² each — 1/26244;
//	1 → 2 → 3: 1: 1/3 · 2/3 · 1/3 · 1/5 (stops at 2, the edge of 2's
//	           subtree); 2: 1/3 · 1/18; 3: 1/9 — 2/65610;
//	1 → {2, 3}: 1: 1/3 · 2/3 · 1/3 · 3/4 · 1/4 · 1/5; 2, 3: 1/9 each — 1/29160.
//
// So the middle token heads the best tree of three tokens, alone.
func TestAdHocScoreByHand(t *testing.T) {
	for _, c := range []struct {
		heads []int
		want  float64
	}{
		{[]int{2, 0, 2}, 1.0 / 26244},
		{[]int{0, 1, 2}, 2.0 / 65610},
		{[]int{0, 1, 1}, 1.0 / 29160},
	} {
		if got := math.Exp(AdHocScore(c.heads)); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("%v: score %v, want %v", c.heads, got, c.want)
		}
	}
	if got := AdHocTrees(3); len(got) != 1 || !slices.Equal(got[0], []int{2, 0, 2}) {
		t.Errorf("best trees of 3 tokens: %v, want [[2 0 2]]", got)
	}
	// Two tokens: a tree and its mirror image tie (1/3 · 2/3 · 1/3 · 1/4 ·
	// 1/9 each), and both are counted, each with weight 1/2.
	if got := AdHocTrees(2); len(got) != 2 {
		t.Errorf("best trees of 2 tokens: %v, want both", got)
	}
}

// The adhoc initializer on the corpus {A B C, A B}, by hand. A B C: B is
// the root, A its left child, C its right child. A B: the two trees, each
// with weight 1/2 — A the root taking B on its right, B the root taking A
// on its left. The M-step (λ = 0) is maximum likelihood:
//
//	root: A 1/2, B 1 + 1/2 of 2 sentences — 1/4, 3/4;
//	B's left child: A (1 + 1/2); B's right child: C; A's right child: B;
//	B left, adjacent: continue 1 + 1/2, stop 1/2 — stop 1/4;
//	B right, adjacent: continue 1, stop 1 — stop 1/2;
//	A right, adjacent: continue 1/2, stop 1 + 1/2 — stop 3/4;
//	A left and C both sides, adjacent: stop always; every side that took a
//	child stops after it (non-adjacent stop 1).
func TestAdHocInitByHand(t *testing.T) {
	ts := NewTagSet("A", "B", "C")
	c := CorpusFromNumbers(ts, [][]int{{0, 1, 2}, {0, 1}})
	s, err := Initialize(c, InitAdHoc, InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Params
	const A, B, C = 0, 1, 2
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	near("root A", p.Root[A], 0.25)
	near("root B", p.Root[B], 0.75)
	near("root C", p.Root[C], 0)
	near("B left child A", p.Child[p.ChildIndex(B, Left, A)], 1)
	near("B right child C", p.Child[p.ChildIndex(B, Right, C)], 1)
	near("A right child B", p.Child[p.ChildIndex(A, Right, B)], 1)
	for _, d := range []struct {
		name      string
		h, dir, v int
		stop      float64
	}{
		{"B left adj", B, Left, Adj, 0.25},
		{"B right adj", B, Right, Adj, 0.5},
		{"A right adj", A, Right, Adj, 0.75},
		{"A left adj", A, Left, Adj, 1},
		{"C left adj", C, Left, Adj, 1},
		{"C right adj", C, Right, Adj, 1},
		{"B left non-adj", B, Left, NonAdj, 1},
		{"B right non-adj", B, Right, NonAdj, 1},
		{"A right non-adj", A, Right, NonAdj, 1},
	} {
		i := DecisionIndex(d.h, d.dir, d.v)
		near(d.name+" stop", p.Stop[i], d.stop)
		near(d.name+" cont", p.Cont[i], 1-d.stop)
	}
	// Deterministic: a second run gives the same model.
	s2, _ := Initialize(c, InitAdHoc, InitOptions{})
	for k, tab := range s2.Params.Tables() {
		if !slices.Equal(tab, p.Tables()[k]) {
			t.Errorf("table %d differs between runs", k)
		}
	}
}
