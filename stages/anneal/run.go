package anneal

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/emloop"
	"github.com/grind-nlp/grind/stages/pr"
	"github.com/grind-nlp/grind/stages/schedule"
	"github.com/grind-nlp/grind/stages/train"
)

// DAOptions are train-da's own settings.
type DAOptions struct {
	Beta0, Gamma float64 // the schedule: β₀, then β ← min(1, γβ)
	// Skew makes it skewed DA: event weights p^β·λ₀^(1−β), λ₀ the
	// initializer's θ⁽⁰⁾ weights (or the -m model); for zero all 1, so
	// SDA from zero is DA from zero.
	Skew    bool
	Lambda  float64     // add-λ in every M-step
	PR      pr.Options  // posterior regularization in every E-step, when on
	MaxIter int         // iterations per stage at most (0: the default)
	Tol     float64     // the change that ends a stage (0: the default)
	Stop    emloop.Rule // the rule Tol is of ("": relative)
	// BelowOne drops the last stage, β = 1: the run ends with the last
	// β₀γ^k < 1. Smith's (2006) text runs EM at β = 1 last (Fig. 5.1),
	// but the H_C and iteration counts of his Tables 5.1 and 5.3 are
	// those of runs that stopped below 1 (docs/results.md).
	BelowOne bool
	// SaveDir, when not "", receives each stage's final model as
	// stage-NN-betaB.jsonl.
	SaveDir string
}

// RunDA trains by deterministic annealing (or skewed DA) and writes the
// model of the last stage, β = 1, to w.
func RunDA(src pipeline.Source, w io.Writer, job train.Job, opts DAOptions) error {
	betas, err := schedule.DA(opts.Beta0, opts.Gamma)
	if err != nil {
		return err
	}
	if opts.BelowOne {
		if betas, err = BelowOne(betas); err != nil {
			return err
		}
	}
	s, start, err := train.Begin(src, job, opts.Lambda)
	if err != nil {
		return err
	}
	defer s.Close()
	var skew *dmv.Params
	if opts.Skew {
		skew = start.Params
	}
	stages := make([]dmv.Reweighting, len(betas))
	for k, b := range betas {
		stages[k] = dmv.Reweighting{Beta: b, Skew: skew}
	}
	a, err := newAnnealer(s, stages, Beta, opts.Lambda, opts.MaxIter, opts.Tol, opts.Stop, opts.PR)
	if err != nil {
		return err
	}
	a.AfterStage = stageReport(s, a, opts.SaveDir, false)
	res, err := a.Run(start.Params)
	if err != nil {
		return err
	}
	s.Job.Progress.Note("annealed through %d stages (β %g → %g) in %d iterations", len(stages), betas[0], betas[len(betas)-1], res.Iterations)
	return s.Write(w, res.Model)
}

// SAOptions are train-sa's own settings.
type SAOptions struct {
	Anneals            Parameter   // Delta (Model L) or SegBeta (Model S)
	Start, Step, Final float64     // the schedule of the annealed value
	Lambda             float64     // add-λ in every M-step
	PR                 pr.Options  // posterior regularization in every E-step, when on (Model L only)
	MaxIter            int         // iterations per epoch at most (0: the default)
	Tol                float64     // the change that ends an epoch (0: the default)
	Stop               emloop.Rule // the rule Tol is of ("": relative)
	// SaveDir, when not "", receives each epoch's final model as
	// epoch-NN-delta±D.DDD.jsonl (or seg-beta), for select.
	SaveDir string
}

