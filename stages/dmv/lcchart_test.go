package dmv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/internal/brute"
)

// Trees whose left-corner depth is worked out by hand from the rules of
// DepthBound's comment (depths 1-based: the root's halves are at 1).
func TestLCDepthHandMade(t *testing.T) {
	for _, tc := range []struct {
		name  string
		heads []int
		want  []int // the depth for chunk 1, 2, 3, 4
	}{
		// a→b→c→d: each word one right child, predicted in turn at 1;
		// a predicted word with a single right child puts it at its own
		// left half's depth. Right-branching is depth 1.
		{"right chain", []int{0, 1, 2, 3}, []int{1, 1, 1, 1}},
		// a←b←c←d: every left child is its head's farthest, and no head
		// is predicted: nothing counts. Left-branching is depth 1.
		{"left chain", []int{2, 3, 4, 0}, []int{1, 1, 1, 1}},
		// "ate the very big apple": apple is predicted (a right child of
		// ate), so all its left children count; "the" has one word,
		// "very big" two: big's right half goes to 2 unless chunk ≥ 2.
		{"ate the very big apple", []int{0, 5, 4, 5, 1}, []int{2, 1, 1, 1}},
		// "said he gave him books": gave is predicted and has two right
		// children; gave with "him" (2 words) is a right half of its own,
		// one deeper unless chunk ≥ 2; "books" stays at gave's depth.
		{"said he gave him books", []int{0, 3, 1, 3, 3}, []int{2, 1, 1, 1}},
		// "gave him books" as the root: a root is not predicted.
		{"gave him books", []int{0, 1, 1}, []int{1, 1, 1, 1}},
		// [A [B C] X]: X's farthest left child A is exempt, the nearer
		// C with its subtree "B C" (2 words) is center-embedded.
		{"A [B C] X", []int{4, 3, 4, 0}, []int{2, 1, 1, 1}},
		// [[A B] C X]: the long subtree is the farthest: left-branching.
		{"[A B] C X", []int{2, 4, 4, 0}, []int{1, 1, 1, 1}},
		// R c f e q P: P is R's right child (predicted at 1); its only
		// left child c spans c f e q (4 words): c's right half at 2
		// unless chunk ≥ 4. q, c's right child, is predicted at that
		// depth, and its left child e spans "f e" (2 words): e's right
		// half one deeper again, at 3, unless chunk ≥ 2. f is e's
		// farthest left child and e is not predicted: exempt.
		{"nested", []int{0, 6, 4, 5, 2, 1}, []int{3, 2, 2, 1}},
	} {
		for chunk := 1; chunk <= 4; chunk++ {
			if got := lcDepth(tc.heads, chunk); got != tc.want[chunk-1] {
				t.Errorf("%s, chunk %d: depth %d, want %d", tc.name, chunk, got, tc.want[chunk-1])
			}
		}
	}
}

var boundCache = map[[3]int][][]int{}

// withinBound lists the projective trees over n tokens of depth ≤ max.
func withinBound(n int, b DepthBound) [][]int {
	key := [3]int{n, b.Max, b.Chunk}
	if trees, ok := boundCache[key]; ok {
		return trees
	}
	var out [][]int
	for _, heads := range brute.ProjectiveTrees(n) {
		if lcDepth(heads, b.Chunk) <= b.Max {
			out = append(out, heads)
		}
	}
	boundCache[key] = out
	return out
}

