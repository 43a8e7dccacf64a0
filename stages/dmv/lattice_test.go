package dmv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomLattice draws a layered deterministic lattice over tags tags:
// up to width states per depth, random arcs (each state's tags
// distinct), random final states at several depths, dead ends included,
// states numbered in a random topological order.
func randomLattice(rng *rand.Rand, depth, width, tags int) *Lattice {
	l := &Lattice{}
	layer := [][]int{{0}}
	l.Depth, l.Final = []int{0}, []bool{false}
	for d := 1; d <= depth; d++ {
		var states []int
		for k := 1 + rng.IntN(width); k > 0; k-- {
			states = append(states, len(l.Depth))
			l.Depth = append(l.Depth, d)
			l.Final = append(l.Final, rng.IntN(3) == 0 || d == depth)
		}
		layer = append(layer, states)
	}
	for d := 0; d < depth; d++ {
		for _, s := range layer[d] {
			out := 1 + rng.IntN(min(tags, 3))
			if rng.IntN(10) == 0 {
				out = 0 // a dead end
			}
			for _, t := range rng.Perm(tags)[:out] {
				next := layer[d+1][rng.IntN(len(layer[d+1]))]
				l.Arcs = append(l.Arcs, LatticeArc{From: s, To: next, Tag: t})
			}
		}
	}
	return renumber(rng, l)
}

// renumber numbers the states of l in a random topological order (Kahn's
// algorithm taking a random ready state), the start staying 0.
func renumber(rng *rand.Rand, l *Lattice) *Lattice {
	n := l.States()
	indeg := make([]int, n)
	for _, a := range l.Arcs {
		indeg[a.To]++
	}
	number := make([]int, n)
	ready, next := []int{0}, 0
	for s := 1; s < n; s++ {
		if indeg[s] == 0 {
			ready = append(ready, s)
		}
	}
	for len(ready) > 0 {
		k := 0
		if next > 0 {
			k = rng.IntN(len(ready))
		}
		s := ready[k]
		ready = append(ready[:k], ready[k+1:]...)
		number[s] = next
		next++
		for _, a := range l.Arcs {
			if a.From == s {
				if indeg[a.To]--; indeg[a.To] == 0 {
					ready = append(ready, a.To)
				}
			}
		}
	}
	m := &Lattice{Depth: make([]int, n), Final: make([]bool, n)}
	for s := 0; s < n; s++ {
		m.Depth[number[s]], m.Final[number[s]] = l.Depth[s], l.Final[s]
	}
	for _, a := range l.Arcs {
		m.Arcs = append(m.Arcs, LatticeArc{From: number[a.From], To: number[a.To], Tag: a.Tag})
	}
	slices.SortStableFunc(m.Arcs, func(x, y LatticeArc) int { return x.From - y.From })
	return m
}

// latticeStrings lists the strings the lattice spells, one per path.
func latticeStrings(l *Lattice) [][]int {
	var out [][]int
	var walk func(s int, prefix []int)
	walk = func(s int, prefix []int) {
		if l.Final[s] && len(prefix) > 0 {
			out = append(out, append([]int(nil), prefix...))
		}
		for _, a := range l.Arcs {
			if a.From == s {
				walk(a.To, append(prefix, a.Tag))
			}
		}
	}
	walk(0, nil)
	return out
}

// checkLatticeAgainstStrings compares the lattice chart with the sentence
// chart summed over the lattice's strings: Z = Σ Z(x), and the counts are
// Σ Z(x)/Z · counts(x).
func checkLatticeAgainstStrings(t *testing.T, l *Lattice, w *Params, dist []float64, tol float64) {
	t.Helper()
	if err := l.Check(w.T); err != nil {
		t.Fatal(err)
	}
	strs := latticeStrings(l)
	lc := NewLatticeChart()
	lc.Load(l, w, dist)
	logZ := lc.Inside()
	if len(strs) == 0 {
		if !math.IsInf(logZ, -1) || lc.Outside() {
			t.Fatalf("empty lattice: log Z %v", logZ)
		}
		return
	}
	sc := NewChart(4)
	logZs := make([]float64, len(strs))
	maxLog := math.Inf(-1)
	for i, x := range strs {
		sc.Load(x, w, dist)
		logZs[i] = sc.Inside()
		maxLog = math.Max(maxLog, logZs[i])
	}
	sum := 0.0
	for _, v := range logZs {
		sum += math.Exp(v - maxLog)
	}
	want := maxLog + math.Log(sum)
	if e := relErr(logZ, want); e > tol {
		t.Fatalf("%d strings: lattice log Z %v, sum over strings %v (rel. error %g)", len(strs), logZ, want, e)
	}
	wantCounts := NewParams(w.T)
	for i, x := range strs {
		sc.Load(x, w, dist)
		sc.Inside()
		if sc.Outside() {
			sc.AddCounts(x, wantCounts, math.Exp(logZs[i]-want))
		}
	}
	if !lc.Outside() {
		t.Fatal("Outside found Z = 0")
	}
	got := NewParams(w.T)
	lc.AddCounts(got, 1)
	gt, wt := got.Tables(), wantCounts.Tables()
	for k := range gt {
		for i := range gt[k] {
			if math.Abs(gt[k][i]-wt[k][i]) > tol*math.Max(1, math.Abs(wt[k][i])) {
				t.Fatalf("%d strings: table %d entry %d: lattice count %v, over strings %v", len(strs), k, i, gt[k][i], wt[k][i])
			}
		}
	}
}

