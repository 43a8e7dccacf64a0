package dmvccm

import (
	"fmt"
	"math"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/emloop"
	"github.com/grind-nlp/grind/stages/rundir"
	"github.com/grind-nlp/grind/stages/schedule"
)

// Model is a DMV+CCM pair: the product's two factors, the DMV over Tags.
type Model struct {
	Tags    *dmv.TagSet
	DMV     *dmv.Params
	CCM     *ccm.Model
	dmvData *dmv.Corpus // the training corpus, for Parse
	ccmData *ccm.Corpus
	// headChoice, rightFirst: Options.HeadChoice, Options.RightFirst.
	headChoice, rightFirst bool
	// order, flat: Options.Order, Options.FlatCCM; Fn8 is footnote 8's
	// decisions (Order Footnote8 only).
	order Order
	flat  bool
	Fn8   *Fn8Params
}

// general says whether the model runs the general program (ochart): the
// mixture, footnote 8, or a flat CCM.
func (m *Model) general() bool { return m.order == Mixture || m.order == Footnote8 || m.flat }

// Order is the model's head order.
func (m *Model) Order() Order { return m.order }

// Flat says whether the model's CCM is held flat (Options.FlatCCM).
func (m *Model) Flat() bool { return m.flat }

// DefaultTol is DMV+CCM's stopping threshold: the relative change of the
// log-likelihood.
const DefaultTol = 1e-5

// Options control Train.
type Options struct {
	DMVInit   string        // dmv initializer, dmv.InitKM when ""
	CCMStart  ccm.Start     // ccm.SplitUniform when ""
	Smoothing ccm.Smoothing // the CCM's; ccm.KleinSmoothing when zero
	MaxIter   int           // 100 when 0
	Tol       float64       // relative change of the log-likelihood; DefaultTol when 0
	// Stop, when emloop.Bits, reads Tol as the change of the per-token
	// cross-entropy in bits instead (2^−20 when 0).
	Stop    emloop.Rule
	Workers int // E-step goroutines (0: every core); the result does not depend on it
	// Estimator is EM (default), or DA or SDA (ccm.Estimator): a stage
	// per β of schedule.DA(Beta0, Gamma) (0.01 and 1.5 when 0), whose
	// E-step is the product's under every probability p of both halves
	// raised to β (DA) or p^β·p₀^(1−β), p₀ of the start pair (SDA):
	// Tempered. Each stage runs to Tol.
	Estimator    ccm.Estimator
	Beta0, Gamma float64
	// HeadChoice multiplies Klein's head-choice factor 1/(j−i) into every
	// sealed span [i,j) (his footnote in §6.3, which makes the product a
	// model of lexicalised trees; he found it harmful). Every sealed span
	// of two or more words is a constituent, so it goes into the CCM's
	// factors and the chart is unchanged.
	HeadChoice bool
	// RightFirst keeps the DMV alone's attachment order in the product:
	// each head takes its right dependents before its left ones (Klein
	// §6.2), so each dependency tree has one bracketing; by default every
	// interleaving is a derivation (Klein §6.3 releases the order), which
	// weighs a tree by its number of interleavings as well (Weights).
	RightFirst bool
	// Order is the head order of the DMV half: Released (the default;
	// RightFirst is RightFirstOrder), Mixture (Klein's ½/½ choice of
	// right-first or left-first per head, §6.3) or Footnote8 (his footnote
	// 8: before each dependent stop entirely or choose a side; its
	// decisions start from the DMV's by Fn8FromDMV).
	Order Order
	// FlatCCM holds the CCM flat (every probability ½, φ ≡ 1): the product
	// is then the DMV half alone under its order, its log-likelihood
	// log Σ_derivations of their DMV weights. EM only.
	FlatCCM bool
	// Observe, Checkpoint, Resume and Clock are the loop's (emloop.Loop).
	// Observe sees each E-step's log-likelihood (it.Change is signed:
	// (L − L_prev)/|L_prev|) and the model of that E-step (its Parse
	// decodes the training sentences).
	Observe    func(it format.Iteration, m *Model) error
	Checkpoint func(c rundir.State[*Model]) error
	Resume     *rundir.State[*Model]
	Clock      time.Time
}

