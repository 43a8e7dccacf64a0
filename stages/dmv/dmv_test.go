package dmv

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/brute"
)

// Every word is attached exactly once and every half-head stops exactly
// once, so per sentence the expected root counts sum to 1, child counts
// to n−1 and stop counts to 2n, and the cont counts equal the child
// counts head by head.
func TestPosteriorCountsAreConsistent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	w := randomWeights(rng, 6, true)
	c := NewChart(4)
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(30)
		tags := make([]int, n)
		for i := range tags {
			tags[i] = rng.IntN(6)
		}
		counts := NewParams(6)
		c.Load(tags, w, nil)
		c.Inside()
		if !c.Outside() {
			t.Fatalf("n=%d: Z = 0", n)
		}
		c.AddCounts(tags, counts, 1)
		sum := func(xs []float64) float64 {
			s := 0.0
			for _, x := range xs {
				s += x
			}
			return s
		}
		for _, check := range []struct {
			what      string
			got, want float64
		}{
			{"root", sum(counts.Root), 1},
			{"child", sum(counts.Child), float64(n - 1)},
			{"stop", sum(counts.Stop), float64(2 * n)},
			{"cont", sum(counts.Cont), float64(n - 1)},
		} {
			if math.Abs(check.got-check.want) > 1e-9*math.Max(1, check.want) {
				t.Fatalf("n=%d: %s counts sum to %v, want %v", n, check.what, check.got, check.want)
			}
		}
		for h := 0; h < 6; h++ {
			for dir := Left; dir <= Right; dir++ {
				children := sum(counts.Child[counts.ChildIndex(h, dir, 0):counts.ChildIndex(h, dir, 6)])
				conts := counts.Cont[DecisionIndex(h, dir, Adj)] + counts.Cont[DecisionIndex(h, dir, NonAdj)]
				if math.Abs(children-conts) > 1e-9*math.Max(1, children) {
					t.Fatalf("tag %d dir %d: %v children but %v conts", h, dir, children, conts)
				}
			}
		}
	}
}

// A 150-token sentence must have a finite log-likelihood, and a
// hundreds-long one under a flat model (where the number of trees, not
// their probability, is what grows) too.
func TestLongSentencesStayFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	w := randomWeights(rng, 10, true)
	flat := NewParams(10)
	flat.Fill(1)
	for _, tc := range []struct {
		n int
		w *Params
	}{{150, w}, {300, w}, {400, flat}} {
		tags := make([]int, tc.n)
		for i := range tags {
			tags[i] = rng.IntN(10)
		}
		c := NewChart(tc.n)
		c.Load(tags, tc.w, nil)
		logZ := c.Inside()
		if math.IsInf(logZ, 0) || math.IsNaN(logZ) {
			t.Fatalf("n=%d: log Z = %v", tc.n, logZ)
		}
		if !c.Outside() {
			t.Fatalf("n=%d: Outside failed", tc.n)
		}
		counts := NewParams(10)
		c.AddCounts(tags, counts, 1)
		root := 0.0
		for _, x := range counts.Root {
			root += x
		}
		if math.Abs(root-1) > 1e-6 {
			t.Fatalf("n=%d: root posteriors sum to %v", tc.n, root)
		}
		heads := make([]int, tc.n)
		best := c.Viterbi(heads)
		if math.IsInf(best, 0) || best > logZ+1e-9 {
			t.Fatalf("n=%d: Viterbi %v against log Z %v", tc.n, best, logZ)
		}
		if got := treeLogScore(tags, heads, tc.w, nil); relErr(got, best) > 1e-9 {
			t.Fatalf("n=%d: Viterbi tree scores %v, reported %v", tc.n, got, best)
		}
	}
}

