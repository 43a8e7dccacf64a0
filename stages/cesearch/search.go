// Package cesearch is contrastive estimation's optimiser — gonum's L-BFGS
// and its line searches — driven one evaluation of the objective at a
// time, so that the search can stop between any two evaluations, be saved,
// and go on later in another process: ce-step's state file and train-ce's
// run directory hold such a state.
//
// gonum keeps L-BFGS's memory (its curvature pairs) and the line search's
// position in unexported fields, so the state holds what rebuilds them
// exactly: the last accepted points (x, objective, gradient), at most
// Memory+1 of them, from which gonum's own LBFGS makes its pairs again
// (InitDirection at the oldest, NextDirection at each later one: the same
// pairs, visited in the same order, so the same direction to the bit), and
// the values and derivatives of the points the line search under way has
// tried, which a fresh line searcher is given again. The driver is this
// package's: it follows gonum's optimize.Minimize with one task (the
// evaluation and iteration limits, the start's checks, the gradient
// threshold, the converger) and its LinesearchMethod, and
// TestSameAsMinimize checks that it asks for the same points, bit for bit,
// and ends with the same status as Minimize with LBFGS does.
//
// The objective is maximised: evaluations are given as the objective and
// its gradient, and negated for gonum, which minimises.
//
// What the three families' trainings (the DMV's, the HMM's, Model U's)
// share around the search is here too: their state files' first and last
// fields and the checks of them (Header, Progress), ce-step's call (Step)
// and what it reports.
package cesearch

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// Memory is the number of curvature pairs L-BFGS keeps (gonum's default).
const Memory = 15

// gradStop is gonum's default threshold on the gradient's largest entry
// at an accepted point (LBFGS.GradStopThreshold 0).
const gradStop = 1e-12

// Linesearch names a line search.
type Linesearch string

const (
	// Guarded is Moré–Thuente's, stepping back tenfold from points where
	// the objective has no value (train-ce's).
	Guarded Linesearch = "more-thuente-guarded"
	// Bisection is gonum's default for L-BFGS (train-hmm --estimator ce's).
	Bisection Linesearch = "bisection"
)

// Rule names a stopping rule on the change of the objective between two
// accepted points.
type Rule string

const (
	// RelativeChange stops when |f − f′|/|f′| < Tol, 0 when f = f′ (train-ce's).
	RelativeChange Rule = "relative-change"
	// WithinTol stops when |f − f′| ≤ Tol·|f′| (train-hmm --estimator ce's).
	WithinTol Rule = "within-tol"
)

// Options configure a search.
type Options struct {
	Linesearch Linesearch
	Rule       Rule
	Tol        float64
	MaxIter    int // accepted iterations after the start
	MaxEvals   int // evaluations of the objective (gonum's count: FuncEvaluations)
	// KeepTies lets a later point as good as the best replace it (train-ce);
	// otherwise only a better one does (train-hmm).
	KeepTies bool
}

// Check says whether the options are a search's.
func (o Options) Check() error {
	switch {
	case o.Linesearch != Guarded && o.Linesearch != Bisection:
		return fmt.Errorf("line search %q (want %q or %q)", o.Linesearch, Guarded, Bisection)
	case o.Rule != RelativeChange && o.Rule != WithinTol:
		return fmt.Errorf("stopping rule %q (want %q or %q)", o.Rule, RelativeChange, WithinTol)
	case !(o.Tol >= 0) || math.IsInf(o.Tol, 1):
		return fmt.Errorf("tolerance %v", o.Tol)
	case o.MaxIter < 1 || o.MaxEvals < 1:
		return fmt.Errorf("at most %d iterations and %d evaluations", o.MaxIter, o.MaxEvals)
	}
	return nil
}

func (o Options) linesearcher() optimize.Linesearcher {
	if o.Linesearch == Bisection {
		return &optimize.Bisection{}
	}
	return &guarded{inner: &optimize.MoreThuente{}}
}

// Eval is one evaluation: the objective (−Inf where it has no value) and
// its gradient.
type Eval struct {
	Objective float64
	Gradient  []float64
}

// Point is an accepted point of the search and its evaluation.
type Point struct {
	X []float64
	Eval
}

// Iteration is an accepted point as an observer sees it: the start is
// iteration 0. X must not be kept.
type Iteration struct {
	Index     int
	Objective float64
	Prev      float64 // the last iteration's objective (NaN at the start)
	X         []float64
}