// Train initialises each model as alone (the DMV from its initializer,
// the CCM from its start), then runs EM (or DA, SDA) on the product: one joint E-step
// per iteration over every derivation gives the bracket posteriors for
// the CCM's counts and the attachment posteriors for the DMV's, then one
// M-step each (Klein §6.3). It stops after the iteration whose
// log-likelihood L is within Tol·|L| of the one before, and returns the
// models of the last M-step and the number of E-steps.
func Train(sents []*format.Sentence, opts Options) (*Model, int, error) {
	start, loop, err := NewLoop(sents, opts)
	if err != nil {
		return nil, 0, err
	}
	res, err := loop.Run(start)
	if err != nil {
		return nil, 0, err
	}
	return res.Model, res.Iterations, nil
}

// NewLoop is Train's start (Start) and its loop on emloop, for a caller
// that runs it itself. A step never changes the model it is given.
func NewLoop(sents []*format.Sentence, opts Options) (*Model, *emloop.Loop[*Model], error) {
	m, opts, err := start(sents, opts)
	if err != nil {
		return nil, nil, err
	}
	var betas []float64
	if opts.Estimator != "" && opts.Estimator != ccm.EM {
		beta0, gamma := opts.Beta0, opts.Gamma
		if beta0 == 0 {
			beta0 = 0.01
		}
		if gamma == 0 {
			gamma = 1.5
		}
		if betas, err = schedule.DA(beta0, gamma); err != nil {
			return nil, nil, err
		}
	}
	var skew *Model
	if opts.Estimator == ccm.SDA {
		skew = m
	}
	es := NewEStepper(m.dmvData, m.ccmData)
	es.headChoice, es.rightFirst = opts.HeadChoice, opts.RightFirst
	es.order, es.flat = m.order, m.flat
	step := func(m *Model, beta float64) (*Model, float64, error) {
		e := m
		if beta != 1 {
			e = m.Tempered(beta, skew)
		}
		es.fn8 = e.Fn8
		counts, ccmCounts := es.EStep(e.DMV, e.CCM, opts.Workers)
		logLik := ccmCounts.LogLik
		if beta != 1 {
			// (1/β) log Σ p^β: the log-likelihood at β = 1.
			logLik /= beta
		}
		next := *m
		next.DMV = dmv.MStep(counts, 0)
		if m.order == Footnote8 {
			next.Fn8 = Fn8MStep(es.fn8Counts)
		}
		if m.flat {
			return &next, logLik, nil
		}
		var err error
		if next.CCM, err = ccm.MStep(ccmCounts, m.ccmData.Sym, ccm.Model1, opts.Smoothing); err != nil {
			return nil, 0, err
		}
		return &next, logLik, nil
	}
	// No Tokens: the product's log-likelihood per token is no
	// cross-entropy (the CCM half generates every span of a sentence).
	l := &emloop.Loop[*Model]{
		Step: step, Betas: betas, Annealed: betas != nil, MaxIter: opts.MaxIter, Tol: opts.Tol,
		// Klein's rule, relative to the new log-likelihood and inclusive.
		Converged: func(prev, obj float64) bool {
			return !math.IsInf(prev, -1) && math.Abs(obj-prev) <= opts.Tol*math.Abs(obj)
		},
		Checkpoint: opts.Checkpoint, Resume: opts.Resume, Start: opts.Clock,
	}
	if opts.Stop == emloop.Bits {
		tokens := 0
		for _, s := range m.ccmData.Sentences {
			tokens += s.N
		}
		l.Converged = emloop.Bits.Converged(opts.Tol, tokens)
	}
	l.Observe = signedChange(opts.Observe, l)
	return m, l, nil
}