// A sentence no tree can generate has log Z = −Inf, no NaN, no counts.
func TestZeroProbabilitySentence(t *testing.T) {
	w := NewParams(2)
	w.Fill(0.5)
	w.Root[1] = 0 // tag 1 can never be the root, and no tag takes it as child
	for i := range w.Child {
		if i%2 == 1 {
			w.Child[i] = 0
		}
	}
	w.Child[w.ChildIndex(1, Right, 1)] = 0
	c := NewChart(2)
	c.Load([]int{1, 1}, w, nil)
	if logZ := c.Inside(); !math.IsInf(logZ, -1) {
		t.Fatalf("log Z = %v, want -Inf", logZ)
	}
	if c.Outside() {
		t.Fatal("Outside succeeded on a sentence of probability 0")
	}
	heads := []int{7, 7}
	if v := c.Viterbi(heads); !math.IsInf(v, -1) || heads[0] != 7 {
		t.Fatalf("Viterbi gave %v %v", v, heads)
	}
	// The decoder's fallback still parses it.
	dec := NewDecoder(NewTagSet("A", "B"), w)
	tags, _ := dec.Encode([]string{"B", "B"}, nil)
	if _, fell := dec.Decode(c, tags, heads, false); !fell || format.ValidateHeads(heads, 2) != nil {
		t.Fatalf("fallback: fell=%v heads=%v", fell, heads)
	}
}

func TestDecoderUnknownTags(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	ts := NewTagSet("DT", "NN", "VB")
	w := randomWeights(rng, 3, true)
	dec := NewDecoder(ts, w)
	sent := []string{"DT", "XX", "VB", "YY", "NN"}
	tags, unknown := dec.Encode(sent, nil)
	if unknown != 2 || tags[1] != 3 || tags[3] != 3 {
		t.Fatalf("encode: %v, %d unknown", tags, unknown)
	}
	// The decoder's one shared average tag parses as the model extended
	// by a tag of its own for every unseen tag (renormalised): the same
	// factor on every tree.
	ext, p, unseen, err := (&Table{Tags: ts, Params: w, Unit: format.Prob}).Extend(sent)
	if err != nil || len(unseen) != 2 {
		t.Fatalf("extend: %v %v", unseen, err)
	}
	full, _ := ext.Encode(sent, nil)
	for _, mbr := range []bool{false, true} {
		heads, want := make([]int, 5), make([]int, 5)
		if _, fell := dec.Decode(NewChart(5), tags, heads, mbr); fell {
			t.Errorf("mbr=%v: unknown tags needed the fallback", mbr)
		}
		if _, fell := NewDecoder(ext, p).Decode(NewChart(5), full, want, mbr); fell {
			t.Errorf("mbr=%v: extended model needed the fallback", mbr)
		}
		if !slices.Equal(heads, want) {
			t.Errorf("mbr=%v: shared average tag %v, extended model %v", mbr, heads, want)
		}
		if err := format.ValidateHeads(heads, 5); err != nil {
			t.Errorf("mbr=%v: %v", mbr, err)
		}
	}
}

