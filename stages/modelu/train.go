package modelu

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// Options of a training run.
type Options struct {
	Sigma2  float64 // variance of the Gaussian prior (0 or +Inf: none)
	MaxIter int     // L-BFGS iterations (0: 100)
	Tol     float64 // stop when the objective's relative change is below this (0: 1e-5)
	Workers int
	// Observe, when not nil, sees the start and every accepted iterate:
	// its number (0 the start), objective and weights.
	Observe func(iter int, objective float64, theta []float64) error
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

// Train maximises the contrastive objective by L-BFGS from the model's
// weights (0 for a new model: Smith's Zero initializer) and returns the
// best weights it saw; the model's weights become those.
func Train(p *Problem, opts Options) (*Result, error) {
	theta := append([]float64(nil), p.M.Theta...)
	maxIter, tol := opts.MaxIter, opts.Tol
	if maxIter <= 0 {
		maxIter = 100
	}
	if tol <= 0 {
		tol = 1e-5
	}
	res := &Result{Theta: append([]float64(nil), theta...), Objective: math.Inf(-1)}
	if len(theta) == 0 {
		return nil, errors.New("no features: every sentence has one word (Model U's features are edges)")
	}
	var atX, gradAt []float64
	var objAt float64
	eval := func(x []float64) {
		if atX != nil && floats.Equal(x, atX) {
			return
		}
		if gradAt == nil {
			gradAt = make([]float64, len(x))
		}
		objAt = p.Objective(x, opts.Sigma2, opts.Workers, gradAt)
		res.Evals++
		atX = append(atX[:0], x...)
	}
	if eval(theta); math.IsInf(objAt, -1) {
		return nil, errors.New("the objective has no value at the start (weights too extreme for the charts)")
	}
	conv := &converger{tol: tol, res: res, observe: opts.Observe}
	problem := optimize.Problem{
		// gonum minimises −objective; no value is +Inf, which the line
		// search backs off from.
		Func: func(x []float64) float64 { eval(x); return -objAt },
		Grad: func(g, x []float64) {
			eval(x)
			for i, v := range gradAt {
				g[i] = -v
			}
		},
	}
	settings := &optimize.Settings{MajorIterations: maxIter + 1, FuncEvaluations: 40 * (maxIter + 1), Converger: conv}
	result, err := optimize.Minimize(problem, theta, settings, &optimize.LBFGS{})
	if conv.err != nil {
		return nil, conv.err
	}
	fixed := errors.Is(err, optimize.ErrNonDescentDirection)
	if err != nil && !fixed && !errors.Is(err, optimize.ErrLinesearcherFailure) && !errors.Is(err, optimize.ErrNoProgress) {
		return nil, fmt.Errorf("L-BFGS: %w", err)
	}
	res.Status = result.Status.String()
	res.Converged = result.Status == optimize.FunctionConvergence || result.Status == optimize.GradientThreshold || fixed
	switch {
	case fixed:
		res.Status = "the gradient vanishes: a fixed point"
	case err != nil:
		res.Status = err.Error()
	}
	copy(p.M.Theta, res.Theta)
	return res, nil
}

// converger keeps the best iterate and stops on a small relative change.
type converger struct {
	tol     float64
	res     *Result
	observe func(int, float64, []float64) error
	err     error
	prev    float64
	started bool
	iter    int
}

func (c *converger) Init(int) {}

func (c *converger) Converged(loc *optimize.Location) optimize.Status {
	obj := -loc.F
	if c.observe != nil {
		if err := c.observe(c.iter, obj, loc.X); err != nil {
			c.err = err
			return optimize.Failure
		}
	}
	if obj > c.res.Objective {
		c.res.Objective = obj
		copy(c.res.Theta, loc.X)
	}
	done := c.started && math.Abs(obj-c.prev) < c.tol*math.Abs(c.prev)
	c.started, c.prev = true, obj
	if c.iter > 0 {
		c.res.Iters++
	}
	c.iter++
	if done {
		return optimize.FunctionConvergence
	}
	return optimize.NotTerminated
}