// Search is one run of L-BFGS. Pending is the point whose evaluation it
// waits for; Give hands it over and runs the search on until it needs
// another, or ends.
//
// The line search is driven as gonum's LinesearchMethod drives it, with
// one difference that changes no number: a point the line search tried
// and did not accept is kept as its objective and its derivative along
// the direction, all the line searcher ever reads of it, so that a saved
// state holds two numbers per trial rather than a gradient.
type Search struct {
	opts     Options
	dir      *seeded
	searcher optimize.Linesearcher
	loc      *optimize.Location // the point under evaluation (X), and what is known there
	op       optimize.Operation // what the line searcher asked for at loc.X

	start     []float64
	started   bool      // the start is evaluated and accepted
	x, d      []float64 // the line search's start and direction
	lastStep  float64
	known     optimize.Operation // what is known at loc.X (gonum's ls.eval)
	nextMajor bool               // accept loc.X once what is missing there is filled in

	lastX     []float64 // the point evaluated last, and its evaluation
	last      Eval      // (no gradient when given again on Restore)
	lastDeriv float64   // gonum's projected gradient there: the derivative of −objective along d
	haveLast  bool
	window    []Point // the accepted points L-BFGS's memory is made of, oldest first
	trials    []Trial // the evaluations of the line search under way
	replay    bool    // trials given again on Restore: counted and checked already
	major     int     // accepted points (gonum's major iterations, the start's included)
	funcEvals int     // gonum's count of function evaluations
	evals     int     // points evaluated
	best      []float64
	bestObj   float64
	done      bool
	status    optimize.Status
	err       error
}

// Trial is a point the line search under way has tried: its objective
// and its derivative along the search direction, in gonum's sign (of
// −objective, which gonum minimises).
type Trial struct {
	Objective, Derivative float64
}

// New starts a search from x0, whose evaluation is the first it needs.
func New(opts Options, x0 []float64) (*Search, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	if len(x0) == 0 {
		return nil, errors.New("a search over no weights")
	}
	s := &Search{opts: opts, start: slices.Clone(x0), best: slices.Clone(x0), bestObj: math.Inf(-1)}
	s.loc = &optimize.Location{X: slices.Clone(x0), Gradient: make([]float64, len(x0))}
	s.op = optimize.FuncEvaluation | optimize.GradEvaluation
	s.dir = &seeded{l: &optimize.LBFGS{Store: Memory}}
	s.searcher = opts.linesearcher()
	s.x, s.d = make([]float64, len(x0)), make([]float64, len(x0))
	return s, nil
}

// Options are the search's options.
func (s *Search) Options() Options { return s.opts }

// Done says whether the search has ended.
func (s *Search) Done() bool { return s.done }

// Pending is the point whose evaluation the search needs next (nil once
// it has ended). The caller must not change it.
func (s *Search) Pending() []float64 {
	if s.done {
		return nil
	}
	return s.loc.X
}

// Evals is the number of points evaluated (each once).
func (s *Search) Evals() int { return s.evals }

// Iterations is the number of accepted iterations after the start.
func (s *Search) Iterations() int { return max(0, s.major-1) }

// Best is the best accepted point and its objective (the start before any
// is accepted).
func (s *Search) Best() ([]float64, float64) { return s.best, s.bestObj }

// Last is the last accepted point and its objective (nil before the
// start is accepted).
func (s *Search) Last() ([]float64, float64) {
	if len(s.window) == 0 {
		return nil, math.NaN()
	}
	p := s.window[len(s.window)-1]
	return p.X, p.Objective
}

// Give hands the search the evaluation of Pending and runs it until it
// needs the evaluation of another point or ends. observe (nil: none)
// sees every accepted point, the start first; an error it returns ends
// the search with that error.
func (s *Search) Give(e Eval, observe func(Iteration) error) error {
	if s.done {
		return errors.New("the search has ended")
	}
	if len(e.Gradient) != len(s.loc.X) {
		return fmt.Errorf("a gradient of %d weights for a search over %d", len(e.Gradient), len(s.loc.X))
	}
	s.lastX = append(s.lastX[:0], s.loc.X...)
	s.last = Eval{Objective: e.Objective, Gradient: slices.Clone(e.Gradient)}
	s.haveLast = true
	s.evals++
	if s.started {
		neg := make([]float64, len(e.Gradient))
		for i, g := range e.Gradient {
			neg[i] = -g
		}
		s.lastDeriv = floats.Dot(neg, s.d)
		s.trials = append(s.trials, Trial{Objective: e.Objective, Derivative: s.lastDeriv})
	}
	return s.run(observe)
}

// giveTrial is Give of a saved trial, on Restore.
func (s *Search) giveTrial(t Trial) error {
	s.lastX = append(s.lastX[:0], s.loc.X...)
	s.last, s.lastDeriv, s.haveLast = Eval{Objective: t.Objective}, t.Derivative, true
	s.trials = append(s.trials, t)
	return s.run(nil)
}

