package dmv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// valences are every setting the tests hold against enumeration: each
// of pr-toolkit's 1, 2 and 3 for decisions and for children.
func valences() []Valence {
	var out []Valence
	for s := 1; s <= 3; s++ {
		for c := 1; c <= 3; c++ {
			out = append(out, Valence{s, c})
		}
	}
	return out
}

// randomValenceWeights draws positive weights with valence settings v;
// with probs, a normalised model.
func randomValenceWeights(rng *rand.Rand, tags int, v Valence, probs bool) *Params {
	p := NewValenceParams(tags, v)
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

// The events of one tree, written out by hand: a head with three left
// children takes its decisions at valences 0, 1, 2 (capped at Stop − 1)
// and its children at 0, 1, 2 (capped at Child − 1), nearest first; the
// enumeration below scores every tree by these events, so they are held
// to the definition here, independently of eachTreeEvent's loop.
func TestTreeEventsCountChildrenNearestFirst(t *testing.T) {
	// tokens 0 1 2 3: 3 is the root and heads 0, 1, 2 (nearest first: 2, 1, 0).
	tags, heads := []int{0, 1, 0, 1}, []int{4, 4, 4, 0}
	for _, v := range valences() {
		w := randomValenceWeights(rand.New(rand.NewPCG(5, uint64(v.Stop*10+v.Child))), 2, v, false)
		lg := func(x float64) float64 { return math.Log(x) }
		want := lg(w.Root[1])
		for k, d := range []int{2, 1, 0} { // 3's left children, nearest first
			want += lg(w.Cont[w.DecisionAt(1, Left, min(k, v.Stop-1))])
			want += lg(w.Child[w.ChildAt(1, Left, min(k, v.Child-1), tags[d])])
		}
		want += lg(w.Stop[w.DecisionAt(1, Left, min(3, v.Stop-1))])
		want += lg(w.Stop[w.DecisionAt(1, Right, 0)])
		for _, h := range []int{0, 1, 2} { // leaves: a first stop each side
			want += lg(w.Stop[w.DecisionAt(tags[h], Left, 0)]) + lg(w.Stop[w.DecisionAt(tags[h], Right, 0)])
		}
		if got := TreeLogWeight(tags, heads, w); relErr(got, want) > 1e-12 {
			t.Errorf("%v: tree log weight %v, by hand %v", v, got, want)
		}
	}
}

// The valence chart's log Z, posteriors of every event, Viterbi and MBR
// trees against enumeration of every projective tree, for every setting.
func TestValenceChartMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, v := range valences() {
		models := []*Params{randomValenceWeights(rng, 2, v, true), randomValenceWeights(rng, 2, v, false)}
		for n := 1; n <= 5; n++ {
			for _, tags := range allStrings(n, 2) {
				for _, w := range models {
					checkAgainstBruteForce(t, tags, w, nil)
				}
			}
		}
		for trial := 0; trial < 6; trial++ {
			tagCount := 2 + rng.IntN(3)
			w := randomValenceWeights(rng, tagCount, v, trial%2 == 0)
			tags := randomTags(rng, 6+rng.IntN(2), tagCount)
			var dist []float64
			if trial%3 == 0 { // Model L's factor per edge
				dist = distanceFactors(len(tags), 0.3)
			}
			checkAgainstBruteForce(t, tags, w, dist)
		}
	}
}

// With the plain DMV's settings a table loaded as if it had valence
// settings gives what the DMV's own chart gives: the two programs agree.
func TestValenceChartAgreesWithDMVChart(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	w := randomWeights(rng, 4, true)
	tags := []int{0, 3, 1, 1, 2, 0, 3, 2, 1, 0, 2, 3}
	c := NewChart(len(tags))
	c.Load(tags, w, nil)
	want := c.Inside()
	var vc vchart
	vc.load(tags, w, nil)
	if got := vc.inside(false); relErr(got, want) > 1e-12 {
		t.Fatalf("valence chart log Z %v, DMV chart %v", got, want)
	}
}

