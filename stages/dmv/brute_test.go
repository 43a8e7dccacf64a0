package dmv

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/internal/brute"
)

// randomWeights draws a table of positive weights; with probs it is a
// proper DMV (multinomials normalised, cont = 1 − stop).
func randomWeights(rng *rand.Rand, tags int, probs bool) *Params {
	p := NewParams(tags)
	for _, tab := range p.Tables() {
		for i := range tab {
			tab[i] = 0.05 + rng.Float64()
		}
	}
	if probs {
		return MStep(p, 0)
	}
	return p
}

// bruteForce computes, by enumerating trees, what the chart computes.
type bruteResult struct {
	logZ     float64
	counts   *Params
	viterbi  []int
	bestLog  float64
	tied     bool // another tree has (nearly) the best weight
	mbr      []int
	mbrGain  float64
	mbrTied  bool
	edgePost map[[2]int]float64 // [head (1-based, 0 root), dependent]
}

func treeLogScore(tags, heads []int, w *Params, dist []float64) float64 {
	s := TreeLogWeight(tags, heads, w)
	if dist != nil {
		for d, h := range heads {
			if h != 0 {
				s += math.Log(dist[abs(h-1-d)])
			}
		}
	}
	return s
}

func bruteForce(tags []int, w *Params, dist []float64) bruteResult {
	return bruteForceOver(brute.ProjectiveTrees(len(tags)), tags, w, dist)
}

// bruteForceOver is bruteForce over the trees given (heads as
// projectiveTrees gives them).
func bruteForceOver(trees [][]int, tags []int, w *Params, dist []float64) bruteResult {
	scores := make([]float64, len(trees))
	maxLog := math.Inf(-1)
	res := bruteResult{counts: NewValenceParams(w.T, w.V), bestLog: math.Inf(-1), edgePost: map[[2]int]float64{}}
	for i, heads := range trees {
		scores[i] = treeLogScore(tags, heads, w, dist)
		maxLog = math.Max(maxLog, scores[i])
		if scores[i] > res.bestLog {
			res.bestLog, res.viterbi = scores[i], heads
		}
	}
	for i, s := range scores {
		if !slices.Equal(trees[i], res.viterbi) && relErr(s, res.bestLog) < 1e-9 {
			res.tied = true
		}
	}
	z := 0.0
	for _, s := range scores {
		z += math.Exp(s - maxLog)
	}
	res.logZ = maxLog + math.Log(z)
	for i, heads := range trees {
		post := math.Exp(scores[i] - res.logZ)
		AddTreeCounts(tags, heads, res.counts, post)
		for d, h := range heads {
			res.edgePost[[2]int{h, d}] += post
		}
	}
	gains := make([]float64, len(trees))
	res.mbrGain = -1
	for i, heads := range trees {
		for d, h := range heads {
			gains[i] += res.edgePost[[2]int{h, d}]
		}
		if gains[i] > res.mbrGain {
			res.mbrGain, res.mbr = gains[i], heads
		}
	}
	for i, g := range gains {
		if !slices.Equal(trees[i], res.mbr) && math.Abs(g-res.mbrGain) < 1e-9 {
			res.mbrTied = true
		}
	}
	return res
}

