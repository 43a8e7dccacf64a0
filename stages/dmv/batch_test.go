package dmv

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// maxRelDiff is the largest relative difference between the tables and
// log-likelihoods of two E-step results.
func maxRelDiff(a, b EStepResult) float64 {
	worst := relErr(a.LogLik, b.LogLik)
	ta, tb := a.Counts.Tables(), b.Counts.Tables()
	for k := range ta {
		for i := range ta[k] {
			worst = max(worst, relErr(ta[k][i], tb[k][i]))
		}
	}
	return worst
}

// withKernel runs an E-step of c under w on the lane kernel k ("": the
// scalar chart alone).
func withKernel(k string, c *Corpus, w *Params, opts EStepOptions) EStepResult {
	defer SetKernel(k)()
	return NewEStepper(c).Run(w, opts)
}

// bySentence is the E-step as it was before batches: every sentence on
// the scalar chart, in corpus order.
func bySentence(c *Corpus, w *Params, opts EStepOptions) EStepResult {
	opts.Workers = 1
	res := EStepResult{Counts: NewValenceParams(w.T, w.V)}
	chart := NewChart(c.MaxLen)
	var dist []float64
	if opts.Dist != nil {
		for d := 0; d <= c.MaxLen; d++ {
			dist = append(dist, opts.Dist(d))
		}
	}
	c.Each(0, c.Len(), func(i int, tags, _ []int) {
		chart.Load(tags, w, dist)
		logZ := chart.Inside()
		if !opts.LogLikOnly {
			chart.Outside()
			chart.AddCounts(tags, res.Counts, 1)
		}
		res.LogLik += logZ
	})
	return res
}

// mixedLengths is a corpus of count random sentences of 1..maxLen tags
// over tags tags, most lengths common enough to fill lanes and some not.
func mixedLengths(rng *rand.Rand, count, maxLen, tags int) *Corpus {
	sents := make([][]int, count)
	for i := range sents {
		n := 1 + rng.IntN(maxLen)
		if rng.IntN(3) == 0 {
			n = 1 + rng.IntN(min(maxLen, 4)) // the short ones in bulk
		}
		sents[i] = make([]int, n)
		for j := range sents[i] {
			sents[i][j] = rng.IntN(tags)
		}
	}
	return CorpusFromNumbers(NewTagSet(), sents)
}

