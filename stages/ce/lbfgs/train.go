// Package lbfgs is train-ce's loop: gonum's L-BFGS on the contrastive
// objective of package ce, at a fixed Model L δ or along a schedule of δ.
// It lives apart from ce so that only train-ce links the optimiser.
package lbfgs

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ce"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/schedule"
	"github.com/grind-nlp/grind/stages/train"
)

// Defaults of the stopping rules (Smith 2006).
const (
	DefaultMaxIter = 100
	DefaultTol     = 1e-5 // relative change of the objective
	// MaxEvalsPerIter bounds the objective evaluations of a stage at this
	// many per allowed iteration: Moré–Thuente takes a few per iteration,
	// the guard one per tenfold shortening of the step.
	MaxEvalsPerIter = 40
)

// Trainer configures one run of L-BFGS on a Problem, at one δ or along a
// schedule of δ (CE with Model L, annealed).
type Trainer struct {
	Problem *ce.Problem
	Sigma2  float64 // prior variance; 0 or +Inf: none
	// Delta is Model L's δ; with DeltaStep ≠ 0 it is the first of a
	// schedule δ, δ+Δ, … up to DeltaFinal, each stage optimised to
	// convergence from the last one's weights.
	Delta, DeltaFinal, DeltaStep float64
	MaxIter                      int     // L-BFGS iterations per stage (0: 100)
	Tol                          float64 // relative change of the objective (0: 1e-5)
	Workers                      int
	// Observe sees the starting point and every iteration of L-BFGS, with
	// its weights; an error stops the run.
	Observe func(it format.Iteration, w *dmv.Params) error
	Start   time.Time // origin of Seconds in the log (zero: now)
	// Resume, when not nil, continues a run at the start of its stage
	// Stage (from 1) with Before iterations logged and weights Model.
	// L-BFGS's own state (its curvature pairs, gonum's) is not saved, so
	// a run resumes at stage boundaries only: the stage a kill interrupted
	// runs again from its start, and being deterministic, to the same end.
	Resume *train.Checkpoint
	// Checkpoint, when not nil, hears the state at every stage boundary.
	Checkpoint func(c train.Checkpoint) error
}

// Result is the outcome of a run.
type Result struct {
	Weights    *dmv.Params
	Iterations int // L-BFGS iterations, over all stages
	Evals      int // objective evaluations
	Objective  float64
	Converged  bool   // the last stage met the tolerance
	Status     string // how the last stage ended
}

// Deltas is the schedule of δ the trainer runs: one value, or δ to
// DeltaFinal by DeltaStep (the last stage at DeltaFinal exactly), as
// train-sa's schedules and capped as they are (schedule.Linear).
func (t *Trainer) Deltas() ([]float64, error) {
	if t.DeltaStep == 0 {
		return []float64{t.Delta}, nil
	}
	ds, err := schedule.Linear(t.Delta, t.DeltaStep, t.DeltaFinal)
	if err != nil {
		return nil, fmt.Errorf("δ: %w", err)
	}
	return ds, nil
}

