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
)

// Defaults of the stopping rules.
const (
	DefaultMaxIter = 100
	DefaultTol     = 1e-5 // relative change of the log-likelihood
	// DefaultHardTol is Spitkovsky et al.'s (2010) rule for Viterbi EM:
	// per-token cross-entropy changing by less than 2^-20 bits.
	DefaultHardTol = 1.0 / (1 << 20)
)

// EM configures one run of EM to convergence.
type EM struct {
	Corpus *dmv.Corpus
	// EStep chooses the E-step (Hard for Viterbi EM, Dist for a locality
	// bias) and the number of workers.
	EStep  dmv.EStepOptions
	Lambda float64 // add-λ in every M-step (0: maximum likelihood)
	// MaxIter bounds the iterations; Tol is the stopping threshold: the
	// relative change of the log-likelihood, or for Hard the change of
	// per-token cross-entropy in bits. Zero values mean the defaults.
	MaxIter int
	Tol     float64
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
func (em *EM) Run(start *dmv.Params) (*Result, error) {
	maxIter, tol := em.MaxIter, em.Tol
	if maxIter <= 0 {
		maxIter = DefaultMaxIter
	}
	if tol <= 0 {
		tol = DefaultTol
		if em.EStep.Hard {
			tol = DefaultHardTol
		}
	}
	origin := em.Start
	if origin.IsZero() {
		origin = time.Now()
	}
	tokens := float64(em.Corpus.Tokens)
	estep := dmv.NewEStepper(em.Corpus)
	model := start
	res := &Result{}
	prev := math.NaN()
	first := 1
	if r := em.Resume; r != nil {
		first, model, prev = r.StageIters+1, r.Model, r.Prev
	}
	for iter := first; iter <= maxIter; iter++ {
		w := model
		if em.Weights != nil {
			w = em.Weights(model)
		}
		out := estep.Run(w, em.EStep)
		if out.Err != nil {
			return nil, out.Err
		}
		if n := em.Corpus.Len(); n > 0 && out.Unusable == n {
			return nil, fmt.Errorf("iteration %d: every sentence left out: their weights span more than floating point can hold (a large positive δ?)", iter)
		}
		obj := out.LogLik
		if em.Objective != nil {
			obj = em.Objective(obj)
		}
		it := format.Iteration{
			Iter:         em.FirstIter + iter,
			Objective:    format.Real(obj),
			CrossEntropy: format.Real(-obj / tokens / math.Ln2),
			Seconds:      time.Since(origin).Seconds(),
		}
		converged := false
		if iter > 1 {
			change := RelativeChange(prev, obj)
			if em.EStep.Hard {
				converged = math.Abs(obj-prev)/tokens/math.Ln2 < tol
			} else {
				converged = change < tol
			}
			c := format.Real(change)
			it.Change = &c
		}
		if em.Observe != nil {
			if err := em.Observe(it, model); err != nil {
				return nil, err
			}
		}
		model = dmv.MStep(out.Counts, em.Lambda)
		*res = Result{Model: model, Counts: out.Counts, Iterations: iter, Objective: obj, Converged: converged, ZeroWeight: out.ZeroWeight, Unusable: out.Unusable}
		if converged {
			break
		}
		if math.IsInf(obj, -1) && math.IsInf(prev, -1) {
			return nil, fmt.Errorf("iteration %d: %d sentences have probability 0 under the model; smooth it (--lambda) or start elsewhere", iter, out.ZeroWeight)
		}
		prev = obj
		if em.Checkpoint != nil && iter < maxIter {
			if err := em.Checkpoint(Checkpoint{Stage: 1, StageIters: iter, Prev: obj, Model: model}); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// RelativeChange is |b − a| / |a|, the stopping test of the training
// loops; 0 when both are equal (even infinite).
func RelativeChange(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(b-a) / math.Abs(a)
}
