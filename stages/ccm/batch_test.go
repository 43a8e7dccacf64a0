package ccm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// withKernel is m's E-step of c on lane kernel k ("": the scalar chart).
func withKernel(k string, m *Model, c *Corpus, workers int) *Counts {
	defer SetKernel(k)()
	return m.EStep(c, workers)
}

// countsDiff is the largest relative difference between two E-steps'
// counts and log-likelihoods, and whether they are equal to the bit.
func countsDiff(a, b *Counts) (float64, bool) {
	worst := relErr(a.LogLik, b.LogLik)
	same := a.LogLik == b.LogLik && a.Zero == b.Zero
	for _, p := range [][2][]float64{{a.SpanT, b.SpanT}, {a.SpanN, b.SpanN}, {a.ContextT, b.ContextT}, {a.ContextN, b.ContextN}} {
		for i := range p[0] {
			worst = max(worst, relErr(p[0][i], p[1][i]))
		}
		same = same && slices.Equal(p[0], p[1])
	}
	for l := range a.Classes {
		for i := range a.Classes[l].Span {
			worst = max(worst, relErr(a.Classes[l].Span[i], b.Classes[l].Span[i]))
		}
		same = same && slices.Equal(a.Classes[l].Span, b.Classes[l].Span) && slices.Equal(a.Classes[l].Context, b.Classes[l].Context)
	}
	return worst, same
}

// laneModels are models to run the lanes under: both variants, the split
// skew, the multi-class CCM, weights from e^−spread to e^spread (charts
// beyond the scaled range, which the scalar chart takes to log space),
// and a model with zeros (sentences of probability 0).
func laneModels(rng *rand.Rand, c *Corpus) map[string]*Model {
	extreme := func(spread float64) *Model {
		m := randomModel(rng, c, Model1)
		for b := range 2 {
			for _, t := range [][]float64{m.Span[b], m.Context[b]} {
				for i := range t {
					t[i] = math.Exp((2*rng.Float64() - 1) * spread)
				}
			}
		}
		return m
	}
	zeros := randomModel(rng, c, Model1)
	for y := range zeros.Span[Distituent] {
		if rng.IntN(40) == 0 {
			zeros.Span[Distituent][y] = 0
			if rng.IntN(2) == 0 {
				zeros.Span[Constituent][y] = 0
			}
		}
	}
	return map[string]*Model{
		"model1":     randomModel(rng, c, Model1),
		"model2":     randomModel(rng, c, Model2),
		"split skew": randomModel(rng, c, Model1).SplitSkewed(0.3),
		"classes":    randomClassModel(rng, c, 3),
		"spread 20":  extreme(20),
		"spread 200": extreme(200),
		"zeros":      zeros,
		"klein's start": func() *Model {
			cnt, err := StartCounts(c, SplitUniform)
			if err != nil {
				panic(err)
			}
			m, err := MStep(cnt, c.Sym, Model1, KleinSmoothing)
			if err != nil {
				panic(err)
			}
			return m
		}(),
	}
}

// The lanes' counts and log-likelihood are the scalar chart's within
// 1e-12 relative (they are the same to the bit: each lane does the scalar
// chart's operations in its order, and the sums run in corpus order
// either way), for any number of workers, on corpora whose lengths fill
// lanes and leave partial batches, and sentences longer than batchMaxLen.
func TestLanesMatchScalarChart(t *testing.T) {
	k := LaneKernel()
	if k == "" {
		t.Skip("no lane kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(25, 2))
	corpora := map[string]*Corpus{
		"short":  randomCorpus(rng, 600, 12, 5),
		"sparse": randomCorpus(rng, 45, 30, 4),
		"long":   randomCorpus(rng, 3, batchMaxLen+6, 3),
	}
	for cname, c := range corpora {
		for name, m := range laneModels(rng, c) {
			scalar := withKernel("", m, c, 1)
			for _, workers := range []int{1, 2, 3} {
				lanes := withKernel(k, m, c, workers)
				if d, same := countsDiff(lanes, scalar); d > 1e-12 {
					t.Errorf("%s corpus, %s, %d workers: lanes and scalar chart differ by %g", cname, name, workers, d)
				} else if !same {
					t.Logf("%s corpus, %s, %d workers: lanes and scalar chart differ by %g", cname, name, workers, d)
				}
				if _, same := countsDiff(lanes, withKernel(k, m, c, 1)); !same {
					t.Errorf("%s corpus, %s: lanes on %d workers differ from 1", cname, name, workers)
				}
			}
		}
	}
}

// The lanes' E-step against enumeration: the log-likelihood and every
// yield's and context's expected constituent count summed over every
// binary bracketing of every sentence (n ≤ 7: full batches, partial ones
// and lengths of one sentence), both variants.
func TestLanesAgainstEnumeration(t *testing.T) {
	k := LaneKernel()
	if k == "" {
		t.Skip("no lane kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(25, 3))
	for _, v := range []Variant{Model1, Model2} {
		c := randomCorpus(rng, 70, 7, 3)
		m := randomModel(rng, c, v)
		spanT, ctxT := make([]float64, c.Sym.NumYields()), make([]float64, c.Sym.NumContexts())
		logLik := 0.0
		for _, s := range c.Sentences {
			trees := binaryBracketings(0, s.N)
			total := math.Inf(-1)
			for _, b := range trees {
				total = logAddTest(total, jointLogProb(m, c, s, b, len(trees)))
			}
			logLik += total
			for _, b := range trees {
				p := math.Exp(jointLogProb(m, c, s, b, len(trees)) - total)
				for i := 0; i < s.N; i++ { // single tokens: in every bracketing
					b = append(b, [2]int{i, i + 1})
				}
				if s.N == 1 {
					b = b[:1]
				}
				for _, sp := range b {
					spanT[c.Yield[s.Span(sp[0], sp[1])]] += p
					ctxT[c.Context[s.Span(sp[0], sp[1])]] += p
				}
			}
		}
		got := withKernel(k, m, c, 2)
		if e := relErr(got.LogLik, logLik); e > 1e-12 {
			t.Errorf("model %d: log-likelihood %v, enumeration %v", v, got.LogLik, logLik)
		}
		for _, p := range [][2][]float64{{got.SpanT, spanT}, {got.ContextT, ctxT}} {
			for i := range p[0] {
				if e := relErr(p[0][i], p[1][i]); e > 1e-12 && math.Abs(p[0][i]-p[1][i]) > 1e-13 {
					t.Errorf("model %d: count %d is %v, enumeration %v", v, i, p[0][i], p[1][i])
				}
			}
		}
	}
}