// The lane kernel's counts and log-likelihood are the scalar chart's
// (sentence by sentence in corpus order), within 1e-12 relative: the
// lanes do the scalar chart's operations in its order, and only the
// sentences' order in the sums differs. Plain, with a distance factor,
// with attachment factors, likelihood alone, on random models, some of
// extreme weights.
func TestLanesMatchScalarChart(t *testing.T) {
	if testedKernel() == "" {
		t.Skip("no lane kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(25, 1))
	for trial := range 8 {
		c := mixedLengths(rng, 300+rng.IntN(200), 5+rng.IntN(20), 12)
		w := randomWeights(rng, 12, trial%2 == 0)
		if trial%4 >= 2 { // two child valences
			w = randomValenceWeights(rng, 12, twoChildValences, trial%2 == 0)
		}
		if trial >= 6 { // weights from e^−spread to e^spread: scaling's every branch
			spread := []float64{30, 150}[trial-6]
			for _, tab := range w.Tables() {
				for i := range tab {
					tab[i] = math.Exp((2*rng.Float64() - 1) * spread)
				}
			}
		}
		for name, opts := range eStepCases(rng) {
			opts.Workers = 2
			lanes, scalar := withKernel(testedKernel(), c, w, opts), withKernel("", c, w, opts)
			if d := maxRelDiff(lanes, scalar); d > 1e-12 || lanes.Unusable != scalar.Unusable || lanes.ZeroWeight != scalar.ZeroWeight {
				t.Fatalf("trial %d, %s: lanes and scalar chart differ by %g (unusable %d, %d)", trial, name, d, lanes.Unusable, scalar.Unusable)
			} else if d != 0 {
				t.Logf("trial %d, %s: lanes and scalar chart differ by %g", trial, name, d)
			}
			if opts.Factors != nil {
				continue
			}
			if d := maxRelDiff(lanes, bySentence(c, w, opts)); d > 1e-12 {
				t.Fatalf("trial %d, %s: lanes and the E-step in corpus order differ by %g", trial, name, d)
			}
		}
	}
}

// eStepCases are the E-steps the lanes are checked on: plain, with a
// distance factor, the likelihood alone, and with attachment factors
// drawn from rng (each sentence's its own).
func eStepCases(rng *rand.Rand) map[string]EStepOptions {
	factor := make([]float64, 0, 1024)
	for range 1024 {
		factor = append(factor, 0.2+rng.Float64())
	}
	return map[string]EStepOptions{
		"plain":      {},
		"dist":       {Dist: func(d int) float64 { return math.Exp(-0.3 * float64(d)) }},
		"loglikonly": {LogLikOnly: true},
		"factors": {Factors: func(i int, edge, root []float64) {
			for k := range edge {
				edge[k] = factor[(i+k)%len(factor)]
			}
			for k := range root {
				root[k] = factor[(3*i+k)%len(factor)]
			}
		}},
	}
}

// The attachment factors are asked for once per sentence, after Piece
// was called once for a range that holds it, and Posteriors sees the
// posteriors of each sentence once, the lanes' as the scalar chart's.
func TestLanesCallbacks(t *testing.T) {
	if testedKernel() == "" {
		t.Skip("no lane kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(25, 2))
	c := mixedLengths(rng, 200, 12, 6)
	w := randomWeights(rng, 6, true)
	run := func(k string) (asked []int, root [][]float64) {
		asked, root = make([]int, c.Len()), make([][]float64, c.Len())
		readied := make([]int, c.Len())
		withKernel(k, c, w, EStepOptions{Workers: 2,
			Piece: func(lo, hi int) {
				for i := lo; i < hi; i++ {
					readied[i]++
				}
			},
			Factors: func(i int, edge, root []float64) {
				if readied[i] != 1 {
					t.Errorf("kernel %q: sentence %d's factors asked for after %d pieces that hold it", k, i, readied[i])
				}
				asked[i]++
				for k := range edge {
					edge[k] = 1 + float64(k%3)/10
				}
				for k := range root {
					root[k] = 1
				}
			},
			Posteriors: func(i int, _, r []float64) { root[i] = append([]float64(nil), r...) },
		})
		return asked, root
	}
	asked, lanes := run(testedKernel())
	_, scalar := run("")
	for i := range asked {
		if asked[i] != 1 {
			t.Fatalf("sentence %d: factors asked for %d times", i, asked[i])
		}
		for d := range scalar[i] {
			if relErr(lanes[i][d], scalar[i][d]) > 1e-12 {
				t.Fatalf("sentence %d: root posterior %d is %v on the lanes, %v on the scalar chart", i, d, lanes[i][d], scalar[i][d])
			}
		}
	}
}

// A model under which long sentences' Z underflows even scaled (every
// word would rather be the root, and only one can) sends those lanes to
// the scalar chart, whose scaling search finds their Z: the results are
// still the scalar chart's, every sentence usable.
func TestLanesUnderflowGoesScalar(t *testing.T) {
	if testedKernel() == "" {
		t.Skip("no lane kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(25, 3))
	w := randomWeights(rng, 5, true)
	for i := range w.Child {
		w.Child[i] *= 1e-25
	}
	var sents [][]int
	for n := 1; n <= 40; n++ {
		for range 9 {
			s := make([]int, n)
			for j := range s {
				s[j] = rng.IntN(5)
			}
			sents = append(sents, s)
		}
	}
	c := CorpusFromNumbers(NewTagSet(), sents)
	// The lanes alone: the long sentences' Z leaves the normal numbers.
	var b laneChart
	var tab laneTables
	tab.set(w)
	b.setLength(40)
	for l := range lanes {
		putLane(b.tags, l, sents[len(sents)-1-l])
	}
	padLanes(b.tags, lanes)
	b.load(&tab, w, nil, nil)
	b.scale()
	b.inside()
	if _, ok := b.logZ(0); ok {
		t.Fatalf("Z of a 40-token sentence is %v: the test no longer makes it underflow", b.z[0])
	}
	opts := EStepOptions{Workers: 1}
	lanes, scalar := withKernel(testedKernel(), c, w, opts), withKernel("", c, w, opts)
	if lanes.Unusable+lanes.ZeroWeight > 0 || math.IsInf(lanes.LogLik, 0) {
		t.Fatalf("unusable %d, zero weight %d, log-likelihood %v", lanes.Unusable, lanes.ZeroWeight, lanes.LogLik)
	}
	if d := maxRelDiff(lanes, scalar); d > 1e-12 {
		t.Fatalf("lanes and scalar chart differ by %g", d)
	}
}

// The lanes' counts are the same bits for any number of workers.
func TestLanesSameForWorkers(t *testing.T) {
	if testedKernel() == "" {
		t.Skip("no lane kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(25, 4))
	c := mixedLengths(rng, 1500, 15, 10)
	w := randomWeights(rng, 10, true)
	first := withKernel(testedKernel(), c, w, EStepOptions{Workers: 1})
	for _, workers := range []int{2, 3, 7} {
		res := withKernel(testedKernel(), c, w, EStepOptions{Workers: workers})
		if !sameParams(first.Counts, res.Counts) || first.LogLik != res.LogLik {
			t.Fatalf("%d workers: counts or log-likelihood differ from 1 worker's (%v, %v)", workers, res.LogLik, first.LogLik)
		}
	}
}

// exactArithmetic says whether Go computes x*y+z as a multiply and an add
// here, as the lanes do: on amd64 below GOAMD64=v3 it fuses none (from v3
// on, and on arm64 and others, it may fuse the scalar chart's).
func exactArithmetic() bool {
	if runtime.GOARCH != "amd64" {
		return false
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "GOAMD64" {
			return s.Value == "v1" || s.Value == "v2"
		}
	}
	return true // v1, the default, is not recorded
}

// Lane by lane, the lane chart is the scalar chart: the same log Z and
// posteriors — the same bits where Go fuses no multiply-adds of its own,
// within 1e-13 relative elsewhere — with and without distance factors
// and attachment factors, with one and two child valences, on batches
// of 1..8 sentences of lengths 1..20,
// under models of ordinary and of extreme weights.
func TestLaneChartIsTheScalarChart(t *testing.T) {
	if testedKernel() == "" {
		t.Skip("no lane kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(25, 5))
	exact := exactArithmetic()
	var b laneChart
	var tab laneTables
	c := NewChart(20)
	for trial := range 120 {
		n, size := 1+rng.IntN(20), 1+rng.IntN(lanes)
		w := randomWeights(rng, 6, trial%2 == 0)
		if trial/5%2 == 1 { // two child valences
			w = randomValenceWeights(rng, 6, twoChildValences, trial%2 == 0)
		}
		sents, factors, dist := loadTrialBatch(rng, &b, &tab, w, n, size, trial)
		b.inside()
		b.outside()
		for l, tags := range sents {
			if f := factors[l]; f != nil {
				c.LoadFactored(tags, w, dist, f[:n*n], f[n*n:])
			} else {
				c.Load(tags, w, dist)
			}
			logZ := c.Inside()
			got, ok := b.logZ(l)
			if !ok {
				continue // the scalar chart's to settle
			}
			if !c.Outside() || !b.usable(l) {
				t.Fatalf("trial %d, lane %d: posteriors usable: scalar %v, lanes %v", trial, l, c.Outside(), b.usable(l))
			}
			same := func(what string, x, y float64) {
				if exact && x != y || relErr(x, y) > 1e-13 {
					t.Fatalf("trial %d (n=%d), lane %d: %s %v on the lanes, %v on the scalar chart", trial, n, l, what, x, y)
				}
			}
			same("log Z", got, logZ)
			for i := range n * n {
				same("edge posterior", b.edgePost[i][l], c.edgePost[i])
				if c.twoChild && i/n != i%n {
					same("first child's posterior", b.firstPost[i][l], c.firstPost[i])
					same("later child's posterior", b.morePost[i][l], c.morePost[i])
				}
			}
			for i := range n {
				same("root posterior", b.rootPost[i][l], c.rootPost[i])
			}
			for i := range 4 * n {
				same("stop posterior", b.dec[i].stopPost[l], c.stopPost[i])
				same("cont posterior", b.dec[i].contPost[l], c.contPost[i])
			}
		}
	}
}

// loadTrialBatch loads a batch of trial's kind into the lanes of b, its
// potentials under w scaled: size random sentences of n of w's tags,
// with w's weights spread from e^−40 to e^40 (in place) when trial%3 is
// 2, a distance factor when trial%4 is 1 and random attachment factors
// for each sentence when it is 3. It returns the sentences, their
// factors and the distance factor.
func loadTrialBatch(rng *rand.Rand, b *laneChart, tab *laneTables, w *Params, n, size, trial int) ([][]int, [][]float64, []float64) {
	if trial%3 == 2 {
		for _, t := range w.Tables() {
			for i := range t {
				t[i] = math.Exp((2*rng.Float64() - 1) * 40)
			}
		}
	}
	var dist []float64
	if trial%4 == 1 {
		for d := 0; d <= n; d++ {
			dist = append(dist, math.Exp(-0.5*float64(d)))
		}
	}
	withFactors := trial%4 == 3
	tab.set(w)
	b.setLength(n)
	sents, factors := make([][]int, size), make([][]float64, size)
	for l := range size {
		sents[l] = make([]int, n)
		for j := range sents[l] {
			sents[l][j] = rng.IntN(w.T)
		}
		if withFactors {
			factors[l] = make([]float64, n*n+n)
			for i := range factors[l] {
				factors[l][i] = 0.1 + rng.Float64()
			}
		}
		putLane(b.tags, l, sents[l])
	}
	padLanes(b.tags, size)
	if withFactors {
		b.load(tab, w, dist, factors)
	} else {
		b.load(tab, w, dist, nil)
	}
	b.scale()
	return sents, factors, dist
}

// An empty sentence among the batches has weight 0 on the lanes as on the
// scalar chart (no tree: log Z = −Inf), the others their counts.
func TestLanesEmptySentence(t *testing.T) {
	if testedKernel() == "" {
		t.Skip("no lane kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(25, 6))
	sents := [][]int{{}, {}, {3}}
	for range 9 {
		sents = append(sents, []int{rng.IntN(4), rng.IntN(4)})
	}
	c := CorpusFromNumbers(NewTagSet(), sents)
	w := randomWeights(rng, 4, true)
	lanes, scalar := withKernel(testedKernel(), c, w, EStepOptions{Workers: 1}), withKernel("", c, w, EStepOptions{Workers: 1})
	if lanes.ZeroWeight != 2 || scalar.ZeroWeight != 2 || !math.IsInf(lanes.LogLik, -1) {
		t.Fatalf("zero weight %d (scalar %d), log-likelihood %v", lanes.ZeroWeight, scalar.ZeroWeight, lanes.LogLik)
	}
	a, b := lanes.Counts.Tables(), scalar.Counts.Tables()
	for k := range a {
		for i := range a[k] {
			if relErr(a[k][i], b[k][i]) > 1e-12 {
				t.Fatalf("table %d, entry %d: %v on the lanes, %v on the scalar chart", k, i, a[k][i], b[k][i])
			}
		}
	}
}

// A corpus in memory goes through the lanes in the order a streamed one
// does, window by window (the plans kept from one E-step to the next):
// the same counts, to the bit, for 1 to 3 workers and at a second E-step.
func TestLanesStreamedEqualsInMemory(t *testing.T) {
	if testedKernel() == "" {
		t.Skip("no lane kernel on this machine")
	}
	defer SetKernel(testedKernel())()
	defer func(w int) { window = w }(window)
	window = 40 // tokens: several windows a piece
	rng := rand.New(rand.NewPCG(25, 6))
	path := filepath.Join(t.TempDir(), "c.jsonl")
	writeCorpusFile(t, path, randomSentences(rng, 900, 14, 6, false), false)
	src := pipeline.Source{Names: []string{path}, Bad: &pipeline.BadRecords{Skip: true}}
	mem := NewCorpusBuilder(CorpusOptions{})
	if err := pipeline.EachSentence(src, func(s *format.Sentence) error { return mem.Add(s) }); err != nil {
		t.Fatal(err)
	}
	inMemory, err := mem.Finish(nil)
	if err != nil {
		t.Fatal(err)
	}
	streamed, err := OpenStream(src.Names, StreamOptions{Bad: &pipeline.BadRecords{Skip: true}})
	if err != nil {
		t.Fatal(err)
	}
	w := randomWeights(rng, inMemory.Tags.Len(), true)
	e := NewEStepper(inMemory)
	want := e.Run(w, EStepOptions{Workers: 1})
	if again := e.Run(w, EStepOptions{Workers: 2}); again.LogLik != want.LogLik || !sameParams(again.Counts, want.Counts) {
		t.Fatalf("the second E-step in memory differs from the first")
	}
	for workers := 1; workers <= 3; workers++ {
		got := NewEStepper(streamed).Run(w, EStepOptions{Workers: workers})
		if got.Err != nil {
			t.Fatal(got.Err)
		}
		if got.LogLik != want.LogLik || !sameParams(got.Counts, want.Counts) {
			t.Errorf("%d workers: streamed E-step differs (log-likelihood %v, in memory %v)", workers, got.LogLik, want.LogLik)
		}
	}
}
