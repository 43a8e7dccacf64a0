package dmvccm

import (
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Model is a DMV+CCM pair: the product's two factors.
type Model struct {
	DMV     *dmv.Params
	CCM     *ccm.Model
	dmvData *dmv.Corpus
	ccmData *ccm.Corpus
}

// Options control Train.
type Options struct {
	DMVInit   string        // dmv initializer, dmv.InitKlein when ""
	CCMStart  ccm.Start     // ccm.SplitUniform when ""
	Smoothing ccm.Smoothing // the CCM's; ccm.KleinSmoothing when zero
	MaxIter   int           // 100 when 0
	Tol       float64       // relative change of the log-likelihood; 1e-5 when 0
	// Iteration, when set, sees each E-step's log-likelihood.
	Iteration func(iter int, logLik float64)
}

// Train initialises each model as alone (the DMV from its initializer,
// the CCM from its start), then runs EM on the product: one joint E-step
// per iteration over every derivation gives the bracket posteriors for
// the CCM's counts and the attachment posteriors for the DMV's, then one
// M-step each (Klein §6.3). It returns the models of the last M-step.
// This is the library loop; the programs' family interface is separate.
func Train(sents []*format.Sentence, opts Options) (*Model, int, error) {
	if opts.DMVInit == "" {
		opts.DMVInit = dmv.InitKlein
	}
	if opts.CCMStart == "" {
		opts.CCMStart = ccm.SplitUniform
	}
	if opts.Smoothing == (ccm.Smoothing{}) {
		opts.Smoothing = ccm.KleinSmoothing
	}
	if opts.MaxIter == 0 {
		opts.MaxIter = 100
	}
	if opts.Tol == 0 {
		opts.Tol = 1e-5
	}
	dc, err := dmv.NewCorpus(sents, nil)
	if err != nil {
		return nil, 0, err
	}
	tags := make([][]string, len(sents))
	for i, s := range sents {
		tags[i] = s.Tags
	}
	cc, err := ccm.NewCorpus(tags, nil)
	if err != nil {
		return nil, 0, err
	}
	m := &Model{dmvData: dc, ccmData: cc}
	if m.DMV, err = dmv.InitialModel(dc, opts.DMVInit, dmv.InitOptions{}); err != nil {
		return nil, 0, err
	}
	start, err := ccm.StartCounts(cc, opts.CCMStart)
	if err != nil {
		return nil, 0, err
	}
	if m.CCM, err = ccm.MStep(start, cc.Sym, ccm.Model1, opts.Smoothing); err != nil {
		return nil, 0, err
	}
	post := cc.NewPosteriors()
	prev := math.Inf(-1)
	iter := 0
	var chart Chart
	for iter < opts.MaxIter {
		iter++
		counts := dmv.NewParams(m.DMV.T)
		logLik := 0.0
		for k, s := range cc.Sentences {
			t := dc.Sents[k]
			chart.Inside(s.N, WeightsFromDMV(m.DMV, t), m.CCM.SpanFactors(cc, k))
			logLik += chart.LogProb()
			chart.Outside()
			p := chart.Brackets()
			for i := 0; i < s.N; i++ {
				for j := i + 1; j <= s.N; j++ {
					post[s.Span(i, j)] = p[i][j]
				}
			}
			addDMVCounts(counts, t, chart.DMVCounts())
		}
		if opts.Iteration != nil {
			opts.Iteration(iter, logLik)
		}
		m.DMV = dmv.MStep(counts, 0)
		if m.CCM, err = ccm.MStep(cc.CountsFrom(post, logLik, 1), cc.Sym, ccm.Model1, opts.Smoothing); err != nil {
			return nil, iter, err
		}
		if !math.IsInf(prev, -1) && math.Abs(logLik-prev) <= opts.Tol*math.Abs(logLik) {
			break
		}
		prev = logLik
	}
	return m, iter, nil
}

// addDMVCounts adds one sentence's positional counts to the tag tables.
func addDMVCounts(p *dmv.Params, tags []int, c Counts) {
	for h, th := range tags {
		p.Root[th] += c.Root[h]
		for d := range 2 {
			for a, ta := range tags {
				p.Child[p.ChildIndex(th, d, ta)] += c.Attach[d][h][a]
			}
			for v := range 2 {
				p.Stop[dmv.DecisionIndex(th, d, v)] += c.Stop[d][v][h]
				p.Cont[dmv.DecisionIndex(th, d, v)] += c.Cont[d][v][h]
			}
		}
	}
}

// Parse is the Viterbi derivation of sentence k of the training corpus.
func (m *Model) Parse(k int) Parse {
	s := m.ccmData.Sentences[k]
	return Viterbi(s.N, WeightsFromDMV(m.DMV, m.dmvData.Sents[k]), m.CCM.SpanFactors(m.ccmData, k))
}