// The extended valence grammar (Stop 2, Child 2) runs on the DMV's own
// chart (held to enumeration by TestValenceChartMatchesBruteForce); the
// valence chart, which takes its sentences of tiny potentials, gives
// the same log Z, counts and best trees' weights, on sentences up to 40
// long.
func TestTwoChildChartIsTheValenceChart(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for trial := range 12 {
		w := randomValenceWeights(rng, 4, twoChildValences, trial%2 == 0)
		tags := randomTags(rng, 2+rng.IntN(39), 4)
		var dist []float64
		if trial%3 == 0 {
			dist = distanceFactors(len(tags), -0.3)
		}
		c := NewChart(len(tags))
		c.Load(tags, w, dist)
		if c.valenced || !c.twoChild {
			t.Fatal("Stop 2, Child 2 did not load into the DMV's chart")
		}
		var vc vchart
		vc.load(tags, w, dist)
		logZ, want := c.Inside(), vc.inside(false)
		if relErr(logZ, want) > 1e-12 {
			t.Fatalf("n = %d: log Z %v, valence chart %v", len(tags), logZ, want)
		}
		c.Outside()
		vc.outside()
		got, wantCounts := NewValenceParams(4, twoChildValences), NewValenceParams(4, twoChildValences)
		c.AddCounts(tags, got, 1)
		vc.addCounts(tags, wantCounts, 1)
		sameTables(t, got, wantCounts, 1e-11)
		// (Trees of equal weight, common where tags repeat, are broken
		// differently: the weights and the tree's own score must agree.)
		heads, vheads := make([]int, len(tags)), make([]int, len(tags))
		best, vbest := c.Viterbi(heads), vc.viterbi(vheads)
		if relErr(best, vbest) > 1e-12 || relErr(treeLogScore(tags, heads, w, dist), best) > 1e-12 {
			t.Fatalf("n = %d: Viterbi %v %v (scoring %v), valence chart %v %v", len(tags), best, heads, treeLogScore(tags, heads, w, dist), vbest, vheads)
		}
	}
}

// Long sentences stay finite in log space.
func TestValenceChartLongSentence(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	w := randomValenceWeights(rng, 5, Valence{3, 2}, true)
	tags := make([]int, 120)
	for i := range tags {
		tags[i] = rng.IntN(5)
	}
	c := NewChart(len(tags))
	c.Load(tags, w, nil)
	z := c.Inside()
	if math.IsInf(z, 0) || math.IsNaN(z) || !c.Outside() {
		t.Fatalf("log Z %v of a 120-token sentence", z)
	}
	counts := NewValenceParams(5, w.V)
	c.AddCounts(tags, counts, 1)
	roots := 0.0
	for _, r := range counts.Root {
		roots += r
	}
	if math.Abs(roots-1) > 1e-9 {
		t.Fatalf("root posteriors sum to %v", roots)
	}
}

// vchartPosteriors are a loaded vchart's log Z and every posterior, after
// its soft program or (logSpace) the one in log space.
func vchartPosteriors(t *testing.T, c *vchart, logSpace bool) []float64 {
	t.Helper()
	var z float64
	var ok bool
	if logSpace {
		z = c.insideLog(false)
		ok = c.outsideLog()
	} else {
		z = c.inside(false)
		ok = c.outside()
	}
	if !ok {
		t.Fatalf("outside failed (log space %v, log Z %v)", logSpace, z)
	}
	n := c.n
	out := []float64{z}
	out = append(out, c.rootPost[:n]...)
	out = append(out, c.edgePost[:c.val.Child*n*n]...)
	out = append(out, c.stopPost[:2*n*c.val.Stop]...)
	return append(out, c.contPost[:2*n*c.val.Stop]...)
}

func sameWithin(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		if d := math.Abs(got[i] - want[i]); d > tol*math.Max(1, math.Abs(want[i])) || math.IsNaN(got[i]) {
			t.Fatalf("%s: value %d is %v, in log space %v", what, i, got[i], want[i])
		}
	}
}

