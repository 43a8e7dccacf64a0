// Package train holds the training loops of the DMV: EM, MAP/EM and
// Viterbi EM here; the annealing schedules build on the same loop. A loop
// runs E-steps (package dmv) and M-steps in-process over a corpus read
// once; its result equals the same loop written in shell with estep and
// mstep, because both call the same functions in the same order.
package train

import (
	"fmt"
	"math"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/emloop"
	"github.com/grind-nlp/grind/stages/pr"
)

// Defaults of the stopping rules.
const (
	DefaultMaxIter = 100
	DefaultTol     = 1e-5 // relative change of the log-likelihood
	// DefaultHardTol is Spitkovsky et al.'s (2010) rule's threshold:
	// per-token cross-entropy changing by less than 2^-20 bits.
	DefaultHardTol = emloop.DefaultBitsTol
)

// EM configures one run of EM to convergence.
//
// Its loop is emloop's (the CCM's and the HMM's), one stage with the
// DMV's stopping rule for Viterbi EM (bits per token); the annealers of
// stages/anneal run its Steps as the stages of one emloop loop.
type EM struct {
	Corpus *dmv.Corpus
	// EStep chooses the E-step (Hard for Viterbi EM, Dist for a locality
	// bias) and the number of workers.
	EStep  dmv.EStepOptions
	Lambda float64 // add-λ in every M-step (0: maximum likelihood)
	// VBAlpha, when > 0, makes every M-step variational Bayes's with a
	// symmetric Dirichlet(VBAlpha) prior (dmv.VariationalBayes; Lambda
	// unused), and the objective the bound after it (dmv.VBBound).
	VBAlpha float64
	// Backoff is the child back-off weight of every M-step
	// (dmv.MStepBackoff; 0: none).
	Backoff float64
	// LearnedBackoff is the learned back-off's prior, for a model that
	// learns it (dmv.MStepSmoothed).
	LearnedBackoff dmv.LearnedBackoff
	// MaxIter bounds the iterations; Tol is the stopping threshold of
	// Stop's rule: the relative change of the log-likelihood, or the
	// change of per-token cross-entropy in bits (Spitkovsky et al.'s rule,
	// Hard's default). Zero values mean the defaults.
	MaxIter int
	Tol     float64
	Stop    emloop.Rule
	// Weights, when not nil, turns the model into the E-step's weight
	// table (annealing raises it to β); nil uses the model itself.
	Weights func(model *dmv.Params) *dmv.Params
	// Objective, when not nil, maps the E-step's Σ log Z to the objective
	// logged and tested for convergence (DA's tempered objective is
	// Σ log Z / β); nil takes Σ log Z itself.
	Objective func(logZ float64) float64
	// Observe, when not nil, sees every iteration and the model the
	// iteration's E-step ran with; an error stops the run.
	Observe func(it format.Iteration, model *dmv.Params) error
	// Start is the wall-clock origin of Seconds in the log (zero: now).
	Start time.Time
	// FirstIter numbers the first iteration (for logs across stages).
	FirstIter int
	// Resume, when not nil, continues a run after its StageIters
	// iterations, from its Model and Prev (its Stage and Before are the
	// annealers'); the rest of the run equals the uninterrupted one.
	Resume *Checkpoint
	// Checkpoint, when not nil, hears the state after every iteration the
	// loop goes on from (Stage 1, Before 0: the annealers fill them in).
	Checkpoint func(c Checkpoint) error
	// Projector, when not nil, makes every E-step posterior
	// regularization's projected one (stages/pr): the counts are those of
	// the projected posterior, the objective the PR objective.
	Projector *pr.Projector
}

// Result is the outcome of a run.
type Result struct {
	Model      *dmv.Params
	Counts     *dmv.Params // the last E-step's counts (for a final smoothing)
	Iterations int
	Objective  float64 // the last E-step's objective
	Converged  bool
	ZeroWeight int // sentences of weight 0 in the last E-step
	Unusable   int // sentences the last E-step could not evaluate (EStepResult.Unusable)
}

// Run trains from model start. Each iteration takes an E-step with the
// current model (its objective is that model's log-likelihood, or for
// Viterbi EM the log-probability of its best parses) and an M-step; the
// start may also be θ⁽⁰⁾ as a table of weights that is not a model
// (dmv.Start, zero's all ones), which the first E-step takes as it is. The
// run stops after the iteration whose objective changed by less than Tol,
// or after MaxIter iterations, and returns the model of the last M-step.
// The loop is emloop's, one stage of it.
func (em *EM) Run(start *dmv.Params) (*Result, error) {
	maxIter, tol := em.Limits()
	steps := em.NewSteps(dmv.NewEStepper(em.Corpus), em.Resume)
	loop := &emloop.Loop[*dmv.Params]{
		MaxIter: maxIter, Tol: tol, Converged: em.Converged(), Tokens: em.LikelihoodTokens(),
		FirstIter: em.FirstIter, Start: em.Start, Checkpoint: em.Checkpoint,
		Step: steps.Step,
		Observe: func(it format.Iteration, model *dmv.Params) error {
			if em.Projector != nil {
				it.DualSteps = &steps.dual.Steps
			}
			if em.Observe != nil {
				if err := em.Observe(it, model); err != nil {
					return err
				}
			}
			return steps.Stuck()
		},
	}
	if r := em.Resume; r != nil {
		// The annealers' stage and earlier iterations are theirs: to the
		// loop this is its one stage.
		loop.Resume = &Checkpoint{Stage: 1, StageIters: r.StageIters, Prev: r.Prev, Model: r.Model}
	}
	out, err := loop.Run(start)
	if err != nil {
		return nil, err
	}
	return steps.Result(out), nil
}