// run does what the line searcher asked for until it asks for the
// evaluation of a point other than the last evaluated, or the search
// ends. The order of its checks is Minimize's and LinesearchMethod's.
func (s *Search) run(observe func(Iteration) error) error {
	for {
		if !s.haveLast || !floats.Equal(s.loc.X, s.lastX) {
			return nil // Pending
		}
		s.known |= s.op
		if s.op&optimize.FuncEvaluation != 0 {
			s.loc.F = -s.last.Objective
			if !s.replay {
				s.funcEvals++
			}
		}
		if s.op&optimize.GradEvaluation != 0 && s.last.Gradient != nil {
			for i, g := range s.last.Gradient {
				s.loc.Gradient[i] = -g
			}
		}
		if !s.replay && s.funcEvals >= s.opts.MaxEvals {
			return s.end(optimize.FunctionEvaluationLimit, nil)
		}
		if !s.started {
			return s.begin(observe)
		}
		if s.nextMajor {
			s.nextMajor = false
			if err := s.acceptAndGoOn(observe); err != nil || s.done {
				return err
			}
			continue
		}
		f, g := math.NaN(), math.NaN()
		if s.known&optimize.FuncEvaluation != 0 {
			f = s.loc.F
		}
		if s.known&optimize.GradEvaluation != 0 {
			g = s.lastDeriv
		}
		op, step, err := s.searcher.Iterate(f, g)
		if err != nil {
			return s.end(optimize.Failure, err)
		}
		switch op {
		case optimize.MajorIteration:
			missing := optimize.FuncEvaluation | optimize.GradEvaluation
			missing &^= s.known
			if missing == 0 {
				if err := s.acceptAndGoOn(observe); err != nil || s.done {
					return err
				}
				continue
			}
			s.nextMajor, s.op = true, missing
		case optimize.FuncEvaluation, optimize.GradEvaluation, optimize.FuncEvaluation | optimize.GradEvaluation:
			if step != s.lastStep {
				if !s.moveTo(step) {
					return s.end(optimize.Failure, optimize.ErrNoProgress)
				}
			}
			s.op = op
		default:
			return fmt.Errorf("the line search asked for operation %v", op)
		}
	}
}

// moveTo sets the point under evaluation to x + step·d; false when that
// is x itself (the step too short to move it).
func (s *Search) moveTo(step float64) bool {
	floats.AddScaledTo(s.loc.X, s.x, step, s.d)
	if floats.Equal(s.x, s.loc.X) {
		return false
	}
	s.lastStep, s.known = step, optimize.NoOperation
	return true
}

// begin checks the start as gonum does, accepts it and starts the first
// line search.
func (s *Search) begin(observe func(Iteration) error) error {
	if math.IsInf(s.loc.F, 1) || math.IsNaN(s.loc.F) {
		return s.end(optimize.Failure, optimize.ErrFunc(s.loc.F))
	}
	for i, g := range s.loc.Gradient {
		if math.IsInf(g, 0) || math.IsNaN(g) {
			return s.end(optimize.Failure, optimize.ErrGrad{Grad: g, Index: i})
		}
	}
	s.started = true
	if status, err := s.accept(observe); status != optimize.NotTerminated || err != nil {
		return s.end(status, err)
	}
	s.lineSearch(s.dir.InitDirection(s.loc, s.d))
	if s.done {
		return nil
	}
	return s.run(observe)
}

// major_ accepts loc as gonum's driver and LBFGS do, and starts the next
// line search from it.
func (s *Search) acceptAndGoOn(observe func(Iteration) error) error {
	if s.replay {
		return errors.New("the line search it holds had ended")
	}
	if status, err := s.accept(observe); status != optimize.NotTerminated || err != nil {
		return s.end(status, err)
	}
	if norm := floats.Norm(s.loc.Gradient, math.Inf(1)); norm < gradStop {
		return s.end(optimize.GradientThreshold, nil)
	}
	s.lineSearch(s.dir.NextDirection(s.loc, s.d))
	return nil
}

// lineSearch starts a line search from loc along d with a first step.
func (s *Search) lineSearch(step float64) {
	copy(s.x, s.loc.X)
	g := floats.Dot(s.loc.Gradient, s.d)
	if g >= 0 {
		s.end(optimize.Failure, optimize.ErrNonDescentDirection)
		return
	}
	s.op = s.searcher.Init(s.loc.F, g, step)
	if s.op&^(optimize.FuncEvaluation|optimize.GradEvaluation) != 0 || s.op == 0 {
		s.end(optimize.Failure, fmt.Errorf("the line search asked for operation %v", s.op))
		return
	}
	if !s.moveTo(step) {
		s.end(optimize.Failure, optimize.ErrNoProgress)
	}
}

