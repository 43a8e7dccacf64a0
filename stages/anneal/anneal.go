// Package anneal holds the annealing estimators of Smith & Eisner for the
// DMV (DESIGN.md §5.4–5.5): deterministic annealing and skewed DA
// (train-da), and structural annealing of a locality bias (Model L) or a
// segmentation bias (Model S, train-sa). Each is a schedule of stages of
// the one EM loop (emloop's, with package train's DMV iterations): a
// stage runs EM to convergence with the E-step re-weighted
// (dmv.Reweighting), starting from the model the previous stage ended
// with. Nothing here touches the chart.
//
// It is not for choosing among the models a schedule saves: that is
// package selectmodel (select).
package anneal

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/emloop"
	"github.com/grind-nlp/grind/stages/train"
)

// Parameter names the quantity a schedule anneals.
type Parameter int

const (
	Beta    Parameter = iota // DA's β, the exponent of every probability
	Delta                    // Model L's locality bias δ
	SegBeta                  // Model S's weight per extra tree, as log
)

// Name is the parameter's name in file names and messages.
func (p Parameter) Name() string {
	return [...]string{"beta", "delta", "seg-beta"}[p]
}

// Annealer runs EM to convergence once per stage.
type Annealer struct {
	// EM holds what every stage shares: corpus, λ, iteration limit and
	// tolerance per stage, workers, the observer, the clock's origin and
	// the first iteration's number. Its Weights and Objective are set
	// per stage.
	EM     train.EM
	Stages []dmv.Reweighting
	// Anneals says which parameter the stages vary, for the log (every
	// iteration record carries its stage's value).
	Anneals Parameter
	// AfterStage, when not nil, sees each stage's outcome (1-based k).
	AfterStage func(k int, r dmv.Reweighting, res *train.Result) error
	// Resume, when not nil, continues a run from its checkpoint: the
	// stage under way and the iterations done in it.
	Resume *train.Checkpoint
	// Checkpoint, when not nil, hears the state after every iteration a
	// stage goes on from and at every stage boundary.
	Checkpoint func(c train.Checkpoint) error
}

