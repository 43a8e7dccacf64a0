package ccm

import (
	"fmt"
	"math"

	"github.com/grind-nlp/grind/pipeline"
)

// Counts are expected counts: Constituent[y] is the expected number of
// times yield y is a constituent, and Occurrences[y] how often it occurs
// at all (its distituent count is the difference); likewise for contexts.
type Counts struct {
	SpanT, SpanN       []float64 // constituent count, occurrences
	ContextT, ContextN []float64
	LogLik             float64 // Σ log P(s)
	Sentences, Tokens  int
}

// SpanCount is the expected count of yield y as b.
func (c *Counts) SpanCount(b, y int) float64 {
	if b == Constituent {
		return c.SpanT[y]
	}
	return max(c.SpanN[y]-c.SpanT[y], 0)
}

// ContextCount is the expected count of context x as b.
func (c *Counts) ContextCount(b, x int) float64 {
	if b == Constituent {
		return c.ContextT[x]
	}
	return max(c.ContextN[x]-c.ContextT[x], 0)
}

// chunkSize fixes the E-step's unit of work, so that its results do not
// depend on the number of workers.
const chunkSize = 128

// EStep computes the bracket posteriors of every sentence of c under m and
// sums them into expected counts, with workers goroutines (0: one per
// CPU). The sums run in corpus order, so the result is the same for any
// number of workers.
func (m *Model) EStep(c *Corpus, workers int) *Counts {
	post := make([]float64, len(c.Yield))
	return m.estep(c, workers, post)
}

func (m *Model) estep(c *Corpus, workers int, post []float64) *Counts {
	chunks := (len(c.Sentences) + chunkSize - 1) / chunkSize
	logLik := make([]float64, chunks)
	workers = min(pipeline.Workers(workers), max(chunks, 1))
	charts := make([]chart, workers)
	pipeline.ForEachChunk(chunks, workers, func(w, k int) {
		sum := 0.0
		for _, s := range c.Sentences[k*chunkSize : min((k+1)*chunkSize, len(c.Sentences))] {
			sum += m.sentence(c, s, &charts[w], post[s.Off:s.Off+(s.N+1)*(s.N+1)])
		}
		logLik[k] = sum
	})
	cnt := &Counts{Sentences: len(c.Sentences), Tokens: c.Tokens}
	for _, l := range logLik {
		cnt.LogLik += l
	}
	cnt.SpanT, cnt.SpanN = make([]float64, c.Sym.NumYields()), make([]float64, c.Sym.NumYields())
	cnt.ContextT, cnt.ContextN = make([]float64, c.Sym.NumContexts()), make([]float64, c.Sym.NumContexts())
	c.sum(workers, post, cnt)
	return cnt
}

// sum adds the posteriors into cnt. Each worker owns a stripe of the yield
// and context ids and adds its ids' spans in corpus order, so every sum
// is taken in the same order whatever the number of workers.
func (c *Corpus) sum(workers int, post []float64, cnt *Counts) {
	pipeline.ForEachChunk(workers, workers, func(_, stripe int) {
		for _, s := range c.Sentences {
			n := s.N
			for i := 0; i <= n; i++ {
				for j := i; j <= n; j++ {
					k := s.Span(i, j)
					p := 0.0
					if j > i {
						p = post[k]
					}
					if y := c.Yield[k]; int(y)%workers == stripe {
						cnt.SpanT[y] += p
						cnt.SpanN[y]++
					}
					if x := c.Context[k]; int(x)%workers == stripe {
						cnt.ContextT[x] += p
						cnt.ContextN[x]++
					}
				}
			}
		}
	})
}

// Smoothing is Klein's: every yield and every context gets Constituent +
// Distituent pseudo-counts (2 and 8), split between the two bracket values.
type Smoothing struct {
	Constituent, Distituent float64
}

// KleinSmoothing is the smoothing of Klein's thesis (§5.3).
var KleinSmoothing = Smoothing{Constituent: 2, Distituent: 8}

func (sm Smoothing) of(b int) float64 {
	if b == Constituent {
		return sm.Constituent
	}
	return sm.Distituent
}

// MStep normalises counts plus pseudo-counts into a model: per bracket
// value (and, under Model2, per yield length) for yields, per bracket
// value for contexts. A group with no mass at all is left uniform.
func MStep(cnt *Counts, sym *Symbols, v Variant, sm Smoothing) (*Model, error) {
	if v != Model1 && v != Model2 {
		return nil, fmt.Errorf("unknown CCM variant %d", v)
	}
	if len(cnt.SpanT) != sym.NumYields() || len(cnt.ContextT) != sym.NumContexts() {
		return nil, fmt.Errorf("counts have %d yields and %d contexts, the symbols %d and %d",
			len(cnt.SpanT), len(cnt.ContextT), sym.NumYields(), sym.NumContexts())
	}
	m := &Model{Variant: v, Sym: sym}
	group := func(y int) int { return 0 }
	groups := 1
	if v == Model2 {
		group = sym.YieldLen
		for y := range sym.NumYields() {
			groups = max(groups, sym.YieldLen(y)+1)
		}
	}
	for b := range 2 {
		m.Span[b] = normalize(sym.NumYields(), groups, group, func(y int) float64 { return cnt.SpanCount(b, y) + sm.of(b) })
		m.Context[b] = normalize(sym.NumContexts(), 1, func(int) int { return 0 }, func(x int) float64 { return cnt.ContextCount(b, x) + sm.of(b) })
	}
	return m, nil
}

// normalize returns weight(i)/Σ_{i' in i's group} weight(i').
func normalize(size, groups int, group func(int) int, weight func(int) float64) []float64 {
	p := make([]float64, size)
	totals := make([]float64, groups)
	members := make([]int, groups)
	for i := range p {
		p[i] = weight(i)
		totals[group(i)] += p[i]
		members[group(i)]++
	}
	for i := range p {
		g := group(i)
		if totals[g] > 0 {
			p[i] /= totals[g]
		} else {
			p[i] = 1 / float64(members[g])
		}
	}
	return p
}

// LogPrior is Σ pseudo-count · log p over the model's four tables: the
// smoothed M-step maximises log-likelihood + LogPrior (MAP with a Dirichlet
// prior), which EM therefore never lowers.
func (m *Model) LogPrior(sm Smoothing) float64 {
	sum := 0.0
	for b := range 2 {
		for _, p := range m.Span[b] {
			sum += sm.of(b) * math.Log(p)
		}
		for _, p := range m.Context[b] {
			sum += sm.of(b) * math.Log(p)
		}
	}
	return sum
}
