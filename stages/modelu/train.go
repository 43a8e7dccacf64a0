package modelu

import (
	"errors"
	"math"
	"slices"

	"github.com/grind-nlp/grind/stages/cesearch"
)

// Options of a training run.
type Options struct {
	Sigma2  float64 // variance of the Gaussian prior (0 or +Inf: none)
	MaxIter int     // L-BFGS iterations (0: 100)
	Tol     float64 // stop when the objective's relative change is below this (0: 1e-5)
	Workers int
	// Observe, when not nil, sees the start and every accepted iterate
	// (iteration 0 the start) that the log has not seen (Training.Logged).
	Observe func(it cesearch.Iteration) error
	// Training, when not nil, is the training to run: a new one
	// (NewTraining) or a saved one going on (train-ce --resume); nil
	// starts one from the model's weights.
	Training *Training
	// Checkpoint, when not nil, hears the training after every accepted
	// iterate that does not end it (the run directory's ce-state.json).
	Checkpoint func(tr *Training) error
}

// Result of a run.
type Result struct {
	Theta     []float64
	Objective float64
	Iters     int
	Evals     int
	Converged bool
	Status    string
}

// SearchOptions are Model U's L-BFGS: gonum's, with its default bisection
// line search, stopping when the objective's relative change is below
// tol, at most 40 evaluations an iteration.
func SearchOptions(maxIter int, tol float64) cesearch.Options {
	if maxIter <= 0 {
		maxIter = 100
	}
	if tol <= 0 {
		tol = 1e-5
	}
	return cesearch.Options{Linesearch: cesearch.Bisection, Rule: cesearch.RelativeChange, Tol: tol,
		MaxIter: maxIter, MaxEvals: 40 * (maxIter + 1)}
}

// Train maximises the contrastive objective by L-BFGS from the model's
// weights (0 for a new model: Smith's Zero initializer), or from
// opts.Training, and returns the best weights it saw; the model's weights
// become those. The same search, one evaluation at a time, is ce-step's
// (Step), which the shell loop drives with estep's counts.
func Train(p *Problem, opts Options) (*Result, error) {
	tr := opts.Training
	if tr == nil {
		var err error
		if tr, err = NewTraining(p.M, nil, opts.Sigma2, opts.MaxIter, opts.Tol); err != nil {
			return nil, err
		}
	}
	grad := make([]float64, len(p.M.Theta))
	for !tr.Done() {
		x := tr.Pending()
		obj := p.Objective(x, opts.Sigma2, opts.Workers, grad)
		before := tr.State.Iteration
		if err := tr.Give(obj, grad, opts.Observe); err != nil {
			return nil, err
		}
		if opts.Checkpoint != nil && tr.State.Iteration > before && !tr.Done() {
			if err := opts.Checkpoint(tr); err != nil {
				return nil, err
			}
		}
	}
	st := tr.State
	res := &Result{Theta: slices.Clone(st.Weights), Objective: float64(st.Objective), Iters: max(0, st.Iteration-1),
		Evals: st.Evaluations, Converged: st.Converged, Status: st.Stopped}
	if res.Converged {
		res.Status = "converged"
	}
	copy(p.M.Theta, res.Theta)
	return res, nil
}

// noValueAtStart is the error of a start where the objective has none.
var noValueAtStart = errors.New("the objective has no value at the start (weights too extreme for the charts)")

// checkStart refuses a start without a value.
func checkStart(tr *Training, obj float64) error {
	if tr.search.Evals() == 0 && (math.IsInf(obj, -1) || math.IsNaN(obj)) {
		return noValueAtStart
	}
	return nil
}

// errNoFeatures is the error of a corpus with no pair of words.
var errNoFeatures = errors.New("no features: every sentence has one word (Model U's features are edges)")
