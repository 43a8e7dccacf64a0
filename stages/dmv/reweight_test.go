package dmv

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/internal/brute"
)

var segmentedCache = map[int][][]int{}

// segmentedStructures enumerates Model S's structures over n tokens: every
// segmentation into contiguous segments times every projective tree over
// each segment, as head arrays whose segment roots attach to 0.
func segmentedStructures(n int) [][]int {
	if s, ok := segmentedCache[n]; ok {
		return s
	}
	var out [][]int
	var rec func(start int, heads []int)
	rec = func(start int, heads []int) {
		if start == n {
			out = append(out, append([]int(nil), heads...))
			return
		}
		for end := start + 1; end <= n; end++ {
			for _, tree := range brute.ProjectiveTrees(end - start) {
				for d, h := range tree {
					heads[start+d] = 0
					if h != 0 {
						heads[start+d] = h + start
					}
				}
				rec(end, heads)
			}
		}
	}
	rec(0, make([]int, n))
	segmentedCache[n] = out
	return out
}

func TestSegmentedStructureCounts(t *testing.T) {
	// Sequences of trees: Σ over compositions of n of the product of the
	// numbers of trees over each part (1, 2, 7, 30, ...).
	trees := []int{1, 1, 2, 7, 30, 143, 728}
	want := []int{1}
	for n := 1; n <= 6; n++ {
		w := 0
		for k := 1; k <= n; k++ {
			w += trees[k] * want[n-k]
		}
		want = append(want, w)
		if got := len(segmentedStructures(n)); got != w {
			t.Errorf("n=%d: %d structures, want %d", n, got, w)
		}
	}
}

type bruteReweighted struct {
	logZ    float64
	counts  *Params
	best    []int
	bestLog float64
	tied    bool
}

// enumerated is one structure of a tag string with what every
// re-weighting needs from it, computed once from the raw tables.
type enumerated struct {
	heads         []int
	logP, logSkew float64  // log p and log λ₀ of its events
	length        float64  // Σ |i−j| over its edges
	roots         int      // trees
	events        [][2]int // (table, index) of each of its events
}

func enumerate(tags []int, model, skew *Params, segmented bool) []enumerated {
	structures := brute.ProjectiveTrees(len(tags))
	if segmented {
		structures = segmentedStructures(len(tags))
	}
	logP, logSkew := logTables(model), logTables(skew)
	out := make([]enumerated, len(structures))
	for i, heads := range structures {
		e := enumerated{heads: heads, events: make([][2]int, 0, 4*len(tags))}
		for d, h := range heads {
			if h == 0 {
				e.roots++
			} else {
				e.length += float64(abs(h - 1 - d))
			}
		}
		eachTreeEvent(tags, heads, model, func(table, index int) {
			e.events = append(e.events, [2]int{table, index})
			e.logP += logP[table][index]
			e.logSkew += logSkew[table][index]
		})
		out[i] = e
	}
	return out
}

func logTables(p *Params) [4][]float64 {
	var out [4][]float64
	for k, tab := range p.Tables() {
		for _, v := range tab {
			out[k] = append(out[k], math.Log(v))
		}
	}
	return out
}

// reweightedLogScore scores a structure from the raw tables, without
// Reweighting.Weights or the chart: β·log p + (1−β)·log λ₀ + δ·Σ|i−j| +
// segBeta·(roots − 1).
func reweightedLogScore(e enumerated, r Reweighting) float64 {
	s := r.Beta*e.logP + r.Delta*e.length
	if r.Skew != nil {
		s += (1 - r.Beta) * e.logSkew
	}
	if r.Segmented {
		s += r.SegBeta * float64(e.roots-1)
	}
	return s
}

func bruteForceReweighted(structures []enumerated, t int, r Reweighting) bruteReweighted {
	scores := make([]float64, len(structures))
	res := bruteReweighted{counts: NewParams(t), bestLog: math.Inf(-1)}
	for i, e := range structures {
		scores[i] = reweightedLogScore(e, r)
		if scores[i] > res.bestLog {
			res.bestLog, res.best = scores[i], e.heads
		}
	}
	z := 0.0
	for i, s := range scores {
		z += math.Exp(s - res.bestLog)
		if !slices.Equal(structures[i].heads, res.best) && relErr(s, res.bestLog) < 1e-9 {
			res.tied = true
		}
	}
	res.logZ = res.bestLog + math.Log(z)
	tabs := res.counts.Tables()
	for i, e := range structures {
		post := math.Exp(scores[i] - res.logZ)
		for _, ev := range e.events {
			tabs[ev[0]][ev[1]] += post
		}
	}
	return res
}

