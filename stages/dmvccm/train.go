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
	// headChoice: Options.HeadChoice, kept for decoding.
	headChoice bool
}

// Options control Train.
type Options struct {
	DMVInit   string        // dmv initializer, dmv.InitKM when ""
	CCMStart  ccm.Start     // ccm.SplitUniform when ""
	Smoothing ccm.Smoothing // the CCM's; ccm.KleinSmoothing when zero
	MaxIter   int           // 100 when 0
	Tol       float64       // relative change of the log-likelihood; 1e-5 when 0
	Workers   int           // E-step goroutines (0: every core); the result does not depend on it
	// HeadChoice multiplies Klein's head-choice factor 1/(j−i) into every
	// sealed span [i,j) (his footnote in §6.3, which makes the product a
	// model of lexicalised trees; he found it harmful). Every sealed span
	// of two or more words is a constituent, so it goes into the CCM's
	// factors and the chart is unchanged.
	HeadChoice bool
	// Iteration, when set, sees each E-step's log-likelihood and the
	// model of that E-step (valid during the call; its Parse decodes the
	// training sentences).
	Iteration func(iter int, logLik float64, m *Model)
}

// Train initialises each model as alone (the DMV from its initializer,
// the CCM from its start), then runs EM on the product: one joint E-step
// per iteration over every derivation gives the bracket posteriors for
// the CCM's counts and the attachment posteriors for the DMV's, then one
// M-step each (Klein §6.3). It returns the models of the last M-step.
// This is the library loop; the programs' family interface is separate.
func Train(sents []*format.Sentence, opts Options) (*Model, int, error) {
	if opts.DMVInit == "" {
		opts.DMVInit = dmv.InitKM
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
	cc, err := ccm.NewCorpus(tagsOf(sents), nil)
	if err != nil {
		return nil, 0, err
	}
	m := &Model{dmvData: dc, ccmData: cc, headChoice: opts.HeadChoice}
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
	es := NewEStepper(dc, cc)
	es.headChoice = opts.HeadChoice
	prev := math.Inf(-1)
	iter := 0
	for iter < opts.MaxIter {
		iter++
		counts, ccmCounts := es.EStep(m.DMV, m.CCM, opts.Workers)
		logLik := ccmCounts.LogLik
		if opts.Iteration != nil {
			opts.Iteration(iter, logLik, m)
		}
		m.DMV = dmv.MStep(counts, 0)
		if m.CCM, err = ccm.MStep(ccmCounts, cc.Sym, ccm.Model1, opts.Smoothing); err != nil {
			return nil, iter, err
		}
		if !math.IsInf(prev, -1) && math.Abs(logLik-prev) <= opts.Tol*math.Abs(logLik) {
			break
		}
		prev = logLik
	}
	return m, iter, nil
}

func tagsOf(sents []*format.Sentence) [][]string {
	tags := make([][]string, len(sents))
	for i, s := range sents {
		tags[i] = s.Tags
	}
	return tags
}

// headChoiceFactors multiplies 1/(j−i) into the φ of every span of two or
// more words.
func headChoiceFactors(f ccm.Factors, n int) ccm.Factors {
	w := n + 1
	for i := 0; i < n; i++ {
		for j := i + 2; j <= n; j++ {
			f.Phi[i*w+j] /= float64(j - i)
		}
	}
	return f
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
	f := m.CCM.SpanFactors(m.ccmData, k)
	if m.headChoice {
		f = headChoiceFactors(f, s.N)
	}
	return Viterbi(s.N, WeightsFromDMV(m.DMV, m.dmvData.Sent(k, nil)), f)
}

// ParseAll is the Viterbi derivation of each of sents (held-out ones,
// or the training sentences again), and how many tokens had a tag the DMV
// never saw. Such a tag's every DMV probability is 0, so its sentence has
// probability 0 and gets the first tree of Viterbi's tie order (as decode
// falls back for the DMV); the CCM gives unseen yields and contexts their
// smoothed zero-count probability.
func (m *Model) ParseAll(sents []*format.Sentence) ([]Parse, int, error) {
	cc, err := ccm.NewCorpus(tagsOf(sents), m.CCM.Sym)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Parse, len(sents))
	unknown := 0
	for k, s := range sents {
		tags := make([]int, len(s.Tags))
		for i, t := range s.Tags {
			id, ok := m.dmvData.Tags.Index(t)
			if !ok {
				id = -1
				unknown++
			}
			tags[i] = id
		}
		f := m.CCM.SpanFactors(cc, k)
		if m.headChoice {
			f = headChoiceFactors(f, len(tags))
		}
		out[k] = Viterbi(len(tags), WeightsFromDMV(m.DMV, tags), f)
	}
	return out, unknown, nil
}