func TestExtendAddsTheAverageTag(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	ts := NewTagSet("A", "B", "C")
	w := randomWeights(rng, 3, true)
	m := &Table{Tags: ts, Params: w, Unit: format.Prob}
	one, p1, _, err := m.Extend([]string{"B", "Z"})
	if err != nil {
		t.Fatal(err)
	}
	// Known tags keep their probabilities exactly (not renormalised), so
	// a sentence of known tags scores as under the model itself.
	for i, name := range ts.Names() {
		j, _ := one.Index(name)
		if p1.Root[j] != w.Root[i] {
			t.Errorf("root %s: %v, model %v", name, p1.Root[j], w.Root[i])
		}
	}
	ext, p, unseen, err := m.Extend([]string{"B", "Z", "AA"})
	if err != nil || !slices.Equal(unseen, []string{"AA", "Z"}) || !slices.Equal(ext.Names(), []string{"A", "AA", "B", "C", "Z"}) {
		t.Fatalf("extend: %v %v %v", ext.Names(), unseen, err)
	}
	// Every parameter of a known or unseen tag is the same however many
	// unseen tags there are (shards add up).
	for _, name := range []string{"A", "B", "C", "Z"} {
		i, _ := one.Index(name)
		j, _ := ext.Index(name)
		if p1.Root[i] != p.Root[j] || p1.Stop[DecisionIndex(i, Right, NonAdj)] != p.Stop[DecisionIndex(j, Right, NonAdj)] {
			t.Errorf("%s: parameters depend on the number of unseen tags", name)
		}
		for _, arg := range []string{"A", "C", "Z"} {
			a1, _ := one.Index(arg)
			a2, _ := ext.Index(arg)
			if x, y := p1.Child[p1.ChildIndex(i, Left, a1)], p.Child[p.ChildIndex(j, Left, a2)]; x != y {
				t.Errorf("child %s left %s: %v with one unseen tag, %v with two", name, arg, x, y)
			}
		}
	}
	// The unseen tag is the mean dependent and the mean head.
	z, _ := ext.Index("Z")
	if want := (w.Root[0] + w.Root[1] + w.Root[2]) / 3; math.Abs(p.Root[z]-want) > 1e-12 {
		t.Errorf("unseen root %v, want the mean %v", p.Root[z], want)
	}
	wantStop := (w.Stop[DecisionIndex(0, Left, Adj)] + w.Stop[DecisionIndex(1, Left, Adj)] + w.Stop[DecisionIndex(2, Left, Adj)]) / 3
	if got := p.Stop[DecisionIndex(z, Left, Adj)]; math.Abs(got-wantStop) > 1e-12 {
		t.Errorf("unseen stop %v, want the mean %v", got, wantStop)
	}
	if _, _, _, err := m.Extend([]string{"X", "Y"}); err == nil || !strings.Contains(err.Error(), "tagmap") {
		t.Errorf("no tag known: %v", err)
	}
}

func TestEventsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	ts := NewTagSet("DT", "NN", "VBD")
	p := randomWeights(rng, 3, true)
	var b TableBuilder
	for _, e := range Events(ts, p, format.Prob) {
		line, err := format.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back format.Event
		if err := format.Unmarshal(line, &back); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if err := b.Add(back); err != nil {
			t.Fatal(err)
		}
	}
	table, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	got, want := table.Params.Tables(), p.Tables()
	for k := range got {
		for i := range got[k] {
			if got[k][i] != want[k][i] {
				t.Fatalf("table %d entry %d: %v after the round trip, %v before", k, i, got[k][i], want[k][i])
			}
		}
	}
	if err := b.Add(Events(ts, p, format.Prob)[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Build(); err == nil {
		t.Fatal("a model with an event given twice was accepted")
	}
}

func TestMStepNormalises(t *testing.T) {
	counts := NewParams(2)
	counts.Root[0], counts.Root[1] = 3, 1
	counts.Child[counts.ChildIndex(0, Right, 1)] = 2
	counts.Stop[DecisionIndex(0, Right, Adj)] = 1
	counts.Cont[DecisionIndex(0, Right, Adj)] = 3
	p := MStep(counts, 0)
	if p.Root[0] != 0.75 || p.Root[1] != 0.25 {
		t.Errorf("root %v", p.Root)
	}
	if p.Child[p.ChildIndex(0, Right, 1)] != 1 || p.Child[p.ChildIndex(0, Right, 0)] != 0 {
		t.Errorf("child %v", p.Child)
	}
	if p.Stop[DecisionIndex(0, Right, Adj)] != 0.25 || p.Cont[DecisionIndex(0, Right, Adj)] != 0.75 {
		t.Errorf("stop/cont %v %v", p.Stop, p.Cont)
	}
	// A multinomial without counts is uniform, with λ everything is.
	if p.Child[p.ChildIndex(1, Left, 0)] != 0.5 || p.Stop[DecisionIndex(1, Left, NonAdj)] != 0.5 {
		t.Errorf("empty multinomials not uniform: %v %v", p.Child, p.Stop)
	}
	s := MStep(counts, 1)
	if math.Abs(s.Root[0]-4.0/6) > 1e-15 || math.Abs(s.Stop[DecisionIndex(0, Right, Adj)]-2.0/6) > 1e-15 {
		t.Errorf("add-1: root %v stop %v", s.Root, s.Stop)
	}
}

// Sampled trees follow the model: over all sentences of up to 3 tokens,
// the frequency of each (tags, tree) approaches its probability given
// that the sentence is that short.
func TestSampleFollowsTheModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	p := randomWeights(rng, 2, true)
	for i := range p.Stop { // stop often, so short sentences are common
		p.Stop[i], p.Cont[i] = 0.7, 0.3
	}
	const maxLen, draws = 3, 200000
	freq := map[string]int{}
	accepted := 0
	for i := 0; i < draws; i++ {
		tags, heads, ok := Sample(rng, p, maxLen)
		if !ok {
			continue
		}
		accepted++
		freq[fmtTree(tags, heads)]++
	}
	// The probability of every short tagged tree, and their total.
	prob := map[string]float64{}
	total := 0.0
	for n := 1; n <= maxLen; n++ {
		for _, tags := range allStrings(n, 2) {
			for _, heads := range brute.ProjectiveTrees(n) {
				q := math.Exp(TreeLogWeight(tags, heads, p))
				prob[fmtTree(tags, heads)] = q
				total += q
			}
		}
	}
	chi2 := 0.0
	for key, q := range prob {
		expect := float64(accepted) * q / total
		d := float64(freq[key]) - expect
		chi2 += d * d / expect
		delete(freq, key)
	}
	if len(freq) > 0 {
		t.Fatalf("sampled trees that are not short projective trees: %v", freq)
	}
	// 2 + 2·4 + 7·8 = 66 cells; the 99.9% point of χ²(65) is about 107.
	if chi2 > 107 {
		t.Fatalf("χ² = %.1f over %d cells: samples do not follow the model", chi2, len(prob))
	}
}

func fmtTree(tags, heads []int) string {
	b, _ := format.Marshal([2][]int{tags, heads})
	return string(b)
}

// The km initializer's counts on A B C, computed by hand: each token is
// the root with mass 1/3 and spreads 2/3 over the others as 1/distance.
func TestKMCounts(t *testing.T) {
	c := abcCorpus()
	got, _ := KMCounts(c)
	want := NewParams(3)
	addABCMasses(want, func(h, dir int, k float64) {
		first := math.Min(1, k)
		want.Cont[DecisionIndex(h, dir, Adj)] = first
		want.Stop[DecisionIndex(h, dir, Adj)] = 1 - first
		want.Cont[DecisionIndex(h, dir, NonAdj)] = math.Max(0, k-1)
		want.Stop[DecisionIndex(h, dir, NonAdj)] = first
	})
	sameTables(t, got, want, 1e-15)
}

// abcCorpus is the one sentence A B C.
func abcCorpus() *Corpus {
	return CorpusFromNumbers(NewTagSet("A", "B", "C"), [][]int{{0, 1, 2}})
}

// addABCMasses adds the K&M masses of A B C, by hand, to p: each token
// the root with mass 1/3 and a child of the others with 2/3 spread as
// 1/distance; then it hands decide each head side's expected children k.
func addABCMasses(p *Params, decide func(h, dir int, k float64)) {
	const A, B, C = 0, 1, 2
	for a := range 3 {
		p.Root[a] += 1.0 / 3
	}
	p.Child[p.ChildIndex(B, Left, A)] += 4.0 / 9
	p.Child[p.ChildIndex(C, Left, A)] += 2.0 / 9
	p.Child[p.ChildIndex(A, Right, B)] += 1.0 / 3
	p.Child[p.ChildIndex(C, Left, B)] += 1.0 / 3
	p.Child[p.ChildIndex(B, Right, C)] += 4.0 / 9
	p.Child[p.ChildIndex(A, Right, C)] += 2.0 / 9
	decide(A, Left, 0)
	decide(A, Right, 5.0/9)
	decide(B, Left, 4.0/9)
	decide(B, Right, 4.0/9)
	decide(C, Left, 5.0/9)
	decide(C, Right, 0)
}