// checkBoundedAgainstBruteForce compares the bounded chart with
// enumeration of the trees within the bound: log Z, every event's
// expected count, every edge's posterior, the Viterbi tree and the MBR
// tree.
func checkBoundedAgainstBruteForce(t *testing.T, c *BoundedChart, b DepthBound, tags []int, w *Params, dist []float64) {
	t.Helper()
	const tol = 1e-9
	want := bruteForceOver(withinBound(len(tags), b), tags, w, dist)
	where := fmt.Sprintf("bound %d/%d, tags %v", b.Max, b.Chunk, tags)
	c.Load(tags, w, dist)
	if logZ := c.Inside(); relErr(logZ, want.logZ) > tol {
		t.Fatalf("%s: log Z = %v, brute force %v", where, logZ, want.logZ)
	}
	if !c.Outside() {
		t.Fatalf("%s: Outside found Z = 0", where)
	}
	got := NewParams(w.T)
	c.AddCounts(tags, got, 1)
	gt, wt := got.Tables(), want.counts.Tables()
	for k := range gt {
		for i := range gt[k] {
			if math.Abs(gt[k][i]-wt[k][i]) > tol*math.Max(1, math.Abs(wt[k][i])) {
				t.Fatalf("%s: table %d entry %d: count %v, brute force %v", where, k, i, gt[k][i], wt[k][i])
			}
		}
	}
	n := len(tags)
	for h := 0; h < n; h++ {
		if e := math.Abs(c.RootPosterior(h) - want.edgePost[[2]int{0, h}]); e > tol {
			t.Fatalf("%s: root posterior of %d off by %g", where, h, e)
		}
		for d := 0; d < n; d++ {
			if d != h {
				if e := math.Abs(c.EdgePosterior(h, d) - want.edgePost[[2]int{h + 1, d}]); e > tol {
					t.Fatalf("%s: posterior of %d→%d off by %g", where, h, d, e)
				}
			}
		}
	}
	heads := make([]int, n)
	c.DecodeMBR(heads)
	gain := 0.0
	for d, h := range heads {
		gain += want.edgePost[[2]int{h, d}]
	}
	if math.Abs(gain-want.mbrGain) > tol || !want.mbrTied && !slices.Equal(heads, want.mbr) {
		t.Fatalf("%s: MBR tree %v (gain %v), brute force %v (gain %v)", where, heads, gain, want.mbr, want.mbrGain)
	}
	c.Load(tags, w, dist)
	best := c.Viterbi(heads)
	if relErr(best, want.bestLog) > tol {
		t.Fatalf("%s: Viterbi log weight %v, brute force %v", where, best, want.bestLog)
	}
	if !want.tied && !slices.Equal(heads, want.viterbi) {
		t.Fatalf("%s: Viterbi tree %v, brute force %v", where, heads, want.viterbi)
	}
	if d := lcDepth(heads, b.Chunk); d > b.Max {
		t.Fatalf("%s: Viterbi tree %v has depth %d", where, heads, d)
	}
	if s := treeLogScore(tags, heads, w, dist); relErr(s, best) > tol {
		t.Fatalf("%s: Viterbi says %v but its tree scores %v", where, best, s)
	}
}

func TestBoundedChartMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 16))
	models := []*Params{randomWeights(rng, 3, true), randomWeights(rng, 3, false)}
	for max := 1; max <= 3; max++ {
		for chunk := 1; chunk <= 3; chunk++ {
			b := DepthBound{Max: max, Chunk: chunk}
			c := NewBoundedChart(b, 2)
			// Every string of up to 5 tags over 2, then random ones of
			// 6 to 8 tokens (where the bounds cut most trees away).
			for n := 1; n <= 5; n++ {
				for _, tags := range allStrings(n, 2) {
					for _, w := range models {
						checkBoundedAgainstBruteForce(t, c, b, tags, w, nil)
					}
				}
			}
			for trial := 0; trial < 6; trial++ {
				tags := make([]int, 6+trial%3)
				for i := range tags {
					tags[i] = rng.IntN(3)
				}
				var dist []float64
				if trial%2 == 0 { // Model L's factor per edge
					dist = DistanceFactors(-0.4, len(tags))
				}
				checkBoundedAgainstBruteForce(t, c, b, tags, models[trial%2], dist)
			}
		}
	}
}

// The depth bound does cut: at n = 8 the strict depth 1 leaves a fifth
// of the trees.
func TestDepthBoundCuts(t *testing.T) {
	for _, tc := range []struct {
		b    DepthBound
		want int
	}{{DepthBound{1, 1}, 4250}, {DepthBound{2, 1}, 19593}, {DepthBound{1, 3}, 13973}} {
		if got := len(withinBound(8, tc.b)); got != tc.want {
			t.Errorf("bound %+v: %d of 21318 trees, want %d", tc.b, got, tc.want)
		}
	}
}