func relErr(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

func checkAgainstBruteForce(t *testing.T, tags []int, w *Params, dist []float64) {
	t.Helper()
	const tol = 1e-9
	want := bruteForce(tags, w, dist)
	c := NewChart(2)
	c.Load(tags, w, dist)
	logZ := c.Inside()
	if e := relErr(logZ, want.logZ); e > tol {
		t.Fatalf("tags %v: log Z = %v, brute force %v (rel. error %g)", tags, logZ, want.logZ, e)
	}
	if !c.Outside() {
		t.Fatalf("tags %v: Outside found Z = 0", tags)
	}
	got := NewValenceParams(w.T, w.V)
	c.AddCounts(tags, got, 1)
	gt, wt := got.Tables(), want.counts.Tables()
	for k := range gt {
		for i := range gt[k] {
			if math.Abs(gt[k][i]-wt[k][i]) > tol*math.Max(1, math.Abs(wt[k][i])) {
				t.Fatalf("tags %v: table %d entry %d: count %v, brute force %v", tags, k, i, gt[k][i], wt[k][i])
			}
		}
	}
	// MBR: maximise the summed posteriors with the same chart.
	n := len(tags)
	edge, root := make([]float64, n*n), make([]float64, n)
	for h := 0; h < n; h++ {
		root[h] = c.RootPosterior(h)
		for d := 0; d < n; d++ {
			if d != h {
				edge[h*n+d] = c.EdgePosterior(h, d)
				if e := math.Abs(edge[h*n+d] - want.edgePost[[2]int{h + 1, d}]); e > tol {
					t.Fatalf("tags %v: posterior of %d→%d off by %g", tags, h, d, e)
				}
			}
		}
	}
	heads := make([]int, n)
	best := c.Viterbi(heads)
	if e := relErr(best, want.bestLog); e > tol {
		t.Fatalf("tags %v: Viterbi log weight %v, brute force %v", tags, best, want.bestLog)
	}
	if !want.tied && !slices.Equal(heads, want.viterbi) {
		t.Fatalf("tags %v: Viterbi tree %v, brute force %v", tags, heads, want.viterbi)
	}
	if got := treeLogScore(tags, heads, w, dist); relErr(got, best) > tol {
		t.Fatalf("tags %v: Viterbi says %v but its tree scores %v", tags, best, got)
	}
	c.LoadScores(n, edge, root)
	c.Viterbi(heads)
	gain := 0.0
	for d, h := range heads {
		gain += want.edgePost[[2]int{h, d}]
	}
	if math.Abs(gain-want.mbrGain) > 1e-9 || !want.mbrTied && !slices.Equal(heads, want.mbr) {
		t.Fatalf("tags %v: MBR tree %v (gain %v), brute force %v (gain %v)", tags, heads, gain, want.mbr, want.mbrGain)
	}
}

// allStrings lists every string of length n over k symbols.
func allStrings(n, k int) [][]int {
	if n == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for _, s := range allStrings(n-1, k) {
		for a := 0; a < k; a++ {
			out = append(out, append(append([]int(nil), s...), a))
		}
	}
	return out
}

func TestChartMatchesBruteForceAllShortStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	models := []*Params{randomWeights(rng, 3, true), randomWeights(rng, 3, false)}
	for n := 1; n <= 6; n++ {
		for _, tags := range allStrings(n, 3) {
			for _, w := range models {
				checkAgainstBruteForce(t, tags, w, nil)
			}
		}
	}
}

func TestChartMatchesBruteForceRandomStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 40; trial++ {
		tagCount := 2 + rng.IntN(4)
		w := randomWeights(rng, tagCount, trial%2 == 0)
		tags := randomTags(rng, 7+rng.IntN(2), tagCount)
		var dist []float64
		if trial%3 == 0 { // a distance factor per edge, as Model L and km use
			dist = distanceFactors(len(tags), -0.4)
		}
		checkAgainstBruteForce(t, tags, w, dist)
	}
}

// randomTags is n tags drawn uniformly from tagCount.
func randomTags(rng *rand.Rand, n, tagCount int) []int {
	tags := make([]int, n)
	for i := range tags {
		tags[i] = rng.IntN(tagCount)
	}
	return tags
}

// distanceFactors is e^{rate·d} for each distance d of a sentence of n
// tokens, the form of Model L's and km's factor per edge.
func distanceFactors(n int, rate float64) []float64 {
	dist := make([]float64, n)
	for d := 1; d < n; d++ {
		dist[d] = math.Exp(rate * float64(d))
	}
	return dist
}

// Log-linear weights are unbounded. With factors spread over up to e^±150
// the chart is still exact (beyond about e^±200 items of one sentence
// no longer fit one per-word scale and precision goes).
func TestChartExtremeWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 150; trial++ {
		spread := []float64{30, 120, 150}[trial%3]
		w := NewParams(4)
		for _, tab := range w.Tables() {
			for i := range tab {
				tab[i] = math.Exp((2*rng.Float64() - 1) * spread)
			}
		}
		checkAgainstBruteForce(t, randomTags(rng, 3+rng.IntN(5), 4), w, nil)
	}
}

