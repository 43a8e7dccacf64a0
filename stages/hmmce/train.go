package hmmce

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

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
	maxIter, tol := opts.MaxIter, opts.Tol
	if maxIter <= 0 {
		maxIter = 100
	}
	if tol < 0 {
		tol = 0
	}
	res := &Result{Theta: append([]float64(nil), theta...), Objective: math.Inf(-1)}
	conv := &converger{tol: tol, res: res, observe: opts.Observe}
	// gonum asks for the value and then, when the step is accepted (most
	// of L-BFGS's steps), for the gradient at the same point: one pass
	// computes both, and the gradient waits for the next call.
	var atX, gradAt []float64
	var objAt float64
	eval := func(x []float64) {
		if atX != nil && floats.Equal(x, atX) {
			return
		}
		if gradAt == nil {
			gradAt = make([]float64, len(x))
		}
		objAt = m.Objective(x, sents, nb, opts.Sigma2, gradAt)
		atX = append(atX[:0], x...)
	}
	problem := optimize.Problem{
		// gonum minimises −objective.
		Func: func(x []float64) float64 { eval(x); return -objAt },
		Grad: func(g, x []float64) {
			eval(x)
			for i, v := range gradAt {
				g[i] = -v
			}
		},
	}
	settings := &optimize.Settings{MajorIterations: maxIter + 1, FuncEvaluations: 20 * (maxIter + 1), Converger: conv}
	result, err := optimize.Minimize(problem, theta, settings, &optimize.LBFGS{})
	// L-BFGS's direction fails to descend only where the gradient
	// vanishes: a fixed point (a corpus whose objective is constant, such
	// as one-word sentences under trans1), not an error.
	fixed := errors.Is(err, optimize.ErrNonDescentDirection)
	if err != nil && !fixed && !errors.Is(err, optimize.ErrLinesearcherFailure) && !errors.Is(err, optimize.ErrNoProgress) {
		return nil, fmt.Errorf("L-BFGS: %w", err)
	}
	res.Status = result.Status.String()
	switch {
	case fixed:
		res.Status = "the gradient vanishes: a fixed point"
	case err != nil:
		res.Status = err.Error()
	}
	return res, nil
}

// converger keeps the best iterate and stops on a small relative change.
type converger struct {
	tol     float64
	res     *Result
	observe func(int, float64)
	prev    float64
	started bool
}

func (c *converger) Init(int) {}

func (c *converger) Converged(loc *optimize.Location) optimize.Status {
	obj := -loc.F
	if c.observe != nil {
		c.observe(c.res.Iters, obj)
	}
	if obj > c.res.Objective {
		c.res.Objective = obj
		copy(c.res.Theta, loc.X)
	}
	done := c.started && math.Abs(obj-c.prev) <= c.tol*math.Abs(c.prev)
	c.started, c.prev = true, obj
	c.res.Iters++
	if done {
		return optimize.FunctionConvergence
	}
	return optimize.NotTerminated
}
