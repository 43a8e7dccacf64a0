package ccm

import (
	"fmt"
	"math"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/emloop"
	"github.com/grind-nlp/grind/stages/rundir"

	"github.com/grind-nlp/grind/stages/bintree"
	"github.com/grind-nlp/grind/stages/schedule"
)

// Start names the bracket posterior that the first M-step reads (Klein
// §5.3.2, Figure 5.14).
type Start string

const (
	// SplitUniform: a tree is built by choosing each span's split point
	// uniformly (Klein's choice, the default).
	SplitUniform Start = "split"
	// TreeUniform: every binary tree equally likely.
	TreeUniform Start = "tree"
	// BracketUniform: every span of 2..n−1 tokens equally likely, with the
	// probability that gives a binary tree's n − 2 such brackets on
	// average (not the posterior of any distribution over trees).
	BracketUniform Start = "bracket"
)

// ParseStart reads a start's name.
func ParseStart(s string) (Start, error) {
	switch st := Start(s); st {
	case SplitUniform, TreeUniform, BracketUniform:
		return st, nil
	}
	return "", fmt.Errorf("CCM start must be %q, %q or %q, not %q", SplitUniform, TreeUniform, BracketUniform, s)
}

// StartPosteriors is the bracket posterior of start over n tokens, as a
// flat (n+1)² matrix p[i·(n+1)+j] for i < j.
func StartPosteriors(start Start, n int) ([]float64, error) {
	w := n + 1
	p := make([]float64, w*w)
	switch start {
	case SplitUniform:
		// Top-down: a span of l ≥ 2 tokens passes its probability to each
		// of its l − 1 splits' two children alike.
		p[n] = 1
		for l := n; l >= 2; l-- {
			for i := 0; i+l <= n; i++ {
				j := i + l
				share := p[i*w+j] / float64(l-1)
				for k := i + 1; k < j; k++ {
					p[i*w+k] += share
					p[k*w+j] += share
				}
			}
		}
	case TreeUniform:
		for i := 0; i < n; i++ {
			for j := i + 1; j <= n; j++ {
				l := j - i
				p[i*w+j] = bintree.BracketProb(l, n)
			}
		}
	case BracketUniform:
		inner := n*(n-1)/2 - 1 // spans of 2..n−1 tokens
		for i := 0; i < n; i++ {
			for j := i + 1; j <= n; j++ {
				switch l := j - i; {
				case l == 1 || l == n:
					p[i*w+j] = 1
				default:
					p[i*w+j] = float64(n-2) / float64(inner)
				}
			}
		}
	default:
		return nil, fmt.Errorf("unknown CCM start %q", start)
	}
	return p, nil
}

// StartCounts are the counts of start's bracket posteriors over c (their
// LogLik is 0: no model has scored the corpus yet).
func StartCounts(c *Corpus, start Start) (*Counts, error) {
	post, err := startPosteriors(c, start)
	if err != nil {
		return nil, err
	}
	cnt := newCounts(c)
	c.sum(1, post, cnt)
	return cnt, nil
}

// startPosteriors is start's bracket posterior of every span of c, in
// the layout of a corpus-wide posterior buffer.
func startPosteriors(c *Corpus, start Start) ([]float64, error) {
	post := make([]float64, len(c.Yield))
	byLen := map[int][]float64{}
	for _, s := range c.Sentences {
		p, ok := byLen[s.N]
		if !ok {
			var err error
			if p, err = StartPosteriors(start, s.N); err != nil {
				return nil, err
			}
			byLen[s.N] = p
		}
		copy(post[s.Off:], p)
	}
	return post, nil
}

// Estimator names how Train searches.
type Estimator string

const (
	// EM is plain EM from the start.
	EM Estimator = "em"
	// DA is deterministic annealing (Smith & Eisner 2004): the E-step
	// reads the tables raised to β, so its posterior is P(B|s)^β
	// renormalised; β rises from Beta0 by Gamma per stage to 1.
	DA Estimator = "da"
	// SDA is skewed DA: the E-step's posterior is P(B|s)^β·p̀(B)^(1−β)
	// renormalised, so early stages lean toward the skew p̀ (Skew).
	SDA Estimator = "sda"
)

// Skew names what SDA's E-step leans toward at small β.
type Skew string

