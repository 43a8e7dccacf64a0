package dmvccm

import (
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/bintree"
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
	work        []worker
	chunkCounts []*dmv.Params
	chunkLL     []float64
	headChoice  bool // Options.HeadChoice
	rightFirst  bool // Options.RightFirst
	// order, flat: Options.Order and Options.FlatCCM. The mixture, footnote
	// 8 and a flat CCM run the general program (ochart); fn8 is footnote
	// 8's current decisions, fn8Counts the last E-step's events.
	order     Order
	flat      bool
	fn8       *Fn8Params
	fn8Counts *Fn8Params
	chunkFn8  []*Fn8Params
}

// worker is one goroutine's reusable memory.
type worker struct {
	chart   Chart
	weights Weights
	factors ccm.FactorBuffer
	counts  Counts
	tags    []int
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
	for len(e.work) < workers {
		e.work = append(e.work, worker{})
	}
	if len(e.chunkCounts) != chunks || e.chunkCounts[0].T != p.T {
		e.chunkCounts = make([]*dmv.Params, chunks)
		for k := range e.chunkCounts {
			e.chunkCounts[k] = dmv.NewParams(p.T)
		}
		e.chunkLL = make([]float64, chunks)
	}
	general := e.order == Mixture || e.order == Footnote8 || e.flat
	if general && (len(e.chunkFn8) != chunks || e.chunkFn8[0].T != p.T) {
		e.chunkFn8 = make([]*Fn8Params, chunks)
		for k := range e.chunkFn8 {
			e.chunkFn8[k] = NewFn8(p.T)
		}
	}
	pipeline.ForEachChunk(chunks, workers, func(worker, k int) {
		counts, ll := e.chunkCounts[k], 0.0
		counts.Zero()
		if general {
			e.chunkFn8[k].Zero()
		}
		wk := &e.work[worker]
		chart := &wk.chart
		for i := k * len(sents) / chunks; i < (k+1)*len(sents)/chunks; i++ {
			s, tags := sents[i], e.dmvData.Sent(i, wk.tags)
			wk.tags = tags
			if general {
				ll += e.sentence(i, p, m, tags, counts, e.chunkFn8[k])
				continue
			}
			f := m.SpanFactorsTo(e.ccmData, i, &wk.factors)
			if e.headChoice {
				f = headChoiceFactors(f, s.N)
			}
			wk.weights.load(p, tags)
			wk.weights.RightFirst = e.rightFirst
			chart.Inside(s.N, wk.weights, f)
			ll += chart.LogProb()
			if !(chart.z > 0) {
				// Probability 0: the DMV half gives every tree 0 (an
				// unsmoothed DMV's unseen attachment, on held-out
				// sentences only). It adds no DMV counts, and to the
				// CCM's the bracket posteriors of the CCM alone, so that
				// they stay expectations of binary bracketings.
				post, _ := m.Posteriors(e.ccmData, i)
				dst := e.post[s.Off : s.Off+(s.N+1)*(s.N+1)]
				for r, row := range post {
					copy(dst[r*(s.N+1):], row)
				}
				continue
			}
			chart.Outside()
			chart.bracketsTo(e.post[s.Off : s.Off+(s.N+1)*(s.N+1)])
			chart.dmvCountsTo(&wk.counts)
			addDMVCounts(counts, tags, wk.counts)
		}
		e.chunkLL[k] = ll
	})
	counts, logLik := dmv.NewParams(p.T), 0.0
	for k := range chunks {
		counts.Add(e.chunkCounts[k])
		logLik += e.chunkLL[k]
	}
	if general {
		e.fn8Counts = NewFn8(p.T)
		for k := range chunks {
			e.fn8Counts.Add(e.chunkFn8[k])
		}
	}
	return counts, e.ccmData.CountsFrom(e.post, logLik, workers)
}

// flatFactors are a flat CCM's factors (every probability ½: φ ≡ 1, and
// the constant K(s) left out), so that the product is the DMV half alone
// under its order: log P is then log Σ over derivations of their DMV
// weights.
func flatFactors(n int) ccm.Factors {
	phi := make([]float64, (n+1)*(n+1))
	for i := range phi {
		phi[i] = 1
	}
	return ccm.Factors{Phi: phi, LogK: bintree.LogCatalan(n - 1)}
}

// sentence is the general program's E-step of sentence i (EStep's, for
// the mixture, footnote 8 and a flat CCM): it adds the DMV's events to
// counts and footnote 8's to fn8, the bracket posteriors to e.post, and
// returns log P(s).
func (e *EStepper) sentence(i int, p *dmv.Params, m *ccm.Model, tags []int, counts *dmv.Params, fn8 *Fn8Params) float64 {
	s := e.ccmData.Sentences[i]
	var f ccm.Factors
	if e.flat {
		f = flatFactors(s.N)
	} else {
		f = m.SpanFactors(e.ccmData, i)
		if e.headChoice {
			f = headChoiceFactors(f, s.N)
		}
	}
	w := WeightsFromDMV(p, tags)
	var fw *Fn8Weights
	if e.order == Footnote8 {
		fw = e.fn8.weights(tags)
	}
	ch := insideOrder(s.N, e.order, w, fw, f)
	dst := e.post[s.Off : s.Off+(s.N+1)*(s.N+1)]
	if !(ch.z > 0) {
		post, _ := m.Posteriors(e.ccmData, i)
		for r, row := range post {
			copy(dst[r*(s.N+1):], row)
		}
		return ch.logProb()
	}
	ch.outside()
	ch.bracketsTo(dst)
	oc := ch.counts()
	addDMVCounts(counts, tags, oc.Counts)
	fn8.addCounts(tags, &oc.Fn8)
	return ch.logProb()
}