// Run trains from start through every stage and returns the last stage's
// result, with Iterations counted over the whole schedule. The stages are
// emloop's (the loop, its log records, checkpoints and resume): each one
// train.EM's Steps with the stage's reweighted E-step, all on one
// E-stepper.
func (a *Annealer) Run(start *dmv.Params) (*train.Result, error) {
	if len(a.Stages) == 0 {
		return nil, errors.New("an annealing schedule needs at least one stage")
	}
	for k, r := range a.Stages {
		if err := r.Check(); err != nil {
			return nil, fmt.Errorf("stage %d: %w", k+1, err)
		}
	}
	first := 0
	if r := a.Resume; r != nil {
		if r.Stage > len(a.Stages) {
			return nil, fmt.Errorf("the checkpoint is at stage %d of a schedule of %d", r.Stage, len(a.Stages))
		}
		first = r.Stage - 1
	}
	origin := a.EM.Start
	if origin.IsZero() {
		origin = time.Now()
	}
	maxIter, tol := a.EM.Limits()
	estep := dmv.NewEStepper(a.EM.Corpus)
	steps := make([]*train.Steps, len(a.Stages))
	stages := make([]emloop.Stage[*dmv.Params], len(a.Stages))
	cur := 0 // the stage of the iteration under way
	for k, r := range a.Stages {
		em := a.EM
		em.Weights, em.EStep, em.Objective = r.Weights, r.EStep(a.EM.EStep), tempered(r.Beta)
		var resume *train.Checkpoint
		if k == first && a.Resume != nil && a.Resume.StageIters > 0 {
			resume = a.Resume
		}
		steps[k] = em.NewSteps(estep, resume)
		stages[k] = emloop.Stage[*dmv.Params]{
			Step: func(m *dmv.Params, beta float64) (*dmv.Params, float64, error) {
				cur = k
				next, obj, err := steps[k].Step(m, beta)
				if err != nil {
					return nil, 0, a.inStage(k, err)
				}
				return next, obj, nil
			},
			Label: func(it *format.Iteration) {
				a.label(it, r)
				if r.Beta != 1 || r.Delta != 0 || r.Segmented {
					// A tempered or biased objective: no cross-entropy (at
					// β = 1 the skew vanishes, and Σ log Z is the likelihood).
					it.CrossEntropy = nil
				}
			},
		}
	}
	loop := &emloop.Loop[*dmv.Params]{
		Stages: stages, MaxIter: maxIter, Tol: tol, Converged: a.EM.Converged(), Tokens: a.EM.LikelihoodTokens(),
		FirstIter: a.EM.FirstIter, Start: origin,
		Observe: func(it format.Iteration, m *dmv.Params) error {
			if a.EM.Observe != nil {
				if err := a.EM.Observe(it, m); err != nil {
					return a.inStage(cur, err)
				}
			}
			if err := steps[cur].Stuck(); err != nil {
				return a.inStage(cur, err)
			}
			return nil
		},
		AfterStage: func(k int, res *emloop.Result[*dmv.Params]) error {
			if a.AfterStage == nil {
				return nil
			}
			return a.AfterStage(k, a.Stages[k-1], steps[k-1].Result(res))
		},
	}
	if a.Checkpoint != nil {
		loop.Checkpoint = func(c train.Checkpoint) error {
			err := a.Checkpoint(c)
			if err != nil && c.StageIters > 0 {
				// within a stage, as its iterations' errors
				return a.inStage(c.Stage-1, err)
			}
			return err
		}
	}
	if r := a.Resume; r != nil {
		loop.Resume = &train.Checkpoint{Stage: r.Stage, StageIters: r.StageIters, Before: r.Before, Prev: r.Prev, Model: r.Model}
	}
	out, err := loop.Run(start)
	if err != nil {
		return nil, err
	}
	return steps[len(steps)-1].Result(out), nil
}

// inStage says which stage (k from 0) err happened in.
func (a *Annealer) inStage(k int, err error) error {
	return fmt.Errorf("stage %d (%s %s): %w", k+1, a.Anneals.Name(), a.Anneals.Format(a.Value(a.Stages[k])), err)
}

// tempered is DA's objective at β, (1/β)·Σ log Σ_y p(x, y)^β (with a skew
// the sum is over p^β·λ₀^(1−β)): the quantity EM with the tempered
// posterior climbs, which tends to the log-likelihood as β → 1.
func tempered(beta float64) func(float64) float64 {
	if beta == 1 {
		return nil
	}
	return func(logZ float64) float64 { return logZ / beta }
}

// Value is the annealed parameter's value in stage r.
func (a *Annealer) Value(r dmv.Reweighting) float64 {
	switch a.Anneals {
	case Delta:
		return r.Delta
	case SegBeta:
		return r.SegBeta
	}
	return r.Beta
}

func (a *Annealer) label(it *format.Iteration, r dmv.Reweighting) {
	v := a.Value(r)
	switch a.Anneals {
	case Delta:
		it.Delta = &v
	case SegBeta:
		it.SegBeta = &v
	default:
		it.Beta = &v
	}
}

// Format writes a value of p as file names and messages show it: β
// plainly (0.001), δ and the segmentation weight with their sign (-0.600,
// +0.100), so that "delta-0.600" reads as δ = −0.6.
func (p Parameter) Format(v float64) string {
	if p == Beta {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprintf("%+.3f", v)
}

// BelowOne is a DA schedule without its last stage, β = 1: it ends at
// the last β₀γ^k < 1. A schedule of β = 1 alone has nothing left.
func BelowOne(betas []float64) ([]float64, error) {
	if len(betas) < 2 || betas[len(betas)-1] != 1 {
		return nil, errors.New("a schedule that starts at β₀ = 1 has no stage below 1")
	}
	return betas[:len(betas)-1], nil
}
