// Package emloop is the training loop of every model family that trains
// by EM in memory (the CCM, the HMM, and any registered family): E-step →
// M-step until the objective settles, in one stage (EM, MAP, VB) or in a
// stage per value of an annealing schedule (DA and SDA, schedule.DA), with
// the iteration records of --log and the progress bar, and the
// checkpoints of a run directory from which --resume continues to the
// very model an uninterrupted run ends with. A family gives one function,
// Step; the loop knows nothing of its model but that it can be stored in a
// checkpoint.
//
// The DMV's EM (stages/train) is one stage of this loop, with its own
// stopping rule for Viterbi EM; its annealers (stages/anneal) run their
// schedules as this loop's stages (Stages), each stage with its own
// reweighted E-step and the annealed value in its log records. (CE,
// stages/ce/lbfgs, is not EM: it keeps its own stages.)
package emloop

import (
	"fmt"
	"math"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/rundir"
)

// Loop configures one run. M is the family's model (or whatever state an
// iteration starts from, e.g. VB's counts).
type Loop[M any] struct {
	// Step runs one iteration from model m at the stage's β (1: plain EM;
	// the family reweights its E-step, p^β or p^β·skew^(1−β)): the E-step
	// and the M-step on its counts. It returns the next model and the
	// E-step's objective, which the stopping rule reads.
	Step func(m M, beta float64) (next M, objective float64, err error)
	// Betas is the schedule, one β per stage; nil is one stage at β = 1.
	Betas []float64
	// Stages, when not nil, is the schedule instead of Betas and Step: a
	// stage per element, each with its own step (a schedule that anneals
	// more than the β Step is given: the DMV's locality bias, its
	// segmentation weight). Every record carries its stage.
	Stages []Stage[M]
	// AfterStage, when not nil, hears each stage's outcome (k from 1) as
	// it ends, before the checkpoint at its boundary; Iterations are the
	// stage's own, those before a resume included. An error stops the
	// run.
	AfterStage func(k int, r *Result[M]) error
	// Annealed records each iteration's stage and β in the log.
	Annealed bool
	// MaxIter bounds the iterations of each stage (≥ 1).
	MaxIter int
	// Tol ends a stage after the iteration whose objective changed by
	// less than Tol relatively (RelativeChange); 0 runs every iteration.
	Tol float64
	// Converged, when not nil, replaces that rule (the DMV's Viterbi EM
	// compares bits per token); it is asked from a stage's second
	// iteration on.
	Converged func(prev, obj float64) bool
	// FirstIter numbers the first iteration (a caller that runs the
	// stages itself numbers its log across them).
	FirstIter int
	// Tokens, when > 0, is the corpus size, and says that the objective
	// at β = 1 is the log-likelihood of those tokens under a model that
	// generates each once: the iteration records of β = 1 then carry the
	// cross-entropy (format.Iteration; a stage's Label removes it where
	// the stage's objective is biased).
	Tokens int
	// Observe, when not nil, sees every iteration and the model its
	// E-step ran with (log, progress, periodic saves); an error stops the
	// run.
	Observe func(it format.Iteration, m M) error
	// Checkpoint, when not nil, hears the state after every iteration the
	// loop goes on from, including the boundaries between stages.
	Checkpoint func(c rundir.State[M]) error
	// Resume, when not nil, continues a run from its checkpoint; the rest
	// of the run equals the uninterrupted one.
	Resume *rundir.State[M]
	// Start is the wall-clock origin of the log's seconds (zero: now).
	Start time.Time
}

// Stage is one stage of Loop.Stages.
type Stage[M any] struct {
	// Step runs one iteration of the stage, as Loop.Step does (β is
	// the stage's own business: Step is given 1).
	Step func(m M, beta float64) (next M, objective float64, err error)
	// Label, when not nil, marks each iteration record of the stage with
	// the value it anneals (the loop sets its stage).
	Label func(it *format.Iteration)
}

// Result is the outcome of a run.
type Result[M any] struct {
	Model      M // after the last M-step
	Iterations int
	Objective  float64 // the last E-step's
	Converged  bool    // the last stage ended by Tol
}

