// Package lbfgs is CE's loop over L-BFGS (package cesearch: gonum's
// L-BFGS driven one evaluation at a time) on the contrastive objective of
// package ce, at a fixed Model L δ or along a schedule of δ: in process
// (train-ce, whose Problem evaluates), and a step at a time (ce-step, which
// is handed each evaluation as two count files and keeps the training in
// a State between calls). It lives apart from ce so that estep, which
// reads lattices with ce, does not link the optimiser.
package lbfgs

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ce"
	"github.com/grind-nlp/grind/stages/cesearch"
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

// Settings are what a training optimises and how far: the prior, the
// schedule of δ, and the stopping rules of every stage.
type Settings struct {
	Sigma2 float64 // prior variance; 0 or +Inf: none
	// Delta is Model L's δ; with DeltaStep ≠ 0 it is the first of a
	// schedule δ, δ+Δ, … up to DeltaFinal, each stage optimised to
	// convergence from the last one's weights.
	Delta, DeltaFinal, DeltaStep float64
	MaxIter                      int     // L-BFGS iterations per stage (0: 100)
	Tol                          float64 // relative change of the objective (0: 1e-5)
}

// Deltas is the schedule of δ the training runs: one value, or δ to
// DeltaFinal by DeltaStep (the last stage at DeltaFinal exactly), as
// train-sa's schedules and capped as they are (schedule.Linear).
func (s Settings) Deltas() ([]float64, error) {
	if s.DeltaStep == 0 {
		return []float64{s.Delta}, nil
	}
	ds, err := schedule.Linear(s.Delta, s.DeltaStep, s.DeltaFinal)
	if err != nil {
		return nil, fmt.Errorf("δ: %w", err)
	}
	return ds, nil
}

// search is the options of every stage's L-BFGS.
func (s Settings) search() cesearch.Options {
	maxIter, tol := s.MaxIter, s.Tol
	if maxIter <= 0 {
		maxIter = DefaultMaxIter
	}
	if tol <= 0 {
		tol = DefaultTol
	}
	return cesearch.Options{Linesearch: cesearch.Guarded, Rule: cesearch.RelativeChange, Tol: tol,
		MaxIter: maxIter, MaxEvals: MaxEvalsPerIter * (maxIter + 1), KeepTies: true}
}

// Trainer configures one run of L-BFGS on a Problem, in process.
type Trainer struct {
	Problem *ce.Problem
	Settings
	Workers int
	// Observe sees the starting point and every iteration of L-BFGS, with
	// its weights; an error stops the run.
	Observe func(it format.Iteration, w *dmv.Params) error
	Start   time.Time // origin of Seconds in the log (zero: now)
	// Resume, when not nil, continues a run from its checkpoint: from
	// State, the training saved with it, where it was (in the middle of a
	// stage, of a line search); without one (a run directory of an older
	// grind), at the start of the checkpoint's stage.
	Resume *train.Checkpoint
	State  *State
	// Checkpoint, when not nil, hears the state after every iteration and
	// at every stage boundary: the checkpoint, and the training.
	Checkpoint func(c train.Checkpoint, st *State) error
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
	c := t.Problem.Corpus
	var tr *Training
	switch r := t.Resume; {
	case r != nil && t.State != nil:
		if tr, err = t.State.Training(c.Tags.Names(), t.Settings); err != nil {
			return nil, fmt.Errorf("%s: not the state of this run: %w", cesearch.StateFile, err)
		}
		if tr.Iter > r.Done() {
			return nil, fmt.Errorf("the training state is at iteration %d, the checkpoint at %d", tr.Iter, r.Done())
		}
		tr.Logged = r.Done()
	case r != nil && r.StageIters != 0:
		return nil, fmt.Errorf("the checkpoint is at iteration %d of stage %d, and the training's state (%s) is missing", r.StageIters, r.Stage, cesearch.StateFile)
	case r != nil:
		if r.Stage > len(deltas) {
			return nil, fmt.Errorf("the checkpoint is at stage %d of a schedule of %d", r.Stage, len(deltas))
		}
		if tr, err = NewTraining(c.Tags.Names(), c.Tokens, r.Model, t.Settings); err != nil {
			return nil, err
		}
		tr.Iter, tr.Logged = r.Before, r.Done()
		if err := tr.startStage(r.Stage-1, ce.Vector(r.Model, nil)); err != nil {
			return nil, err
		}
	default:
		if tr, err = NewTraining(c.Tags.Names(), c.Tokens, start, t.Settings); err != nil {
			return nil, err
		}
	}
	tr.Origin = origin
	tr.Observe = t.Observe
	w := dmv.NewParams(c.Tags.Len())
	for !tr.Done {
		x, delta := tr.Pending()
		ce.FromVector(x, w)
		v := t.Problem.Evaluate(w, ce.Settings{Sigma2: t.Sigma2, Delta: delta, Workers: t.Workers})
		before := tr.Iter
		err := tr.Give(v)
		var nv *NoValueError
		if errors.As(err, &nv) {
			return nil, t.noValue(w, delta)
		}
		if err != nil {
			return nil, err
		}
		if t.Checkpoint != nil && tr.Iter > before && !tr.Done {
			if err := t.Checkpoint(tr.Checkpoint(), tr.State()); err != nil {
				return nil, err
			}
		}
	}
	return tr.Result(), nil
}