// Run optimises from weights start.
func (t *Trainer) Run(start *dmv.Params) (*Result, error) {
	deltas, err := t.Deltas()
	if err != nil {
		return nil, err
	}
	origin := t.Start
	if origin.IsZero() {
		origin = time.Now()
	}
	res := &Result{Weights: start}
	iter, first := 0, 0
	if r := t.Resume; r != nil {
		if r.Stage > len(deltas) || r.StageIters != 0 {
			return nil, fmt.Errorf("the checkpoint is at stage %d (iteration %d) of a schedule of %d", r.Stage, r.StageIters, len(deltas))
		}
		res.Weights, iter, first = r.Model, r.Before, r.Stage-1
	}
	for stage, delta := range deltas {
		if stage < first {
			continue
		}
		st := &stageRun{t: t, delta: delta, origin: origin, firstIter: iter}
		if len(deltas) > 1 {
			st.stage = stage + 1
		}
		if err := st.run(res.Weights); err != nil {
			return nil, err
		}
		iter = st.iter
		res.Weights, res.Objective, res.Converged, res.Status = st.best, st.bestObj, st.converged, st.status
		res.Iterations += st.iter - st.firstIter - 1
		res.Evals += st.evals
		if t.Checkpoint != nil && stage+1 < len(deltas) {
			if err := t.Checkpoint(train.Checkpoint{Stage: stage + 2, Before: iter, Model: res.Weights}); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// stageRun is L-BFGS at one δ.
type stageRun struct {
	t                *Trainer
	delta            float64
	stage            int
	origin           time.Time
	firstIter, iter  int
	evals            int
	dims             int
	w                *dmv.Params // scratch: the point being evaluated
	cachedX          []float64   // the point of the cached evaluation
	cached           ce.Value
	prev, tol        float64 // objective of the last iteration; stopping threshold
	best             *dmv.Params
	bestObj          float64
	converged        bool
	status           string
	observeErr       error
	haveCache, first bool
}

func (s *stageRun) settings() ce.Settings {
	return ce.Settings{Sigma2: s.t.Sigma2, Delta: s.delta, Workers: s.t.Workers}
}

// eval evaluates at x, once per point: gonum asks for the value and the
// gradient separately.
func (s *stageRun) eval(x []float64) ce.Value {
	if s.haveCache && slices.Equal(x, s.cachedX) {
		return s.cached
	}
	ce.FromVector(x, s.w)
	s.cached = s.t.Problem.Evaluate(s.w, s.settings())
	s.cachedX = append(s.cachedX[:0], x...)
	s.haveCache = true
	s.evals++
	return s.cached
}

func (s *stageRun) run(start *dmv.Params) error {
	s.w = start.Clone()
	x := ce.Vector(start, nil)
	s.dims = len(x)
	s.best, s.bestObj, s.first = start.Clone(), math.Inf(-1), true
	s.iter = s.firstIter
	problem := optimize.Problem{
		// gonum minimises: f = −objective.
		Func: func(x []float64) float64 {
			v := s.eval(x)
			if math.IsNaN(v.Objective) {
				return math.Inf(1)
			}
			return -v.Objective
		},
		Grad: func(grad, x []float64) {
			v := s.eval(x)
			ce.Vector(v.Gradient, grad)
			for i := range grad {
				grad[i] = -grad[i]
			}
		},
	}
	maxIter, tol := s.t.MaxIter, s.t.Tol
	if maxIter <= 0 {
		maxIter = DefaultMaxIter
	}
	if tol <= 0 {
		tol = DefaultTol
	}
	s.tol = tol
	if v := s.eval(x); math.IsInf(v.Objective, -1) || math.IsNaN(v.Objective) {
		return s.noValue(start)
	}
	result, err := optimize.Minimize(problem, x, stageSettings(maxIter, s), newMethod())
	if s.observeErr != nil {
		return s.observeErr
	}
	// L-BFGS's direction −H·g, H positive definite, fails to descend only
	// where the gradient vanishes: a fixed point (a corpus whose objective
	// is constant, such as one-word sentences under del1ortrans1, is one
	// everywhere), where it has converged.
	fixed := errors.Is(err, optimize.ErrNonDescentDirection)
	if err != nil && !fixed && !errors.Is(err, optimize.ErrLinesearcherFailure) && !errors.Is(err, optimize.ErrNoProgress) {
		return fmt.Errorf("L-BFGS: %w", err)
	}
	s.status = result.Status.String()
	s.converged = result.Status == optimize.FunctionConvergence || result.Status == optimize.GradientThreshold || fixed
	switch {
	case fixed:
		s.status = "the gradient vanishes: a fixed point"
	case err != nil:
		// The line search found no better point: the last accepted one
		// (already kept) is as far as L-BFGS gets.
		s.status = err.Error()
	}
	return nil
}

// noValue says why the objective has no value at the stage's start:
// the sentences the charts cannot hold, counted, and the first named.
func (s *stageRun) noValue(start *dmv.Params) error {
	p := s.t.Problem
	at := ""
	if s.delta != 0 {
		at = fmt.Sprintf(" at δ = %g", s.delta)
	}
	n, first := p.Lost(start, s.settings())
	if n == 0 {
		return fmt.Errorf("the objective has no value%s at the start (weights too extreme for the charts)", at)
	}
	id := ""
	if x := p.Corpus.ID(first); x != "" {
		id = " (" + x + ")"
	}
	return fmt.Errorf("the objective has no value%s at the start: the charts cannot hold Z for %d of %d sentences, the first sentence %d%s of %d words (a positive δ multiplies long edges by e^{δ·d}, beyond floating point); use a smaller δ or leave long sentences out (filterlen)",
		at, n, len(p.Sents), first+1, id, len(p.Sents[first]))
}

// stageSettings are gonum's settings for a stage of at most maxIter
// iterations. The start is gonum's first major iteration. The
// evaluations are bounded too, so that a line search that never settles
// (the guard shortening its step, Moré–Thuente bracketing forever) still
// ends with the iterations.
func stageSettings(maxIter int, conv optimize.Converger) *optimize.Settings {
	return &optimize.Settings{MajorIterations: maxIter + 1, FuncEvaluations: MaxEvalsPerIter * (maxIter + 1), Converger: conv}
}

// newMethod is L-BFGS with the guarded Moré–Thuente line search.
func newMethod() optimize.Method {
	return &optimize.LBFGS{Linesearcher: &guarded{inner: &optimize.MoreThuente{}}}
}

// Init starts gonum's convergence checks.
func (s *stageRun) Init(int) {}

// Converged sees the start and every accepted iteration of L-BFGS: it
// logs it, keeps the best weights, and stops when the objective changed
// by less than tol (relative) since the previous iteration.
func (s *stageRun) Converged(loc *optimize.Location) optimize.Status {
	obj := -loc.F
	s.iter++
	it := format.Iteration{
		Iter:      s.iter,
		Stage:     s.stage,
		Objective: format.Real(obj), // the contrastive objective: no cross-entropy
		Seconds:   time.Since(s.origin).Seconds(),
	}
	if s.delta != 0 || s.stage > 0 {
		d := s.delta
		it.Delta = &d
	}
	done := false
	if !s.first {
		change := train.RelativeChange(s.prev, obj)
		c := format.Real(change)
		it.Change, done = &c, change < s.tol
	}
	s.first, s.prev = false, obj
	w := dmv.NewParams(s.w.T)
	ce.FromVector(loc.X, w)
	if obj >= s.bestObj {
		s.best, s.bestObj = w, obj
	}
	if s.t.Observe != nil {
		if err := s.t.Observe(it, w); err != nil {
			s.observeErr = err
			return optimize.Failure
		}
	}
	if done {
		return optimize.FunctionConvergence
	}
	return optimize.NotTerminated
}

// guarded is a line search that steps back from points where the
// objective has no value (−Inf: the weights are too extreme for the
// charts), which a line search of its own would turn into NaN steps: it
// restarts the inner search from the same start with a step ten times
// shorter.
type guarded struct {
	inner  optimize.Linesearcher
	f0, g0 float64
	step   float64 // the step being evaluated
}

func (l *guarded) Init(f, g, step float64) optimize.Operation {
	l.f0, l.g0, l.step = f, g, step
	return l.inner.Init(f, g, step)
}

func (l *guarded) Iterate(f, g float64) (optimize.Operation, float64, error) {
	if math.IsInf(f, 1) || math.IsNaN(f) {
		l.step /= 10
		if l.step < 1e-20 {
			return optimize.NoOperation, l.step, optimize.ErrLinesearcherFailure
		}
		return l.inner.Init(l.f0, l.g0, l.step), l.step, nil
	}
	op, step, err := l.inner.Iterate(f, g)
	l.step = step
	return op, step, err
}