// Run trains from start (ignored when resuming).
func (l *Loop[M]) Run(start M) (*Result[M], error) {
	betas := l.Betas
	if betas == nil {
		betas = []float64{1}
	}
	if l.Stages != nil {
		betas = make([]float64, len(l.Stages))
		for k := range betas {
			betas[k] = 1
		}
	}
	origin := l.Start
	if origin.IsZero() {
		origin = time.Now()
	}
	model := start
	firstStage, done, resumedIters, prev := 0, 0, 0, math.NaN()
	if r := l.Resume; r != nil {
		model, firstStage, done, resumedIters, prev = r.Model, r.Stage-1, r.Before, r.StageIters, r.Prev
	}
	res := &Result[M]{Model: model, Iterations: done + resumedIters}
	for stage := firstStage; stage < len(betas); stage++ {
		beta, step := betas[stage], l.Step
		var label func(*format.Iteration)
		if l.Stages != nil {
			step, label = l.Stages[stage].Step, l.Stages[stage].Label
		}
		first := 1
		if stage == firstStage && l.Resume != nil {
			first = resumedIters + 1
		}
		converged := false
		iter := first - 1
		for iter = first; iter <= l.MaxIter; iter++ {
			next, obj, err := step(model, beta)
			if err != nil {
				return nil, err
			}
			it := format.Iteration{
				Iter:      l.FirstIter + done + iter,
				Objective: format.Real(obj),
				Seconds:   time.Since(origin).Seconds(),
			}
			if l.Tokens > 0 && beta == 1 {
				ce := format.CrossEntropy(obj, l.Tokens)
				it.CrossEntropy = &ce
			}
			switch {
			case l.Stages != nil:
				it.Stage = stage + 1
				if label != nil {
					label(&it)
				}
			case l.Annealed:
				b := beta
				it.Stage, it.Beta = stage+1, &b
			}
			if iter > 1 {
				change := RelativeChange(prev, obj)
				c := format.Real(change)
				it.Change = &c
				if l.Converged != nil {
					converged = l.Converged(prev, obj)
				} else {
					converged = l.Tol > 0 && change < l.Tol
				}
			}
			if l.Observe != nil {
				if err := l.Observe(it, model); err != nil {
					return nil, err
				}
			}
			model, prev = next, obj
			*res = Result[M]{Model: model, Iterations: done + iter, Objective: obj, Converged: converged}
			if converged {
				break
			}
			if l.Checkpoint != nil && iter < l.MaxIter {
				if err := l.Checkpoint(rundir.State[M]{Stage: stage + 1, StageIters: iter, Before: done, Prev: obj, Model: model}); err != nil {
					return nil, err
				}
			}
		}
		stageIters := min(iter, l.MaxIter)
		done += stageIters
		if l.AfterStage != nil {
			if err := l.AfterStage(stage+1, &Result[M]{Model: model, Iterations: stageIters, Objective: res.Objective, Converged: converged}); err != nil {
				return nil, err
			}
		}
		if l.Checkpoint != nil && stage+1 < len(betas) {
			if err := l.Checkpoint(rundir.State[M]{Stage: stage + 2, Before: done, Prev: math.NaN(), Model: model}); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// Rule is a stopping rule: what change of the objective ends a stage.
type Rule string

const (
	// Relative ends a stage when |L − L′| / |L′| < tol: the trainers'
	// default (Smith's, Klein's, Smith & Eisner's).
	Relative Rule = "relative"
	// Bits ends a stage when |L − L′| / (N·ln 2) < tol, N the corpus's
	// tokens: the per-token cross-entropy changed by less than tol bits,
	// Spitkovsky et al.'s (2010) rule, "iterating each run until
	// successive changes in overall per-token cross-entropy drop below
	// 2^−20 bits" (§4), for classic and Viterbi EM alike.
	Bits Rule = "bits"
)

// DefaultBitsTol is Spitkovsky et al.'s threshold, 2^−20 bits per token.
const DefaultBitsTol = 1.0 / (1 << 20)

// ParseRule reads a rule's name ("" is Relative).
func ParseRule(s string) (Rule, error) {
	switch r := Rule(s); r {
	case "":
		return Relative, nil
	case Relative, Bits:
		return r, nil
	}
	return "", fmt.Errorf("the stopping rule must be %q or %q, not %q", Relative, Bits, s)
}

// Converged is the rule's test at tol over a corpus of tokens tokens,
// for Loop.Converged. Under Relative equal objectives have converged,
// even infinite ones; under Bits an infinite objective never has.
func (r Rule) Converged(tol float64, tokens int) func(prev, obj float64) bool {
	if r == Bits {
		n := float64(tokens)
		return func(prev, obj float64) bool { return math.Abs(obj-prev)/n/math.Ln2 < tol }
	}
	return func(prev, obj float64) bool { return RelativeChange(prev, obj) < tol }
}

// RelativeChange is |b − a| / |a|, the stopping test of the training
// loops; 0 when both are equal (even infinite).
func RelativeChange(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(b-a) / math.Abs(a)
}

// Every is obs (nil: nothing) followed, at every n-th iteration by its
// number, by save of the model the iteration's E-step ran with: a
// trainer's --save-every (n ≤ 0: never). Numbering by the iteration, not
// by the calls, saves the same models in a resumed run.
func Every[M any](n int, obs func(format.Iteration, M) error, save func(iter int, m M) error) func(format.Iteration, M) error {
	if n <= 0 {
		return obs
	}
	return func(it format.Iteration, m M) error {
		if obs != nil {
			if err := obs(it, m); err != nil {
				return err
			}
		}
		if it.Iter%n == 0 {
			return save(it.Iter, m)
		}
		return nil
	}
}