// signedChange gives obs each iteration with the change signed, as the
// product's log has always had it (its likelihood may go down: its
// M-steps are each half's own, not the product's).
// The previous objective of a resumed run is its checkpoint's (l.Resume
// may be set after NewLoop).
func signedChange(obs func(format.Iteration, *Model) error, l *emloop.Loop[*Model]) func(format.Iteration, *Model) error {
	if obs == nil {
		return nil
	}
	prev, first := 0.0, true
	return func(it format.Iteration, m *Model) error {
		if first {
			if r := l.Resume; r != nil && r.StageIters > 0 {
				prev = r.Prev
			}
			first = false
		}
		obj := float64(it.Objective)
		had := it.Change != nil // from a stage's second iteration on
		it.Change = nil
		if had && prev != 0 {
			ch := format.Real((obj - prev) / math.Abs(prev))
			it.Change = &ch
		}
		prev = obj
		return obs(it, m)
	}
}

// RightFirst says whether the product keeps the DMV's right-first order.
func (m *Model) RightFirst() bool { return m.rightFirst }

// Start is the pair Train starts from (opts.DMVInit's model and the
// M-step of opts.CCMStart's counts): the first model of the shell loop.
func Start(sents []*format.Sentence, opts Options) (*Model, error) {
	m, _, err := start(sents, opts)
	return m, err
}

func start(sents []*format.Sentence, opts Options) (*Model, Options, error) {
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
	if opts.RightFirst {
		opts.Order = RightFirstOrder
	}
	opts.RightFirst = opts.Order == RightFirstOrder
	if opts.FlatCCM && opts.Estimator != "" && opts.Estimator != ccm.EM {
		return nil, opts, fmt.Errorf("a flat CCM runs EM only, not %s", opts.Estimator)
	}
	if opts.Tol == 0 {
		opts.Tol = DefaultTol
		if opts.Stop == emloop.Bits {
			opts.Tol = emloop.DefaultBitsTol
		}
	}
	dc, err := dmv.NewCorpus(sents, nil)
	if err != nil {
		return nil, opts, err
	}
	cc, err := ccm.NewCorpus(tagsOf(sents), nil)
	if err != nil {
		return nil, opts, err
	}
	m := &Model{Tags: dc.Tags, dmvData: dc, ccmData: cc, headChoice: opts.HeadChoice, rightFirst: opts.RightFirst, order: opts.Order, flat: opts.FlatCCM}
	if m.DMV, err = dmv.InitialModel(dc, opts.DMVInit, dmv.InitOptions{}); err != nil {
		return nil, opts, err
	}
	if m.order == Footnote8 {
		m.Fn8 = Fn8FromDMV(m.DMV)
	}
	start, err := ccm.StartCounts(cc, opts.CCMStart)
	if err != nil {
		return nil, opts, err
	}
	if m.CCM, err = ccm.MStep(start, cc.Sym, ccm.Model1, opts.Smoothing); err != nil {
		return nil, opts, err
	}
	return m, opts, nil
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

// Parse is the Viterbi derivation of sentence k of the training corpus
// (which the pair never gives probability 0).
func (m *Model) Parse(k int) Parse {
	if m.general() {
		p, _ := m.parseGeneral(m.DMV, m.Fn8, m.dmvData.Sent(k, nil), m.ccmData, k)
		return p
	}
	p, _ := parse(m.DMV, m.dmvData.Sent(k, nil), m.CCM, m.ccmData, k, m.headChoice, m.rightFirst)
	return p
}

// Parses are ParseAll's: each sentence's derivation, the tags the DMV
// never saw, and how many sentences of probability 0 the fallback parsed.
type Parses struct {
	Parses   []Parse
	Unseen   []string
	FellBack int
}

// ParseAll is the Viterbi derivation of each of sents (held-out ones,
// or the training sentences again), and the tags the DMV never saw: each
// is the DMV's average tag (dmv.Table.Extend, as decode does for the
// DMV); the CCM gives unseen yields and contexts their smoothed
// zero-count probability. decode -m on the saved model gives the same.
func (m *Model) ParseAll(sents []*format.Sentence) (Parses, error) {
	c, err := m.NewCorpus(sents)
	if err != nil {
		return Parses{}, err
	}
	out := Parses{Parses: make([]Parse, len(sents)), Unseen: c.Unseen}
	for k := range sents {
		var fell bool
		if out.Parses[k], fell = c.Parse(m, k); fell {
			out.FellBack++
		}
	}
	return out, nil
}