// accept is Minimize's major iteration: the converger (the stopping rule,
// the best point, the observer), then the iteration limit.
func (s *Search) accept(observe func(Iteration) error) (optimize.Status, error) {
	x := slices.Clone(s.loc.X)
	obj := -s.loc.F
	prev := math.NaN()
	if len(s.window) > 0 {
		prev = s.window[len(s.window)-1].Objective
	}
	s.window = append(s.window, Point{X: x, Eval: Eval{Objective: obj, Gradient: slices.Clone(s.last.Gradient)}})
	if len(s.window) > Memory+1 {
		s.window = slices.Delete(s.window, 0, 1)
	}
	s.trials = s.trials[:0]
	s.major++
	if math.IsInf(s.loc.F, -1) {
		return optimize.FunctionNegativeInfinity, nil
	}
	if obj > s.bestObj || s.opts.KeepTies && obj >= s.bestObj {
		s.best, s.bestObj = x, obj
	}
	if observe != nil {
		if err := observe(Iteration{Index: s.major - 1, Objective: obj, Prev: prev, X: x}); err != nil {
			return optimize.Failure, observerError{err}
		}
	}
	if s.major > 1 && s.converged(prev, obj) {
		return optimize.FunctionConvergence, nil
	}
	if s.major >= s.opts.MaxIter+1 {
		return optimize.IterationLimit, nil
	}
	return optimize.NotTerminated, nil
}

func (s *Search) converged(prev, obj float64) bool {
	if s.opts.Rule == WithinTol {
		return math.Abs(obj-prev) <= s.opts.Tol*math.Abs(prev)
	}
	change := 0.0
	if prev != obj {
		change = math.Abs(obj-prev) / math.Abs(prev)
	}
	return change < s.opts.Tol
}

func (s *Search) end(status optimize.Status, err error) error {
	s.done, s.status, s.err = true, status, err
	var obs observerError
	if errors.As(err, &obs) {
		return obs.err
	}
	return nil
}

// observerError marks an observer's error, which ends the search and is
// the caller's.
type observerError struct{ err error }

func (e observerError) Error() string { return e.err.Error() }

// Outcome says how an ended search ended, as train-ce and train-hmm
// report it: converged (the stopping rule, the gradient threshold, or a
// fixed point where L-BFGS's direction does not descend — the gradient
// vanishes), or stopped, and why. An error of gonum's other than a line
// search that found no better point is an error.
func (s *Search) Outcome() (converged bool, status string, err error) {
	if !s.done {
		return false, "", errors.New("the search has not ended")
	}
	fixed := errors.Is(s.err, optimize.ErrNonDescentDirection)
	if s.err != nil && !fixed && !errors.Is(s.err, optimize.ErrLinesearcherFailure) && !errors.Is(s.err, optimize.ErrNoProgress) {
		return false, "", fmt.Errorf("L-BFGS: %w", s.err)
	}
	status = s.status.String()
	converged = s.status == optimize.FunctionConvergence || s.status == optimize.GradientThreshold || fixed
	switch {
	case fixed:
		status = "the gradient vanishes: a fixed point"
	case s.err != nil:
		status = s.err.Error()
	}
	return converged, status, nil
}

// seeded is L-BFGS's direction, rebuilt on a restored search: its first
// InitDirection makes gonum's LBFGS read the saved points again, oldest
// first, so that its curvature pairs are those of the saved search.
type seeded struct {
	l    *optimize.LBFGS
	seed []Point
}

func (d *seeded) InitDirection(loc *optimize.Location, dir []float64) float64 {
	if len(d.seed) < 2 {
		d.seed = nil
		return d.l.InitDirection(loc, dir)
	}
	at := func(p Point) *optimize.Location {
		g := make([]float64, len(p.Gradient))
		for i, v := range p.Gradient {
			g[i] = -v
		}
		return &optimize.Location{X: p.X, F: -p.Objective, Gradient: g}
	}
	d.l.InitDirection(at(d.seed[0]), dir)
	for _, p := range d.seed[1 : len(d.seed)-1] {
		d.l.NextDirection(at(p), dir)
	}
	d.seed = nil
	return d.l.NextDirection(loc, dir)
}

func (d *seeded) NextDirection(loc *optimize.Location, dir []float64) float64 {
	return d.l.NextDirection(loc, dir)
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