// sameTables fails t for every entry of got more than tol from want's.
func sameTables(t *testing.T, got, want *Params, tol float64) {
	t.Helper()
	gt, wt := got.Tables(), want.Tables()
	for k := range gt {
		for i := range gt[k] {
			if math.Abs(gt[k][i]-wt[k][i]) > tol {
				t.Errorf("table %d entry %d: %v, want %v", k, i, gt[k][i], wt[k][i])
			}
		}
	}
}

// The km-prtoolkit counts on A B C, by hand: km's masses, then 0.1 added
// to every count; every head side stops once at its first decision, and a
// side with k > 0 expected children continues k times after it; then the
// share s = 0.9·min(1, 1.1/1, (4/9 + 0.1)/1) = 0.49 of each such side
// moves to continue first and stop after.
func TestKMPRToolkitCounts(t *testing.T) {
	c := abcCorpus()
	got, err := KMPRToolkitCounts(c)
	if err != nil {
		t.Fatal(err)
	}
	want := NewParams(3)
	want.Fill(0.1)
	const s = 0.9 * (4.0/9 + 0.1)
	addABCMasses(want, func(h, dir int, k float64) {
		first, next := DecisionIndex(h, dir, Adj), DecisionIndex(h, dir, NonAdj)
		want.Stop[first] += 1
		if k > 0 {
			want.Stop[first] -= s
			want.Cont[first] += s
			want.Stop[next] += s
			want.Cont[next] += k - s
		}
	})
	sameTables(t, got, want, 1e-15)
	// A third stop valence decides as the second; one is refused.
	three, err := kmPRToolkitCounts(c, Valence{Stop: 3, Child: 1})
	if err != nil {
		t.Fatal(err)
	}
	for h := 0; h < 3; h++ {
		for dir := Left; dir <= Right; dir++ {
			i, j := three.DecisionAt(h, dir, 1), three.DecisionAt(h, dir, 2)
			if three.Stop[i] != three.Stop[j] || three.Cont[i] != three.Cont[j] || three.Stop[i] != got.Stop[DecisionIndex(h, dir, 1)] {
				t.Errorf("head %d side %d: valence 2 (%v, %v) is not valence 1 (%v, %v)", h, dir, three.Stop[j], three.Cont[j], three.Stop[i], three.Cont[i])
			}
		}
	}
	if _, err := kmPRToolkitCounts(c, Valence{Stop: 1, Child: 1}); err == nil {
		t.Error("stop valence 1 accepted")
	}
}

func TestSingleRoot(t *testing.T) {
	heads := []int{0, 1, 0, 3, 0}
	got, moved := SingleRoot(heads)
	if moved != 2 || !slices.Equal(got, []int{0, 1, 1, 3, 1}) || heads[2] != 0 {
		t.Errorf("SingleRoot(%v) = %v, %d (input must stay)", heads, got, moved)
	}
	if err := format.ValidateHeads(got, 5); err != nil {
		t.Error(err)
	}
	one := []int{2, 0}
	if got, moved := SingleRoot(one); moved != 0 || &got[0] != &one[0] {
		t.Errorf("one root: %v %d", got, moved)
	}
}

