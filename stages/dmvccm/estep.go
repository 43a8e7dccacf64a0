package dmvccm

import (
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
)

// chunks is how many pieces the corpus is cut into for the E-step. It is
// fixed (as in stages/dmv) so that sums, taken piece by piece in order, do
// not depend on the number of workers.
const chunks = 64

// EStepper runs joint E-steps over one corpus, keeping its workspaces.
type EStepper struct {
	dmvData     *dmv.Corpus
	ccmData     *ccm.Corpus
	post        []float64
	charts      []Chart
	chunkCounts []*dmv.Params
	chunkLL     []float64
	headChoice  bool // Options.HeadChoice
}

// NewEStepper prepares E-steps over the sentences of dc and cc (the same
// sentences, in the same order).
func NewEStepper(dc *dmv.Corpus, cc *ccm.Corpus) *EStepper {
	return &EStepper{dmvData: dc, ccmData: cc, post: cc.NewPosteriors()}
}

// EStep is one joint E-step under the pair (p, m): the DMV's expected
// counts, the CCM's expected counts and Σ log P(s) under the product. Any
// number of workers (0: every core) gives the same result to the bit.
func (e *EStepper) EStep(p *dmv.Params, m *ccm.Model, workers int) (*dmv.Params, *ccm.Counts) {
	m.Grow()
	sents := e.ccmData.Sentences
	workers = min(pipeline.Workers(workers), chunks)
	for len(e.charts) < workers {
		e.charts = append(e.charts, Chart{})
	}
	if len(e.chunkCounts) != chunks || e.chunkCounts[0].T != p.T {
		e.chunkCounts = make([]*dmv.Params, chunks)
		for k := range e.chunkCounts {
			e.chunkCounts[k] = dmv.NewParams(p.T)
		}
		e.chunkLL = make([]float64, chunks)
	}
	pipeline.ForEachChunk(chunks, workers, func(worker, k int) {
		counts, ll := e.chunkCounts[k], 0.0
		counts.Zero()
		chart := &e.charts[worker]
		for i := k * len(sents) / chunks; i < (k+1)*len(sents)/chunks; i++ {
			s, tags := sents[i], e.dmvData.Sents[i]
			f := m.SpanFactors(e.ccmData, i)
			if e.headChoice {
				f = headChoiceFactors(f, s.N)
			}
			chart.Inside(s.N, WeightsFromDMV(p, tags), f)
			ll += chart.LogProb()
			chart.Outside()
			post := chart.Brackets()
			for a := 0; a < s.N; a++ {
				for b := a + 1; b <= s.N; b++ {
					e.post[s.Span(a, b)] = post[a][b]
				}
			}
			addDMVCounts(counts, tags, chart.DMVCounts())
		}
		e.chunkLL[k] = ll
	})
	counts, logLik := dmv.NewParams(p.T), 0.0
	for k := range chunks {
		counts.Add(e.chunkCounts[k])
		logLik += e.chunkLL[k]
	}
	return counts, e.ccmData.CountsFrom(e.post, logLik, workers)
}