// loadReweighted loads tags into c the way the E-step does.
func loadReweighted(c *Chart, tags []int, model *Params, r Reweighting) {
	opts := r.EStep(EStepOptions{})
	var dist []float64
	if opts.Dist != nil {
		for d := 0; d <= len(tags); d++ {
			dist = append(dist, opts.Dist(d))
		}
	}
	c.Load(tags, r.Weights(model), dist)
	if opts.Segment {
		c.Segment(opts.SegBeta)
	}
}

func checkReweighted(t *testing.T, c *Chart, tags []int, structures []enumerated, model *Params, r Reweighting, name string) {
	t.Helper()
	const tol = 1e-9
	want := bruteForceReweighted(structures, model.T, r)
	loadReweighted(c, tags, model, r)
	if logZ := c.Inside(); relErr(logZ, want.logZ) > tol {
		t.Fatalf("%s, tags %v: log Z = %v, brute force %v", name, tags, logZ, want.logZ)
	}
	if !c.Outside() {
		t.Fatalf("%s, tags %v: Outside found Z = 0", name, tags)
	}
	got := NewParams(model.T)
	c.AddCounts(tags, got, 1)
	gt, wt := got.Tables(), want.counts.Tables()
	for k := range gt {
		for i := range gt[k] {
			if relErr(gt[k][i], wt[k][i]) > tol {
				t.Fatalf("%s, tags %v: table %d entry %d: count %v, brute force %v (rel. error %g)",
					name, tags, k, i, gt[k][i], wt[k][i], relErr(gt[k][i], wt[k][i]))
			}
		}
	}
	heads := make([]int, len(tags))
	if best := c.Viterbi(heads); relErr(best, want.bestLog) > tol {
		t.Fatalf("%s, tags %v: Viterbi log weight %v, brute force %v", name, tags, best, want.bestLog)
	}
	if !want.tied && !slices.Equal(heads, want.best) {
		t.Fatalf("%s, tags %v: Viterbi structure %v, brute force %v", name, tags, heads, want.best)
	}
	for _, e := range structures {
		if slices.Equal(e.heads, heads) {
			if s := reweightedLogScore(e, r); relErr(s, want.bestLog) > tol {
				t.Fatalf("%s, tags %v: Viterbi structure %v scores %v, not the best %v", name, tags, heads, s, want.bestLog)
			}
			return
		}
	}
	t.Fatalf("%s, tags %v: Viterbi structure %v is not a structure of the model", name, tags, heads)
}

// reweightings are the annealing E-steps under test, on a model and a
// skew model over the same tags.
func reweightings(skew *Params) map[string]Reweighting {
	return map[string]Reweighting{
		"beta 0.3":                {Beta: 0.3},
		"beta 1.7":                {Beta: 1.7},
		"skew beta 0.4":           {Beta: 0.4, Skew: skew},
		"delta -0.7":              {Beta: 1, Delta: -0.7},
		"delta +0.4":              {Beta: 1, Delta: 0.4},
		"segments +0.5":           {Beta: 1, Segmented: true, SegBeta: 0.5},
		"segments -1.2":           {Beta: 1, Segmented: true, SegBeta: -1.2},
		"all: skew, delta, segs":  {Beta: 0.6, Skew: skew, Delta: 0.3, Segmented: true, SegBeta: -0.4},
		"plain through Weights":   Plain(),
		"segments 0 (free vines)": {Beta: 1, Segmented: true},
	}
}

// Every re-weighting against enumeration, for every tag string up to
// length 6 over 3 tags: log Z, every expected count, and the Viterbi
// structure.
func TestReweightedChartMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	model, skew := randomWeights(rng, 3, true), randomWeights(rng, 3, true)
	c := NewChart(2)
	for n := 1; n <= 6; n++ {
		for _, tags := range allStrings(n, 3) {
			trees, vines := enumerate(tags, model, skew, false), enumerate(tags, model, skew, true)
			for name, r := range reweightings(skew) {
				structures := trees
				if r.Segmented {
					structures = vines
				}
				checkReweighted(t, c, tags, structures, model, r, name)
			}
		}
	}
}