// A log-linear model's decoder parses unseen tags as the model extended
// for them (weights averaged as weights), as estep counts them.
func TestLogLinearDecoderMatchesExtend(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ts := NewTagSet("A", "B", "C")
	w := randomWeights(rng, 3, false)
	for _, tab := range w.Tables() {
		for i := range tab {
			tab[i] = 4 * (tab[i] - 0.5) // weights of either sign
		}
	}
	m := &Table{Tags: ts, Params: w, Unit: format.Weight}
	dec, err := m.Decoder()
	if err != nil {
		t.Fatal(err)
	}
	sent := []string{"Q", "A", "C", "Q", "B"}
	ext, p, _, err := m.Extend(sent)
	if err != nil {
		t.Fatal(err)
	}
	tags, _ := dec.Encode(sent, nil)
	full, _ := ext.Encode(sent, nil)
	for _, mbr := range []bool{false, true} {
		got, want := make([]int, 5), make([]int, 5)
		dec.Decode(NewChart(5), tags, got, mbr)
		NewDecoder(ext, ExpWeights(p)).Decode(NewChart(5), full, want, mbr)
		if !slices.Equal(got, want) {
			t.Errorf("mbr=%v: %v, extended model %v", mbr, got, want)
		}
	}
}

// The klein initializer's counts on A B C with constant 1, worked by hand:
// each head takes 2/3 argument, spread as 1/(1 + distance) — A gives
// 1/2 : 1/3 to B and C, i.e. 2/5 and 4/15; B gives 1/3 to each side — and
// the root takes each token with 1/3. Every side has k < 1 expected
// children, so it continues once with k, stops first with 1 − k and
// stops after a child with k.
func TestKleinCounts(t *testing.T) {
	ts := NewTagSet("A", "B", "C")
	c := CorpusFromNumbers(ts, [][]int{{0, 1, 2}})
	got, _ := KleinCounts(c, 1)
	want := NewParams(3)
	const A, B, C = 0, 1, 2
	want.Root[A], want.Root[B], want.Root[C] = 1.0/3, 1.0/3, 1.0/3
	want.Child[want.ChildIndex(A, Right, B)] = 2.0 / 5
	want.Child[want.ChildIndex(A, Right, C)] = 4.0 / 15
	want.Child[want.ChildIndex(B, Left, A)] = 1.0 / 3
	want.Child[want.ChildIndex(B, Right, C)] = 1.0 / 3
	want.Child[want.ChildIndex(C, Left, B)] = 2.0 / 5
	want.Child[want.ChildIndex(C, Left, A)] = 4.0 / 15
	for _, s := range []struct {
		h, dir                    int
		stopAdj, contAdj, stopNon float64
	}{
		{A, Left, 1, 0, 0}, {A, Right, 1.0 / 3, 2.0 / 3, 2.0 / 3},
		{B, Left, 2.0 / 3, 1.0 / 3, 1.0 / 3}, {B, Right, 2.0 / 3, 1.0 / 3, 1.0 / 3},
		{C, Left, 1.0 / 3, 2.0 / 3, 2.0 / 3}, {C, Right, 1, 0, 0},
	} {
		want.Stop[DecisionIndex(s.h, s.dir, Adj)] = s.stopAdj
		want.Cont[DecisionIndex(s.h, s.dir, Adj)] = s.contAdj
		want.Stop[DecisionIndex(s.h, s.dir, NonAdj)] = s.stopNon
	}
	gt, wt := got.Tables(), want.Tables()
	for k := range gt {
		for i := range gt[k] {
			if math.Abs(gt[k][i]-wt[k][i]) > 1e-15 {
				t.Errorf("table %d entry %d: %v, want %v", k, i, gt[k][i], wt[k][i])
			}
		}
	}
	// A larger constant flattens the preference: at c = 1000, A's two
	// arguments are in the ratio 1002 : 1001.
	flat, _ := KleinCounts(c, 1000)
	if r := flat.Child[flat.ChildIndex(A, Right, B)] / flat.Child[flat.ChildIndex(A, Right, C)]; math.Abs(r-1002.0/1001) > 1e-12 {
		t.Errorf("c = 1000: A's B/C ratio %v, want 1002/1001", r)
	}
}