const (
	// SkewSplit is Smith & Eisner's (2004 §6) skew: the random-split tree
	// distribution ("This posterior might be specified directly, as it
	// will be in §6", §5), under which a binary tree has probability
	// Π 1/(l−1) over its constituents of l ≥ 2 tokens: the distribution
	// whose bracket posteriors are the split start's (SplitSkewed).
	SkewSplit Skew = "split"
	// SkewStart is grind's own variant: the tables θ^β·θ₀^(1−β), θ₀ the
	// model of the start's M-step (Tempered), as Smith's thesis (§5.3)
	// skews the DMV toward its initializer's θ⁽⁰⁾.
	SkewStart Skew = "start"
)

// ParseSkew reads a skew's name.
func ParseSkew(s string) (Skew, error) {
	switch k := Skew(s); k {
	case SkewSplit, SkewStart:
		return k, nil
	}
	return "", fmt.Errorf("the skew must be %q (the random-split trees) or %q (the start's model), not %q", SkewSplit, SkewStart, s)
}

// ParseEstimator reads an estimator's name.
func ParseEstimator(s string) (Estimator, error) {
	switch e := Estimator(s); e {
	case EM, DA, SDA:
		return e, nil
	}
	return "", fmt.Errorf("estimator must be %q, %q or %q, not %q", EM, DA, SDA, s)
}

// Tempered is the model whose tables are m's raised to β, times skew's
// raised to 1 − β when skew is not nil (both on the same Symbols): the
// E-step under it gives DA's (SDA's) posteriors. It is not normalised.
func (m *Model) Tempered(beta float64, skew *Model) *Model {
	if m.Classes != nil || skew != nil && skew.Classes != nil {
		panic("ccm: the multi-class CCM is not annealed") // NewLoop refuses it
	}
	m.Grow()
	if skew != nil {
		skew.Grow()
	}
	t := &Model{Variant: m.Variant, Sym: m.Sym}
	pow := func(p, q []float64) []float64 {
		out := make([]float64, len(p))
		for i, v := range p {
			out[i] = math.Pow(v, beta)
			if q != nil {
				out[i] *= math.Pow(q[i], 1-beta)
			}
		}
		return out
	}
	for b := range 2 {
		var qs, qc []float64
		if skew != nil {
			qs, qc = skew.Span[b], skew.Context[b]
		}
		t.Span[b], t.Context[b] = pow(m.Span[b], qs), pow(m.Context[b], qc)
		t.unseenSpan[b] = append([]float64(nil), m.unseenSpan[b]...)
		t.unseenContext[b] = m.unseenContext[b]
	}
	return t
}

// DefaultTol is the CCM's stopping threshold: the relative change of
// the objective.
const DefaultTol = 1e-6

// SplitSkewed is Tempered(beta, nil) with every constituent of l ≥ 2
// tokens also weighted (1/(l−1))^(1−β): the E-step under it gives SDA's
// posterior P(B|s)^β·p̀(B)^(1−β) renormalised, p̀ the random-split tree
// distribution (SkewSplit). As p̀ sums to 1 over the binary trees, its
// log-likelihood L gives SDA's objective (1/β)·log Σ_B P(s,B)^β·p̀(B)^(1−β)
// as DA's does: (L + log Cat(n−1))/β − log Cat(n−1). Not normalised.
func (m *Model) SplitSkewed(beta float64) *Model {
	t := m.Tempered(beta, nil)
	t.splitSkew = 1 - beta
	return t
}

// Options control Train.
type Options struct {
	Variant   Variant   // Model1 when 0
	Start     Start     // SplitUniform when ""
	Smoothing Smoothing // KleinSmoothing when zero
	Estimator Estimator // EM when ""
	Skew      Skew      // SDA's skew; SkewSplit when ""
	// Beta0 and Gamma are DA's and SDA's schedule (0.01 and 1.5 when 0,
	// Smith & Eisner's).
	Beta0, Gamma float64
	// MaxIter bounds the iterations of EM (of each stage under DA); 100
	// when 0.
	MaxIter int
	// Tol stops EM (a stage) when the objective's relative change falls
	// below it (DefaultTol when 0), or under Stop emloop.Bits its change in
	// bits per token (2^−20 when 0).
	Tol     float64
	Stop    emloop.Rule
	Workers int
	// Classes, when not 0, trains Klein's multi-class CCM (§5.3.2) with
	// that many classes, the distituent label one of them (2 is the CCM
	// itself, by the multi-class code); EM and Model1 only. Seed draws
	// the classes' start (ClassStartCounts).
	Classes int
	Seed    uint64
	// Observe, Checkpoint, Resume and Clock are the loop's (emloop.Loop:
	// Observe sees each iteration's objective, the log-likelihood plus the
	// smoothing's log prior, tempered under DA, with the model its E-step
	// ran with).
	Observe    func(it format.Iteration, m *Model) error
	Checkpoint func(c rundir.State[*Model]) error
	Resume     *rundir.State[*Model]
	Clock      time.Time
}