// Long sentences stay finite under every re-weighting (scaling covers
// segments and distance factors), and a chart reused after Model S is
// plain again. A positive δ makes the weight of a tree grow with the
// square of the sentence's length — e^{0.4·Σ|i−j|} reaches e^{2000} at 150
// tokens, beyond what per-word scaling can hold — so there the chart must
// say it cannot (Outside false), never hand out NaN posteriors; at 40
// tokens (Smith's schedules stop at δ = +0.1 on ≤ 10) it must work.
func TestReweightedLongSentences(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	model, skew := randomWeights(rng, 5, true), randomWeights(rng, 5, true)
	long := make([]int, 150)
	for i := range long {
		long[i] = rng.IntN(5)
	}
	c := NewChart(4)
	for name, r := range reweightings(skew) {
		tags := long
		if r.Delta > 0 {
			tags = long[:40]
		}
		loadReweighted(c, tags, model, r)
		if lz := c.Inside(); math.IsInf(lz, 0) || math.IsNaN(lz) || !c.Outside() {
			t.Fatalf("%s: log Z = %v on %d tokens", name, lz, len(tags))
		}
		counts := NewParams(5)
		c.AddCounts(tags, counts, 1)
		roots := 0.0
		for _, v := range counts.Root {
			roots += v
		}
		if !r.Segmented && math.Abs(roots-1) > 1e-9 {
			t.Fatalf("%s: expected roots %v, want 1", name, roots)
		}
		if r.Segmented && !(roots >= 1-1e-9) {
			t.Fatalf("%s: expected roots %v, want ≥ 1", name, roots)
		}
		if r.Delta > 0 {
			loadReweighted(c, long, model, r)
			if lz := c.Inside(); !math.IsNaN(lz) && c.Outside() {
				c.AddCounts(long, counts, 1)
				for _, v := range counts.Stop {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("%s: on 150 tokens Outside succeeded with NaN posteriors", name)
					}
				}
			}
		}
	}
	c.Load(long[:6], model, nil)
	plain := c.Inside()
	if want := bruteForceReweighted(enumerate(long[:6], model, skew, false), 5, Plain()).logZ; relErr(plain, want) > 1e-9 {
		t.Fatalf("chart reused after Model S: log Z %v, want %v", plain, want)
	}
}

// The corpus E-step applies the re-weighting to every sentence: its
// counts and Σ log Z are the sums of the brute-force ones.
func TestReweightedCorpusEStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	model, skew := randomWeights(rng, 3, true), randomWeights(rng, 3, true)
	var sents [][]int
	for i := 0; i < 150; i++ {
		s := make([]int, 1+rng.IntN(6))
		for j := range s {
			s[j] = rng.IntN(3)
		}
		sents = append(sents, s)
	}
	corpus := CorpusFromNumbers(NewTagSet("a", "b", "c"), sents)
	r := Reweighting{Beta: 0.5, Skew: skew, Delta: -0.3, Segmented: true, SegBeta: -0.8}
	for _, workers := range []int{1, 2} {
		got := NewEStepper(corpus).Run(r.Weights(model), r.EStep(EStepOptions{Workers: workers}))
		want, ll := NewParams(3), 0.0
		for _, s := range sents {
			b := bruteForceReweighted(enumerate(s, model, skew, true), 3, r)
			want.Add(b.counts)
			ll += b.logZ
		}
		if relErr(got.LogLik, ll) > 1e-9 {
			t.Fatalf("workers %d: Σ log Z = %v, brute force %v", workers, got.LogLik, ll)
		}
		gt, wt := got.Counts.Tables(), want.Tables()
		for k := range gt {
			for i := range gt[k] {
				if relErr(gt[k][i], wt[k][i]) > 1e-9 {
					t.Fatalf("workers %d: table %d entry %d: %v, brute force %v", workers, k, i, gt[k][i], wt[k][i])
				}
			}
		}
		only := NewEStepper(corpus).Run(r.Weights(model), r.EStep(EStepOptions{Workers: workers, LogLikOnly: true}))
		if only.LogLik != got.LogLik {
			t.Fatalf("LogLikOnly: %v, with counts %v", only.LogLik, got.LogLik)
		}
	}
}