func TestChainLatticeIsTheSentence(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	lc, sc := NewLatticeChart(), NewChart(4)
	for trial := 0; trial < 200; trial++ {
		tagCount := 1 + rng.IntN(5)
		w := randomWeights(rng, tagCount, trial%2 == 0)
		n := 1 + rng.IntN(12)
		tags := make([]int, n)
		for i := range tags {
			tags[i] = rng.IntN(tagCount)
		}
		var dist []float64
		if trial%3 == 0 {
			dist = make([]float64, n+1)
			for d := range dist {
				dist[d] = math.Exp(-0.3 * float64(d))
			}
		}
		sc.Load(tags, w, dist)
		want := sc.Inside()
		sc.Outside()
		wantCounts := NewParams(tagCount)
		sc.AddCounts(tags, wantCounts, 1)
		l := ChainLattice(tags)
		if err := l.Check(tagCount); err != nil {
			t.Fatal(err)
		}
		lc.Load(l, w, dist)
		if got := lc.Inside(); relErr(got, want) > 1e-12 {
			t.Fatalf("tags %v: chain log Z %v, sentence %v", tags, got, want)
		}
		lc.Outside()
		got := NewParams(tagCount)
		lc.AddCounts(got, 1)
		gt, wt := got.Tables(), wantCounts.Tables()
		for k := range gt {
			for i := range gt[k] {
				if math.Abs(gt[k][i]-wt[k][i]) > 1e-11*math.Max(1, math.Abs(wt[k][i])) {
					t.Fatalf("tags %v: table %d entry %d: chain %v, sentence %v", tags, k, i, gt[k][i], wt[k][i])
				}
			}
		}
	}
}

func TestLatticeMatchesSumOverStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 300; trial++ {
		tagCount := 1 + rng.IntN(4)
		w := randomWeights(rng, tagCount, trial%2 == 0)
		depth := 1 + rng.IntN(6)
		l := randomLattice(rng, depth, 3, tagCount)
		var dist []float64
		if trial%3 == 0 {
			dist = make([]float64, depth+1)
			for d := range dist {
				dist[d] = math.Exp(0.4 - 0.5*float64(d))
			}
		}
		t.Run(fmt.Sprint(trial), func(t *testing.T) { checkLatticeAgainstStrings(t, l, w, dist, 1e-9) })
	}
}

// The brute-force enumerator of trees is the ground truth of Chart; check
// the lattice against it directly on small lattices too.
func TestLatticeMatchesTreeEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 60; trial++ {
		w := randomWeights(rng, 3, trial%2 == 1)
		l := randomLattice(rng, 1+rng.IntN(5), 2, 3)
		strs := latticeStrings(l)
		lc := NewLatticeChart()
		lc.Load(l, w, nil)
		got := lc.Inside()
		want := math.Inf(-1)
		for _, x := range strs {
			b := bruteForce(x, w, nil)
			want = logAdd(want, b.logZ)
		}
		if e := relErr(got, want); e > 1e-9 && !(math.IsInf(got, -1) && math.IsInf(want, -1)) {
			t.Fatalf("trial %d: lattice log Z %v, trees over %d strings %v", trial, got, len(strs), want)
		}
	}
}

func logAdd(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	m := math.Max(a, b)
	return m + math.Log(math.Exp(a-m)+math.Exp(b-m))
}