// noValue says why the objective has no value at a stage's start w: the
// sentences the charts cannot hold, counted, and the first named.
func (t *Trainer) noValue(w *dmv.Params, delta float64) error {
	p := t.Problem
	at := ""
	if delta != 0 {
		at = fmt.Sprintf(" at δ = %g", delta)
	}
	n, first := p.Lost(w, ce.Settings{Sigma2: t.Sigma2, Delta: delta, Workers: t.Workers})
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

// Training is CE's L-BFGS over its stages of δ, driven one evaluation at
// a time: Pending is the weights (and δ) to evaluate, Give takes the
// evaluation. Between two evaluations it can be saved (State) and
// restored (State.Training).
type Training struct {
	Tags     []string // the weights' tags, in their order
	Tokens   int      // of the corpus, for the log's cross-entropy
	Settings Settings
	Deltas   []float64
	Stage    int // the stage under way, from 0
	// Iter counts the iterations observed (the log's lines), over all
	// stages; StageStart is Iter when the stage began. Iterations up to
	// Logged were observed before the training was saved and are not
	// observed again.
	Iter, StageStart, Logged int
	Evals, Iterations        int // of the stages ended
	Search                   *cesearch.Search
	Done                     bool
	// Weights, Objective, Converged and Status are the last stage's
	// outcome, once Done.
	Weights   []float64
	Objective float64
	Converged bool
	Status    string
	Observe   func(it format.Iteration, w *dmv.Params) error
	Origin    time.Time // of Seconds in the log
}

// NoValueError is Give's error for a stage whose start has no value (the
// charts cannot hold Z there).
type NoValueError struct {
	Stage int
	Delta float64
}

func (e *NoValueError) Error() string {
	at := ""
	if e.Delta != 0 {
		at = fmt.Sprintf(" at δ = %g", e.Delta)
	}
	return fmt.Sprintf("the objective has no value%s at the start of stage %d (weights too extreme for the charts)", at, e.Stage+1)
}

// NewTraining starts a training of weights over tags from start.
func NewTraining(tags []string, tokens int, start *dmv.Params, s Settings) (*Training, error) {
	deltas, err := s.Deltas()
	if err != nil {
		return nil, err
	}
	if err := dmv.RefuseValence(start.V, "contrastive estimation"); err != nil {
		return nil, err
	}
	if start.T != len(tags) {
		return nil, fmt.Errorf("weights over %d tags, not %d", start.T, len(tags))
	}
	tr := &Training{Tags: tags, Tokens: tokens, Settings: s, Deltas: deltas}
	return tr, tr.startStage(0, ce.Vector(start, nil))
}

func (tr *Training) startStage(stage int, x []float64) error {
	s, err := cesearch.New(tr.Settings.search(), x)
	if err != nil {
		return err
	}
	tr.Stage, tr.StageStart, tr.Search = stage, tr.Iter, s
	return nil
}

// Pending is the weights to evaluate next and the δ to evaluate them at.
func (tr *Training) Pending() ([]float64, float64) {
	return tr.Search.Pending(), tr.Deltas[tr.Stage]
}

// Give hands over the evaluation of Pending and runs the training until
// it needs another, or ends. Weights beyond ±dmv.MaxWeight, where no model
// can be written or read, have no value, and are not asked for.
func (tr *Training) Give(v ce.Value) error {
	e := cesearch.Eval{Objective: v.Objective, Gradient: ce.Vector(v.Gradient, nil)}
	for {
		if tr.Search.Iterations() == 0 && tr.Search.Evals() == 0 && (math.IsInf(e.Objective, -1) || math.IsNaN(e.Objective)) {
			return &NoValueError{Stage: tr.Stage, Delta: tr.Deltas[tr.Stage]}
		}
		if err := tr.Search.Give(e, tr.observe); err != nil {
			return err
		}
		if tr.Search.Done() {
			if err := tr.endStage(); err != nil || tr.Done {
				return err
			}
		}
		x, _ := tr.Pending()
		if !slices.ContainsFunc(x, func(w float64) bool { return math.Abs(w) > dmv.MaxWeight }) {
			return nil
		}
		e = cesearch.Eval{Objective: math.Inf(-1), Gradient: make([]float64, len(x))}
	}
}

// endStage takes the stage's outcome and starts the next from its best
// weights, or ends the training.
func (tr *Training) endStage() error {
	converged, status, err := tr.Search.Outcome()
	if err != nil {
		return err
	}
	best, obj := tr.Search.Best()
	tr.Iterations += tr.Search.Iterations()
	tr.Evals += tr.Search.Evals()
	tr.Weights, tr.Objective, tr.Converged, tr.Status = best, obj, converged, status
	if tr.Stage+1 == len(tr.Deltas) {
		tr.Done = true
		return nil
	}
	return tr.startStage(tr.Stage+1, best)
}

// observe logs an accepted point as train-ce's log has it.
func (tr *Training) observe(it cesearch.Iteration) error {
	tr.Iter++
	if tr.Iter <= tr.Logged || tr.Observe == nil {
		return nil
	}
	rec := format.Iteration{
		Iter:      tr.Iter,
		Objective: format.Real(it.Objective),
		Seconds:   time.Since(tr.Origin).Seconds(),
	}
	if len(tr.Deltas) > 1 {
		rec.Stage = tr.Stage + 1
	}
	if d := tr.Deltas[tr.Stage]; d != 0 || rec.Stage > 0 {
		rec.Delta = &d
	}
	if it.Index > 0 {
		c := format.Real(train.RelativeChange(it.Prev, it.Objective))
		rec.Change = &c
	}
	w := dmv.NewParams(len(tr.Tags))
	ce.FromVector(it.X, w)
	return tr.Observe(rec, w)
}

// Checkpoint is the run directory's checkpoint of the training as it
// stands: at a stage's start, that stage and its start; else the stage,
// its iterations, and the last accepted weights.
func (tr *Training) Checkpoint() train.Checkpoint {
	w := dmv.NewParams(len(tr.Tags))
	if tr.Iter == tr.StageStart {
		ce.FromVector(tr.Search.Pending(), w)
		return train.Checkpoint{Stage: tr.Stage + 1, Before: tr.Iter, Model: w}
	}
	x, obj := tr.Search.Last()
	ce.FromVector(x, w)
	return train.Checkpoint{Stage: tr.Stage + 1, StageIters: tr.Iter - tr.StageStart, Before: tr.StageStart, Prev: obj, Model: w}
}

// Result is the training's outcome, once Done.
func (tr *Training) Result() *Result {
	w := dmv.NewParams(len(tr.Tags))
	ce.FromVector(tr.Weights, w)
	return &Result{Weights: w, Iterations: tr.Iterations, Evals: tr.Evals, Objective: tr.Objective, Converged: tr.Converged, Status: tr.Status}
}