func TestReweightingWeights(t *testing.T) {
	p, q := NewParams(1), NewParams(1)
	p.Fill(0.25)
	q.Fill(0.5)
	p.Root[0], q.Stop[0] = 0, 0
	w := Reweighting{Beta: 0.5, Skew: q}.Weights(p)
	if w.Root[0] != 0 || w.Stop[0] != 0 || math.Abs(w.Child[0]-math.Sqrt(0.125)) > 1e-15 {
		t.Fatalf("tempered weights %+v", w)
	}
	if w := (Reweighting{Beta: 1, Skew: q}).Weights(p); w.Stop[0] != 0.25 {
		t.Fatalf("at β = 1 the skew must vanish, even where λ₀ = 0: %v", w.Stop[0])
	}
	if Plain().Weights(p) != p || !Plain().IsPlain() {
		t.Fatal("the plain reweighting must hand back the model itself")
	}
	for _, bad := range []Reweighting{{Beta: 0}, {Beta: math.NaN()}, {Beta: 1, Delta: math.Inf(1)}, {Beta: 1, Segmented: true, SegBeta: math.NaN()}} {
		if bad.Check() == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestAlignTags(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9))
	p := randomWeights(rng, 3, true)
	src := NewTagSet("x", "y", "z")
	dst := NewTagSet("z", "x")
	q, err := AlignTags(dst, src, p)
	if err != nil {
		t.Fatal(err)
	}
	if q.Root[0] != p.Root[2] || q.Child[q.ChildIndex(1, Right, 0)] != p.Child[p.ChildIndex(0, Right, 2)] ||
		q.Stop[DecisionIndex(0, Left, NonAdj)] != p.Stop[DecisionIndex(2, Left, NonAdj)] {
		t.Fatal("tables not aligned by tag name")
	}
	if _, err := AlignTags(NewTagSet("w"), src, p); err == nil {
		t.Fatal("a missing tag must be an error")
	}
}

// Smith (2006) §5.1.2–5.3 state the annealed E-steps on posteriors, not
// on event weights: DA's q(y | x) ∝ p_θ(y | x)^β · (1/|Y_x|)^(1−β), SDA's
// q(y | x) ∝ p_θ(y | x)^β · p_θ⁽⁰⁾(y | x)^(1−β), and "to carry out the SDA
// E step, we replace θ with βθ + (1 − β)θ⁽⁰⁾" — θ log-probabilities, so
// event weights p^β·p₀^(1−β), unnormalised, straight into the chart. The
// chart's expected counts under Reweighting.Weights must equal the
// posterior formulas computed by enumerating trees and normalising each
// model's posterior first; Zero's θ⁽⁰⁾ (all weights 1, a uniform
// posterior) must make SDA equal DA. A skew renormalised per multinomial,
// or interpolated linearly, fails this.
func TestSkewedEStepIsThesisPosterior(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	model, init := randomWeights(rng, 3, true), randomWeights(rng, 3, true)
	ones := NewParams(3)
	ones.Fill(1)
	c := NewChart(2)
	logPost := func(trees []enumerated, logP func(enumerated) float64) []float64 {
		out, z := make([]float64, len(trees)), math.Inf(-1)
		for i, e := range trees {
			out[i] = logP(e)
			z = logAdd(z, out[i])
		}
		for i := range out {
			out[i] -= z
		}
		return out
	}
	for n := 1; n <= 4; n++ {
		for _, tags := range allStrings(n, 3) {
			trees := enumerate(tags, model, init, false)
			post := logPost(trees, func(e enumerated) float64 { return e.logP })
			post0 := logPost(trees, func(e enumerated) float64 { return e.logSkew })
			uniform := -math.Log(float64(len(trees)))
			for _, beta := range []float64{0.1, 0.45, 0.8} {
				cases := []struct {
					name string
					r    Reweighting
					q    func(i int) float64 // unnormalised log q(y_i | x)
				}{
					{"DA", Reweighting{Beta: beta}, func(i int) float64 { return beta*post[i] + (1-beta)*uniform }},
					{"SDA", Reweighting{Beta: beta, Skew: init}, func(i int) float64 { return beta*post[i] + (1-beta)*post0[i] }},
					{"SDA from zero", Reweighting{Beta: beta, Skew: ones}, func(i int) float64 { return beta*post[i] + (1-beta)*uniform }},
				}
				for _, tc := range cases {
					z := math.Inf(-1)
					for i := range trees {
						z = logAdd(z, tc.q(i))
					}
					want := NewParams(3)
					wt := want.Tables()
					for i, e := range trees {
						p := math.Exp(tc.q(i) - z)
						for _, ev := range e.events {
							wt[ev[0]][ev[1]] += p
						}
					}
					c.Load(tags, tc.r.Weights(model), nil)
					c.Inside()
					if !c.Outside() {
						t.Fatalf("%s β=%v, tags %v: Outside found Z = 0", tc.name, beta, tags)
					}
					got := NewParams(3)
					c.AddCounts(tags, got, 1)
					gt := got.Tables()
					for k := range gt {
						for i := range gt[k] {
							if math.Abs(gt[k][i]-wt[k][i]) > 1e-9 {
								t.Fatalf("%s β=%v, tags %v: table %d entry %d: chart %v, thesis posterior %v",
									tc.name, beta, tags, k, i, gt[k][i], wt[k][i])
							}
						}
					}
				}
			}
		}
	}
}