// Multiplying every weight by k multiplies each tree of m words by
// k^(4m−1) (a root, m−1 children, m−1 conts, 2m stops): log Z moves by
// (4m−1)·log k exactly, however small or large the weights get.
func TestLatticeLongAndExtremeStayFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sc, lc := NewChart(4), NewLatticeChart()
	w := randomWeights(rng, 4, true)
	const m = 120
	tags := make([]int, m)
	for i := range tags {
		tags[i] = rng.IntN(4)
	}
	sc.Load(tags, w, nil)
	base := sc.Inside()
	for _, k := range []float64{1e-30, 1e-3, 1, 1e3, 1e30} {
		wk := w.Clone()
		wk.apply(func(v float64) float64 { return v * k })
		lc.Load(ChainLattice(tags), wk, nil)
		got := lc.Inside()
		want := base + (4*m-1)*math.Log(k)
		if math.IsInf(got, 0) || math.IsNaN(got) || relErr(got, want) > 1e-10 {
			t.Fatalf("×%g: 120-token chain log Z %v, want %v", k, got, want)
		}
		if !lc.Outside() {
			t.Fatalf("×%g: Outside failed", k)
		}
		counts := NewParams(4)
		lc.AddCounts(counts, 1)
		roots, stops := 0.0, 0.0
		for _, r := range counts.Root {
			roots += r
		}
		for _, s := range counts.Stop {
			stops += s
		}
		if math.Abs(roots-1) > 1e-9 || math.Abs(stops-2*m) > 1e-7 {
			t.Fatalf("×%g: %v roots and %v stops expected, want 1 and %d", k, roots, stops, 2*m)
		}
	}
}

func TestLatticeWithoutTrees(t *testing.T) {
	w := NewParams(2)
	w.Fill(1)
	w.Root[0], w.Root[1] = 0, 0
	lc := NewLatticeChart()
	lc.Load(ChainLattice([]int{0, 1}), w, nil)
	if got := lc.Inside(); !math.IsInf(got, -1) || lc.Outside() {
		t.Fatalf("no root possible: log Z %v", got)
	}
	// Only the empty string: no tree.
	empty := &Lattice{Depth: []int{0}, Final: []bool{true}}
	lc.Load(empty, w, nil)
	if got := lc.Inside(); !math.IsInf(got, -1) {
		t.Fatalf("empty string: log Z %v", got)
	}
}

func TestLatticeCheck(t *testing.T) {
	good := ChainLattice([]int{0, 1})
	if err := good.Check(2); err != nil {
		t.Fatal(err)
	}
	bad := []*Lattice{
		{},
		{Depth: []int{0, 1}, Final: []bool{true}},
		{Depth: []int{1}, Final: []bool{true}},
		{Depth: []int{0, 1, 1}, Final: []bool{false, true, true}, Arcs: []LatticeArc{{0, 1, 0}, {0, 2, 0}}},
		{Depth: []int{0, 1, 2}, Final: []bool{false, false, true}, Arcs: []LatticeArc{{0, 2, 0}}},
		{Depth: []int{0, 1}, Final: []bool{false, true}, Arcs: []LatticeArc{{0, 1, 5}}},
		{Depth: []int{0, 1, 2}, Final: []bool{false, false, true}, Arcs: []LatticeArc{{1, 2, 0}, {0, 1, 0}}},
	}
	for i, l := range bad {
		if l.Check(2) == nil {
			t.Errorf("lattice %d passes Check", i)
		}
	}
}

// Weights spread over e^±100 and more, as a line search may try: the
// lattice chart still matches the enumeration of trees (in log space),
// and its posteriors stay finite.
func TestLatticeExtremeWeightsMatchEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 40; trial++ {
		w := NewParams(3)
		for _, tab := range w.Tables() {
			for i := range tab {
				tab[i] = math.Exp(40 * rng.NormFloat64())
			}
		}
		l := randomLattice(rng, 1+rng.IntN(5), 2, 3)
		want := math.Inf(-1)
		for _, x := range latticeStrings(l) {
			want = logAdd(want, bruteForce(x, w, nil).logZ)
		}
		lc := NewLatticeChart()
		lc.Load(l, w, nil)
		got := lc.Inside()
		if math.IsInf(want, -1) {
			continue
		}
		if e := relErr(got, want); e > 1e-9 {
			t.Fatalf("trial %d: log Z %v, enumeration %v", trial, got, want)
		}
		if !lc.Outside() {
			t.Fatalf("trial %d: Outside failed", trial)
		}
		counts := NewParams(3)
		lc.AddCounts(counts, 1)
		for _, tab := range counts.Tables() {
			for _, v := range tab {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < -1e-9 {
					t.Fatalf("trial %d: count %v", trial, v)
				}
			}
		}
	}
}
