package hmmce

import (
	"fmt"
	"math/rand/v2"

	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Options of a training run.
type Options struct {
	Kind    string  // neighbourhood: trans1, del1ortrans1 or length
	Sigma2  float64 // variance of the Gaussian prior (0 or +Inf: none)
	MaxIter int     // L-BFGS iterations (0: 100)
	Tol     float64 // stop when the objective's relative change is at most this (0: only when it stops changing)
	Seed    uint64  // of the start
	Noise   float64 // start weights uniform in [0, Noise): never the symmetric point
	// Start, when not nil, is the weight vector to start from instead
	// (a saved model's: train-hmm -m).
	Start []float64
	// Observe, when not nil, sees every accepted iterate's objective.
	Observe func(iter int, objective float64)
}

// Result of a run.
type Result struct {
	Theta     []float64
	Objective float64
	Iters     int
	Status    string
}

// Train maximises the contrastive objective by L-BFGS from a seeded
// noisy start and returns the best weights it saw.
func Train(m *Model, sents [][]int, opts Options) (*Result, error) {
	if opts.Start == nil && opts.Noise <= 0 {
		return nil, fmt.Errorf("hmmce: the start noise must be > 0 (the zero vector is a symmetric point)")
	}
	nb := make([]*dmv.Lattice, len(sents))
	for i, x := range sents {
		var err error
		if nb[i], err = Neighbourhood(opts.Kind, x, m.V); err != nil {
			return nil, fmt.Errorf("sentence %d: %w", i+1, err)
		}
	}
	r := rand.New(rand.NewPCG(opts.Seed, 0x686d6d6365))
	theta := make([]float64, m.Dim())
	for i := range theta {
		theta[i] = opts.Noise * r.Float64()
	}
	if opts.Start != nil {
		if len(opts.Start) != len(theta) {
			return nil, fmt.Errorf("hmmce: a start of %d weights for a model of %d", len(opts.Start), len(theta))
		}
		copy(theta, opts.Start)
	}
	search, err := cesearch.New(SearchOptions(opts.MaxIter, opts.Tol), theta)
	if err != nil {
		return nil, err
	}
	grad := make([]float64, len(theta))
	for !search.Done() {
		x := search.Pending()
		obj := m.Objective(x, sents, nb, opts.Sigma2, grad)
		if err := search.Give(cesearch.Eval{Objective: obj, Gradient: grad}, func(it cesearch.Iteration) error {
			if opts.Observe != nil {
				opts.Observe(it.Index, it.Objective)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	_, status, err := search.Outcome()
	if err != nil {
		return nil, err
	}
	best, obj := search.Best()
	return &Result{Theta: best, Objective: obj, Iters: search.Iterations() + 1, Status: status}, nil
}

// SearchOptions are the options of train-hmm --estimator ce's L-BFGS:
// gonum's defaults (its bisection line search), at most 20 evaluations an
// iteration, stopping when the objective's change is at most tol of it
// (0 or below: only when it does not change).
func SearchOptions(maxIter int, tol float64) cesearch.Options {
	if maxIter <= 0 {
		maxIter = 100
	}
	if tol < 0 {
		tol = 0
	}
	return cesearch.Options{Linesearch: cesearch.Bisection, Rule: cesearch.WithinTol, Tol: tol, MaxIter: maxIter, MaxEvals: 20 * (maxIter + 1)}
}