// With a bound no tree reaches (a depth of n), the bounded chart is the
// plain chart: the same log Z, counts and Viterbi tree. So is a chunk
// longer than any sentence, whatever the depth.
func TestUnreachedBoundIsPlainChart(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 20))
	w := randomWeights(rng, 6, true)
	plain := NewChart(2)
	for trial := 0; trial < 60; trial++ {
		n := 1 + rng.IntN(25)
		tags := make([]int, n)
		for i := range tags {
			tags[i] = rng.IntN(6)
		}
		// Depth n, beyond any sentence (the chart keeps n levels), or
		// depth 1 with a chunk beyond any sentence.
		b := []DepthBound{{n, 1 + trial%2}, {1 << 30, 2}, {1, 1 << 30}}[trial%3]
		c := NewBoundedChart(b, 2)
		plain.Load(tags, w, nil)
		c.Load(tags, w, nil)
		want, got := plain.Inside(), c.Inside()
		if relErr(got, want) > 1e-12 {
			t.Fatalf("n=%d: log Z %v, plain %v", n, got, want)
		}
		plain.Outside()
		c.Outside()
		pc, bc := NewParams(6), NewParams(6)
		plain.AddCounts(tags, pc, 1)
		c.AddCounts(tags, bc, 1)
		pt, bt := pc.Tables(), bc.Tables()
		for k := range pt {
			for i := range pt[k] {
				if math.Abs(pt[k][i]-bt[k][i]) > 1e-9*math.Max(1, pt[k][i]) {
					t.Fatalf("n=%d: table %d entry %d: %v, plain %v", n, k, i, bt[k][i], pt[k][i])
				}
			}
		}
		ph, bh := make([]int, n), make([]int, n)
		plain.Viterbi(ph)
		c.Viterbi(bh)
		if !slices.Equal(ph, bh) {
			t.Fatalf("n=%d: Viterbi %v, plain %v", n, bh, ph)
		}
	}
}

// Long sentences keep a finite log Z under the bound, and its counts sum
// as every tree's do (one root, n−1 children, 2n stops).
func TestBoundedLongSentences(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 20))
	w := randomWeights(rng, 10, true)
	for _, b := range []DepthBound{{1, 1}, {2, 1}, {1, 3}} {
		c := NewBoundedChart(b, 2)
		for _, n := range []int{100, 250} {
			tags := make([]int, n)
			for i := range tags {
				tags[i] = rng.IntN(10)
			}
			c.Load(tags, w, nil)
			logZ := c.Inside()
			if math.IsInf(logZ, 0) || math.IsNaN(logZ) {
				t.Fatalf("bound %+v, n=%d: log Z = %v", b, n, logZ)
			}
			if !c.Outside() {
				t.Fatalf("bound %+v, n=%d: no posteriors", b, n)
			}
			counts := NewParams(10)
			c.AddCounts(tags, counts, 1)
			sum := func(xs []float64) (s float64) {
				for _, x := range xs {
					s += x
				}
				return s
			}
			if r, s := sum(counts.Root), sum(counts.Stop); math.Abs(r-1) > 1e-9 || math.Abs(s-float64(2*n)) > 1e-9*float64(n) {
				t.Fatalf("bound %+v, n=%d: root counts %v, stop counts %v", b, n, r, s)
			}
			heads := make([]int, n)
			if lw := c.Viterbi(heads); math.IsInf(lw, 0) || math.IsNaN(lw) || lcDepth(heads, b.Chunk) > b.Max {
				t.Fatalf("bound %+v, n=%d: Viterbi %v, depth %d", b, n, lw, lcDepth(heads, b.Chunk))
			}
		}
	}
}

// Weights spread over e^±120 need the chart's rescaling search; the
// bounded chart's is its own.
func TestBoundedExtremeWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 20))
	b := DepthBound{Max: 1, Chunk: 1}
	c := NewBoundedChart(b, 2)
	for trial := 0; trial < 30; trial++ {
		w := NewParams(3)
		for _, tab := range w.Tables() {
			for i := range tab {
				tab[i] = math.Exp((2*rng.Float64() - 1) * 120)
			}
		}
		tags := make([]int, 3+rng.IntN(5))
		for i := range tags {
			tags[i] = rng.IntN(3)
		}
		checkBoundedAgainstBruteForce(t, c, b, tags, w, nil)
	}
}

