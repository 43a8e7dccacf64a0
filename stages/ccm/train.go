package ccm

import (
	"fmt"
	"math"
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
				p[i*w+j] = math.Exp(logCatalan(l-1) + logCatalan(n-l) - logCatalan(n-1))
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
	cnt := &Counts{Sentences: len(c.Sentences), Tokens: c.Tokens}
	cnt.SpanT, cnt.SpanN = make([]float64, c.Sym.NumYields()), make([]float64, c.Sym.NumYields())
	cnt.ContextT, cnt.ContextN = make([]float64, c.Sym.NumContexts()), make([]float64, c.Sym.NumContexts())
	c.sum(1, post, cnt)
	return cnt, nil
}

// Options control Train.
type Options struct {
	Variant   Variant   // Model1 when 0
	Start     Start     // SplitUniform when ""
	Smoothing Smoothing // KleinSmoothing when zero
	MaxIter   int       // iterations of EM at most; 100 when 0
	// Tol stops EM when the objective's relative change falls below it
	// (1e-6 when 0).
	Tol     float64
	Workers int
	// Iteration, when set, is called after each E-step with the
	// iteration (1-based), the corpus log-likelihood under the model of
	// that E-step and the MAP objective (log-likelihood + LogPrior).
	Iteration func(iter int, logLik, objective float64)
}

// Train runs EM from the start's M-step until convergence and returns the
// last model (the one after the final M-step) and the number of E-steps.
func Train(c *Corpus, opts Options) (*Model, int, error) {
	if opts.Variant == 0 {
		opts.Variant = Model1
	}
	if opts.Start == "" {
		opts.Start = SplitUniform
	}
	if opts.Smoothing == (Smoothing{}) {
		opts.Smoothing = KleinSmoothing
	}
	if opts.MaxIter == 0 {
		opts.MaxIter = 100
	}
	if opts.Tol == 0 {
		opts.Tol = 1e-6
	}
	cnt, err := StartCounts(c, opts.Start)
	if err != nil {
		return nil, 0, err
	}
	m, err := MStep(cnt, c.Sym, opts.Variant, opts.Smoothing)
	if err != nil {
		return nil, 0, err
	}
	post := make([]float64, len(c.Yield))
	prev := math.Inf(-1)
	iter := 0
	for iter < opts.MaxIter {
		iter++
		cnt = m.estep(c, opts.Workers, post)
		obj := cnt.LogLik + m.LogPrior(opts.Smoothing)
		if opts.Iteration != nil {
			opts.Iteration(iter, cnt.LogLik, obj)
		}
		if m, err = MStep(cnt, c.Sym, opts.Variant, opts.Smoothing); err != nil {
			return nil, iter, err
		}
		if !math.IsInf(prev, -1) && math.Abs(obj-prev) <= opts.Tol*math.Abs(obj) {
			break
		}
		prev = obj
	}
	return m, iter, nil
}