// LikelihoodTokens is the corpus size when em's objective is the
// log-likelihood of the corpus (emloop.Loop.Tokens: its cross-entropy is
// logged), else 0: not under posterior regularization, variational Bayes,
// a re-weighting or a tempered objective.
func (em *EM) LikelihoodTokens() int {
	if em.Projector != nil || em.VBAlpha > 0 || em.Weights != nil || em.Objective != nil {
		return 0
	}
	return em.Corpus.Tokens
}

// Limits are em's iteration bound and stopping threshold, the defaults
// filled in.
func (em *EM) Limits() (maxIter int, tol float64) {
	maxIter, tol = em.MaxIter, em.Tol
	if maxIter <= 0 {
		maxIter = DefaultMaxIter
	}
	if tol <= 0 {
		tol = DefaultTol
		if em.Rule() == emloop.Bits {
			tol = DefaultHardTol
		}
	}
	return maxIter, tol
}

// Rule is em's stopping rule: Stop, or when "" the change of per-token
// cross-entropy in bits for Viterbi EM and the relative change otherwise.
func (em *EM) Rule() emloop.Rule {
	switch {
	case em.Stop != "":
		return em.Stop
	case em.EStep.Hard:
		return emloop.Bits
	}
	return emloop.Relative
}

// Converged is em's stopping rule (emloop.Loop.Converged) at its Tol.
func (em *EM) Converged() func(prev, obj float64) bool {
	_, tol := em.Limits()
	return em.Rule().Converged(tol, em.Corpus.Tokens)
}

// Steps are the iterations of one stage of EM, for emloop: Run's one
// stage, or one stage of an annealer's schedule (a Steps per stage, all
// on one EStepper).
type Steps struct {
	em        *EM
	estep     *dmv.EStepper
	converged func(prev, obj float64) bool
	iter      int     // iterations of the stage so far
	prev      float64 // the last iteration's objective
	last      dmv.EStepResult
	dual      pr.Stats // the last projection's, under posterior regularization
	stuck     error    // every sentence of probability 0 twice in a row
}

// NewSteps runs em's E-steps on estep (over em's corpus); resume, when
// not nil, is the checkpoint of a run stopped after its StageIters
// iterations of this stage.
func (em *EM) NewSteps(estep *dmv.EStepper, resume *Checkpoint) *Steps {
	s := &Steps{em: em, estep: estep, converged: em.Converged(), prev: math.NaN()}
	if resume != nil {
		s.iter, s.prev = resume.StageIters, resume.Prev
	}
	return s
}

// Step is one iteration (emloop.Loop.Step; β is em's Weights' business):
// the E-step on the model's weight table and the M-step on its counts.
// Its objective is the E-step's (Σ log Z, through em.Objective), or under
// VB the variational bound after the M-step.
func (s *Steps) Step(model *dmv.Params, _ float64) (*dmv.Params, float64, error) {
	em := s.em
	s.iter++
	w := model
	if em.Weights != nil {
		w = em.Weights(model)
	}
	var out dmv.EStepResult
	obj := 0.0
	if em.Projector != nil {
		res, err := em.Projector.EStep(s.estep, w, em.EStep)
		if err != nil {
			return nil, 0, err
		}
		out, obj, s.dual = res.EStepResult, res.Value, res.Stats
	} else {
		out = s.estep.Run(w, em.EStep)
		obj = out.LogLik
	}
	if out.Err != nil {
		return nil, 0, out.Err
	}
	if n := em.Corpus.Len(); n > 0 && out.Unusable == n {
		return nil, 0, fmt.Errorf("iteration %d: every sentence left out: their weights span more than floating point can hold (a large positive δ?)", s.iter)
	}
	switch {
	case em.VBAlpha > 0:
		var err error
		if obj, err = dmv.VBBound(out.LogLik, out.Counts, w, em.VBAlpha); err != nil {
			return nil, 0, fmt.Errorf("iteration %d: %w", s.iter, err)
		}
	case em.Objective != nil:
		obj = em.Objective(obj)
	}
	if math.IsInf(obj, -1) && math.IsInf(s.prev, -1) && !s.converged(s.prev, obj) {
		s.stuck = fmt.Errorf("iteration %d: %d sentences have probability 0 under the model; smooth it (--lambda) or start elsewhere", s.iter, out.ZeroWeight)
	}
	s.last, s.prev = out, obj
	if em.VBAlpha > 0 {
		return dmv.VariationalBayes(out.Counts, em.VBAlpha), obj, nil
	}
	return dmv.MStepSmoothed(out.Counts, em.Lambda, em.Backoff, em.LearnedBackoff), obj, nil
}

// Stuck is the error the last iteration found (every sentence of
// probability 0 twice in a row), for the loop to raise once the
// iteration is observed (logged); nil when there is none.
func (s *Steps) Stuck() error { return s.stuck }

// Result is the outcome of the stage the loop reports in out, with the
// last E-step's counts.
func (s *Steps) Result(out *emloop.Result[*dmv.Params]) *Result {
	return &Result{Model: out.Model, Counts: s.last.Counts, Iterations: out.Iterations, Objective: out.Objective,
		Converged: out.Converged, ZeroWeight: s.last.ZeroWeight, Unusable: s.last.Unusable}
}

// RelativeChange is |b − a| / |a|, the stopping test of every training
// loop (emloop's); 0 when both are equal (even infinite).
func RelativeChange(a, b float64) float64 { return emloop.RelativeChange(a, b) }