// RunSA trains by structural annealing of a locality bias (Model L) or a
// segmentation bias (Model S) and writes the last epoch's model to w. The
// bias applies in training only: the models saved and written are plain
// DMVs, and the log-likelihood reported after each epoch is theirs.
func RunSA(src pipeline.Source, w io.Writer, job train.Job, opts SAOptions) error {
	values, err := schedule.Linear(opts.Start, opts.Step, opts.Final)
	if err != nil {
		return err
	}
	s, start, err := train.Begin(src, job, opts.Lambda)
	if err != nil {
		return err
	}
	defer s.Close()
	stages := make([]dmv.Reweighting, len(values))
	for k, v := range values {
		stages[k] = dmv.Plain()
		if opts.Anneals == SegBeta {
			stages[k].Segmented, stages[k].SegBeta = true, v
		} else {
			stages[k].Delta = v
		}
	}
	a, err := newAnnealer(s, stages, opts.Anneals, opts.Lambda, opts.MaxIter, opts.Tol, opts.Stop, opts.PR)
	if err != nil {
		return err
	}
	a.AfterStage = stageReport(s, a, opts.SaveDir, true)
	res, err := a.Run(start.Params)
	if err != nil {
		return err
	}
	s.Job.Progress.Note("annealed through %d epochs (%s %s → %s) in %d iterations", len(stages), opts.Anneals.Name(),
		opts.Anneals.Format(values[0]), opts.Anneals.Format(values[len(values)-1]), res.Iterations)
	return s.Write(w, res.Model)
}

func newAnnealer(s *train.Session, stages []dmv.Reweighting, p Parameter, lambda float64, maxIter int, tol float64, stop emloop.Rule, prOpts pr.Options) (*Annealer, error) {
	a := &Annealer{
		EM: train.EM{
			Corpus:         s.Corpus,
			EStep:          dmv.EStepOptions{Workers: s.Job.Workers, Bound: s.Job.Bound},
			Lambda:         lambda,
			Backoff:        s.Job.ChildBackoff,
			LearnedBackoff: s.Job.LearnedBackoff(),
			MaxIter:        maxIter,
			Tol:            tol,
			Stop:           stop,
			Observe:        s.Observe,
			Start:          s.Origin(),
		},
		Stages:  stages,
		Anneals: p,
		Resume:  s.Resumed(),
	}
	if s.Job.RunDir != "" {
		a.Checkpoint = s.Checkpoint
	}
	var err error
	a.EM.Projector, a.Checkpoint, err = s.Projector(prOpts, a.Checkpoint)
	return a, err
}

// stageReport notes each stage's outcome on stderr and saves its model in
// dir. With plain it also computes the stage model's log-likelihood under
// the plain DMV (one inside pass): what a structural bias leaves out of
// the objective; not when nothing is noted (--quiet), as in the held-out
// recipes' 210 SA runs a language.
func stageReport(s *train.Session, a *Annealer, dir string, plain bool) func(int, dmv.Reweighting, *train.Result) error {
	kind := "stage"
	if plain {
		kind = "epoch"
	}
	digits := max(2, len(strconv.Itoa(len(a.Stages))))
	estep := dmv.NewEStepper(s.Corpus)
	return func(k int, r dmv.Reweighting, res *train.Result) error {
		state := "converged"
		if !res.Converged {
			state = "stopped at the iteration limit"
		}
		v := a.Value(r)
		msg := fmt.Sprintf("%s %d (%s %s): %s after %d iterations; objective %.10g", kind, k, a.Anneals.Name(),
			a.Anneals.Format(v), state, res.Iterations, res.Objective)
		if plain && !s.Job.Progress.Quiet() {
			out := estep.Run(res.Model, dmv.EStepOptions{LogLikOnly: true, Workers: s.Job.Workers})
			if out.Err != nil {
				return out.Err
			}
			ll := out.LogLik
			msg += fmt.Sprintf("; log-likelihood %.10g (plain DMV, %.6f bits/token)", ll, -ll/float64(s.Corpus.Tokens)/math.Ln2)
		}
		s.Job.Progress.Note("%s", msg)
		if dir == "" {
			return nil
		}
		name := fmt.Sprintf("%s-%0*d-%s%s.jsonl", kind, digits, k, a.Anneals.Name(), a.Anneals.Format(v))
		return s.Save(filepath.Join(dir, name), res.Model)
	}
}