// Train runs EM (or DA, SDA) from the start's M-step until convergence
// and returns the last model (the one after the final M-step) and the
// number of E-steps.
func Train(c *Corpus, opts Options) (*Model, int, error) {
	start, loop, err := NewLoop(c, opts)
	if err != nil {
		return nil, 0, err
	}
	res, err := loop.Run(start)
	if err != nil {
		return nil, 0, err
	}
	return res.Model, res.Iterations, nil
}

// NewLoop is Train's start (the M-step of the start's bracket counts) and
// loop, for a caller that runs it itself.
func NewLoop(c *Corpus, opts Options) (*Model, *emloop.Loop[*Model], error) {
	if opts.Variant == 0 {
		opts.Variant = Model1
	}
	if opts.Start == "" {
		opts.Start = SplitUniform
	}
	if opts.Smoothing == (Smoothing{}) {
		opts.Smoothing = KleinSmoothing
	}
	if opts.Estimator == "" {
		opts.Estimator = EM
	}
	if opts.Beta0 == 0 {
		opts.Beta0 = 0.01
	}
	if opts.Gamma == 0 {
		opts.Gamma = 1.5
	}
	if opts.MaxIter == 0 {
		opts.MaxIter = 100
	}
	if opts.Tol == 0 {
		opts.Tol = DefaultTol
		if opts.Stop == emloop.Bits {
			opts.Tol = emloop.DefaultBitsTol
		}
	}
	var betas []float64
	if opts.Estimator != EM {
		var err error
		if betas, err = schedule.DA(opts.Beta0, opts.Gamma); err != nil {
			return nil, nil, err
		}
	}
	var cnt *Counts
	var err error
	if opts.Classes != 0 {
		if opts.Classes < 2 || opts.Estimator != EM || opts.Variant != Model1 {
			return nil, nil, fmt.Errorf("the multi-class CCM takes 2 classes or more, EM and model 1 (%d classes, %s, %s)", opts.Classes, opts.Estimator, FamilyOf(opts.Variant))
		}
		cnt, err = ClassStartCounts(c, opts.Start, opts.Classes-1, opts.Seed)
	} else {
		cnt, err = StartCounts(c, opts.Start)
	}
	if err != nil {
		return nil, nil, err
	}
	start, err := MStep(cnt, c.Sym, opts.Variant, opts.Smoothing)
	if err != nil {
		return nil, nil, err
	}
	if opts.Skew == "" {
		opts.Skew = SkewSplit
	}
	if _, err := ParseSkew(string(opts.Skew)); err != nil {
		return nil, nil, err
	}
	var skew *Model
	if opts.Estimator == SDA && opts.Skew == SkewStart {
		skew = start
	}
	splitSkew := opts.Estimator == SDA && opts.Skew == SkewSplit
	// Σ log Cat(n−1): P_bin is not tempered with the tables, so the
	// tempered log-partition takes it back in at β.
	logCat := 0.0
	for _, s := range c.Sentences {
		logCat += bintree.LogCatalan(s.N - 1)
	}
	post := make([]float64, len(c.Yield))
	step := func(m *Model, beta float64) (*Model, float64, error) {
		e := m
		switch {
		case beta == 1:
		case splitSkew:
			e = m.SplitSkewed(beta)
		default:
			e = m.Tempered(beta, skew)
		}
		cnt := e.estep(c, opts.Workers, post)
		logLik := cnt.LogLik
		if beta != 1 {
			logLik = (logLik+logCat)/beta - logCat
		}
		next, err := MStep(cnt, c.Sym, opts.Variant, opts.Smoothing)
		return next, logLik + m.LogPrior(opts.Smoothing), err
	}
	// No Tokens: the CCM generates every span and context of a sentence,
	// so its log-likelihood per token is no cross-entropy (--stop bits
	// still reads its change per token).
	loop := &emloop.Loop[*Model]{
		Step: step, Betas: betas, Annealed: opts.Estimator != EM, MaxIter: opts.MaxIter, Tol: opts.Tol,
		Observe: opts.Observe, Checkpoint: opts.Checkpoint, Resume: opts.Resume, Start: opts.Clock,
	}
	if opts.Stop == emloop.Bits {
		loop.Converged = emloop.Bits.Converged(opts.Tol, c.Tokens)
	}
	return start, loop, nil
}