// The soft program in the space of probabilities gives what the one in
// log space gives — log Z and every posterior — for every valence
// setting, with Model L's distance factors and with posterior
// regularization's factors per attachment.
func TestValenceChartLinearAgreesWithLogSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, v := range valences() {
		for trial := 0; trial < 8; trial++ {
			tagCount := 2 + rng.IntN(4)
			w := randomValenceWeights(rng, tagCount, v, trial%2 == 0)
			n := 1 + rng.IntN(25)
			tags := randomTags(rng, n, tagCount)
			var dist []float64
			if trial%3 == 0 {
				dist = distanceFactors(n, -0.4)
			}
			edge, root := make([]float64, n*n), make([]float64, n)
			for i := range edge {
				edge[i] = math.Exp(-3 * rng.Float64())
			}
			for i := range root {
				root[i] = math.Exp(-3 * rng.Float64())
			}
			load := func() *vchart {
				var c vchart
				c.load(tags, w, dist)
				if trial%4 == 1 {
					c.factor(edge, root)
				}
				return &c
			}
			soft := vchartPosteriors(t, load(), false)
			sameWithin(t, fmt.Sprintf("%v n=%d", v, n), soft, vchartPosteriors(t, load(), true), 1e-11)
		}
	}
}

// A sentence whose Z leaves the floats at the first scaling (every half
// without children costs 10⁻⁹⁰, and every tree has several) is settled by
// a common factor on the attachments, as the plain chart's; without that
// search it falls back to log space, and so does one with a potential
// below tinyPotential (10⁻³⁰⁰: a leaf's two halves underflow in any one
// item). Each gives log space's answer.
func TestValenceChartSettlesOrFallsBack(t *testing.T) {
	v := Valence{Stop: 2, Child: 2}
	w := NewValenceParams(2, v)
	for _, tab := range w.Tables() {
		for i := range tab {
			tab[i] = 1
		}
	}
	for tag := range 2 {
		for dir := Left; dir <= Right; dir++ {
			w.Stop[w.DecisionAt(tag, dir, 0)] = 1e-90
		}
	}
	tags := []int{0, 1, 1, 0, 1, 0, 0, 1}
	load := func() *vchart {
		var c vchart
		c.load(tags, w, nil)
		return &c
	}
	first := load()
	if !first.scale() {
		t.Fatal("10⁻⁹⁰ taken for too small")
	}
	if first.insideLinear(); normal(first.z) {
		t.Fatalf("Z %v at the first scaling: the case does not need settling", first.z)
	}
	want := vchartPosteriors(t, load(), true)
	c := load()
	sameWithin(t, "settled", vchartPosteriors(t, c, false), want, 1e-9)
	if !c.linear {
		t.Error("the settled sentence went to log space")
	}
	defer func(tries int) { settleTries = tries }(settleTries)
	settleTries = 0
	c = load()
	sameWithin(t, "fallen back", vchartPosteriors(t, c, false), want, 1e-12)
	if c.linear {
		t.Error("with no search for a factor the sentence stayed in the space of probabilities")
	}
	settleTries = 40
	for tag := range 2 {
		for dir := Left; dir <= Right; dir++ {
			w.Stop[w.DecisionAt(tag, dir, 0)] = 1e-300
		}
	}
	c = load()
	got := vchartPosteriors(t, c, false)
	if c.linear {
		t.Error("potentials of 10⁻³⁰⁰ went to the space of probabilities")
	}
	if b := bruteForce(tags, w, nil); relErr(got[0], b.logZ) > 1e-12 {
		t.Errorf("log Z %v, by enumeration %v", got[0], b.logZ)
	}
}

// The depth bound's chart reads the plain DMV's potentials only: an
// E-step with the bound refuses a model with valence settings (it had run
// over no potentials, log-likelihood −Inf).
func TestDepthBoundRefusesValence(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := CorpusFromNumbers(NewTagSet(), [][]int{{0, 1, 0}, {1, 0}})
	for _, v := range []Valence{twoChildValences, {Stop: 3, Child: 1}} {
		res := NewEStepper(c).Run(randomValenceWeights(rng, 2, v, true), EStepOptions{Workers: 1, Bound: DepthBound{Max: 1, Chunk: 1}})
		if res.Err == nil {
			t.Errorf("%v with the depth bound: no error (log-likelihood %v)", v, res.LogLik)
		}
	}
}