// lcDepth is the left-corner depth of a projective tree (heads 1-based,
// 0 = root) by the definition of Noji, Miyao & Johnson's chart (lcdmv;
// DepthBound's comment, README "Left-corner depth bound"), written
// straight from the tree, top down: every word's left and right half
// sits at a depth, and the tree's depth is the deepest, counted from 1.
// chunk is lcdmv's maxChunkSize: embeddings of at most chunk words do
// not count.
func lcDepth(heads []int, chunk int) int {
	n := len(heads)
	kids := make([][]int, n) // in word order
	root := -1
	for d, h := range heads {
		if h == 0 {
			root = d
		} else {
			kids[h-1] = append(kids[h-1], d)
		}
	}
	lo, hi := make([]int, n), make([]int, n) // each subtree's span
	var span func(x int)
	span = func(x int) {
		lo[x], hi[x] = x, x
		for _, c := range kids[x] {
			span(c)
			lo[x], hi[x] = min(lo[x], lo[c]), max(hi[x], hi[c])
		}
	}
	span(root)
	deepest := 0
	// visit places x's left half at depth left and its right half at
	// right; predicted says x is a right dependent.
	var visit func(x, left, right int, predicted bool)
	visit = func(x, left, right int, predicted bool) {
		deepest = max(deepest, left, right)
		var lefts, rights []int
		for _, c := range kids[x] {
			if c < x {
				lefts = append(lefts, c)
			} else {
				rights = append(rights, c)
			}
		}
		for i, c := range lefts { // farthest first
			inc := 0
			if (i > 0 || predicted) && hi[c]-lo[c]+1 > chunk {
				inc = 1
			}
			visit(c, left, left+inc, false)
		}
		if !predicted {
			for _, a := range rights {
				visit(a, right, right, true)
			}
			return
		}
		// Predicted: the farthest right child at the left half's depth,
		// x with the others a right half of its own, deeper if long.
		m := len(rights)
		if m == 0 {
			return
		}
		inner := left
		if m >= 2 && hi[rights[m-2]]-x+1 > chunk {
			inner++
		}
		deepest = max(deepest, inner)
		for _, a := range rights[:m-1] {
			visit(a, inner, inner, true)
		}
		visit(rights[m-1], left, left, true)
	}
	visit(root, 0, 0, false)
	return deepest + 1
}

// A potential below tinyPotential in every tree (each leaf's two stops of
// 10⁻³⁰⁰) underflows in the items whatever factor the attachments share,
// and the scaled chart loses those trees (its log Z was 6.6 nats low on
// the sentence below): such a sentence goes to log space, where log Z,
// the counts, the posteriors and the Viterbi tree are enumeration's — on
// the chart, and through the E-step, whose lanes hand it to the chart.
func TestChartTinyPotentialsGoToLogSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 31))
	for _, w := range []*Params{randomWeights(rng, 2, true), randomValenceWeights(rng, 2, twoChildValences, true)} {
		for tag := range 2 {
			for dir := Left; dir <= Right; dir++ {
				w.Stop[w.DecisionAt(tag, dir, Adj)] = 1e-300
			}
		}
		sents := [][]int{{0, 1, 1, 0, 1, 0, 0, 1}, {1, 0}, {0, 0, 1}, {1, 1, 0, 1, 0, 0, 1}}
		want := EStepResult{Counts: NewValenceParams(2, w.V)}
		for _, tags := range sents {
			checkAgainstBruteForce(t, tags, w, nil)
			b := bruteForce(tags, w, nil)
			want.LogLik += b.logZ
			for k, tab := range want.Counts.Tables() {
				for i, v := range b.counts.Tables()[k] {
					tab[i] += v
				}
			}
		}
		// Enough copies of each length to fill the lanes.
		var corpus [][]int
		for range lanes {
			corpus = append(corpus, sents...)
		}
		for _, tab := range want.Counts.Tables() {
			for i := range tab {
				tab[i] *= lanes
			}
		}
		want.LogLik *= lanes
		c := CorpusFromNumbers(NewTagSet(), corpus)
		for _, k := range []string{"", testedKernel()} {
			if got := withKernel(k, c, w, EStepOptions{Workers: 2}); maxRelDiff(got, want) > 1e-9 {
				t.Errorf("%v, kernel %q: the E-step differs from enumeration by %g", w.V, k, maxRelDiff(got, want))
			}
		}
	}
}