// Viterbi over random additive scores (as MBR decoding loads them),
// spread wide so that the best unbounded tree is often deep: the bounded
// chart must find the best tree within the bound (against enumeration up
// to 8 tokens), and read its back-pointers at the right depths (beyond:
// the tree it returns must be within the bound and score what it says).
func TestBoundedViterbiRandomScores(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 20))
	for _, b := range []DepthBound{{1, 1}, {2, 1}, {3, 1}, {1, 2}, {2, 2}, {1, 3}, {2, 3}} {
		c := NewBoundedChart(b, 2)
		for trial := 0; trial < 80; trial++ {
			n := 7 + trial%2
			if trial >= 40 {
				n = 10 + trial%16
			}
			edge, root := make([]float64, n*n), make([]float64, n)
			for i := range edge {
				edge[i] = 3 * rng.NormFloat64()
			}
			for i := range root {
				root[i] = 3 * rng.NormFloat64()
			}
			score := func(heads []int) float64 {
				s := 0.0
				for d, h := range heads {
					if h == 0 {
						s += root[d]
					} else {
						s += edge[(h-1)*n+d]
					}
				}
				return s
			}
			c.LoadScores(n, edge, root)
			heads := make([]int, n)
			got := c.Viterbi(heads)
			if d := lcDepth(heads, b.Chunk); d > b.Max || math.Abs(score(heads)-got) > 1e-9*math.Max(1, math.Abs(got)) {
				t.Fatalf("bound %+v, n=%d: Viterbi tree %v of depth %d scores %v, Viterbi says %v", b, n, heads, d, score(heads), got)
			}
			if n > 8 {
				continue
			}
			var want []int
			best := math.Inf(-1)
			for _, heads := range withinBound(n, b) {
				if s := score(heads); s > best {
					best, want = s, heads
				}
			}
			if !slices.Equal(heads, want) || math.Abs(got-best) > 1e-9*math.Max(1, math.Abs(best)) {
				t.Fatalf("bound %+v, n=%d: Viterbi %v (%v), brute force %v (%v)", b, n, heads, got, want, best)
			}
		}
	}
}

// The bounded E-step gives the same bytes for any number of workers
// (its sums are taken chunk by chunk in order), Viterbi EM's counts
// included, and a different bound gives different counts.
func TestBoundedEStepWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 20))
	w := randomWeights(rng, 5, true)
	sents := make([][]int, 300)
	for i := range sents {
		sents[i] = make([]int, 1+rng.IntN(20))
		for j := range sents[i] {
			sents[i][j] = rng.IntN(5)
		}
	}
	c := CorpusFromNumbers(NewTagSet(), sents)
	b := DepthBound{Max: 1, Chunk: 2}
	for _, hard := range []bool{false, true} {
		var first EStepResult
		for _, workers := range []int{1, 2, 3, 8} {
			res := NewEStepper(c).Run(w, EStepOptions{Bound: b, Hard: hard, Workers: workers})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if workers == 1 {
				first = res
				continue
			}
			if res.LogLik != first.LogLik || fmt.Sprint(res.Counts) != fmt.Sprint(first.Counts) {
				t.Fatalf("hard=%v: %d workers give other counts (loglik %v, 1 worker %v)", hard, workers, res.LogLik, first.LogLik)
			}
		}
		plain := NewEStepper(c).Run(w, EStepOptions{Hard: hard})
		if !(first.LogLik < plain.LogLik) {
			t.Fatalf("hard=%v: bounded loglik %v not below the plain %v", hard, first.LogLik, plain.LogLik)
		}
	}
	if res := NewEStepper(c).Run(w, EStepOptions{Bound: b, Segment: true}); res.Err == nil {
		t.Fatal("the bound with Model S's segments: no error")
	}
}

// EM under the bound climbs Σ log Z over the bounded trees: it never
// decreases, from a random start, for each bound.
func TestBoundedEMNeverDecreases(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 20))
	sents := make([][]int, 200)
	for i := range sents {
		sents[i] = make([]int, 1+rng.IntN(15))
		for j := range sents[i] {
			sents[i][j] = rng.IntN(6)
		}
	}
	c := CorpusFromNumbers(NewTagSet(), sents)
	for _, b := range []DepthBound{{1, 1}, {2, 1}, {1, 3}} {
		model := randomWeights(rng, 6, true)
		e, prev := NewEStepper(c), math.Inf(-1)
		for it := 0; it < 25; it++ {
			res := e.Run(model, EStepOptions{Bound: b})
			if res.LogLik < prev-1e-9*math.Abs(prev) {
				t.Fatalf("bound %+v, iteration %d: log-likelihood %v after %v", b, it, res.LogLik, prev)
			}
			prev = res.LogLik
			model = MStep(res.Counts, 0)
		}
	}
}
