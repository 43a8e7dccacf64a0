package lbfgs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ce"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/train"
)

// Options are train-ce's own settings.
type Options struct {
	Kind string // the neighbourhood
	Settings
	MaxMemory int64 // bytes for one neighbourhood's chart (ce.NewProblemWithin)
}

// Run trains a log-linear DMV by CE on the sentences of src and writes it
// (unit "w") to w. The start is the -m model (log-probabilities of a "p"
// model, or a "w" model as it is) or the log of the initializer's θ⁽⁰⁾
// (0 everywhere for zero).
func Run(src pipeline.Source, w io.Writer, job train.Job, opts Options) error {
	job.Unit = format.Weight
	job.IDs = true // its errors name sentences
	s, err := train.Open(src, job)
	if err != nil {
		return err
	}
	defer s.Close()
	start, err := startWeights(s, job)
	if err != nil {
		return err
	}
	problem, err := ce.NewProblemWithin(s.Corpus, opts.Kind, job.Workers, opts.MaxMemory)
	if err != nil {
		return err
	}
	t := &Trainer{
		Problem: problem, Settings: opts.Settings, Workers: job.Workers,
		Observe: s.Observe,
		Resume:  s.Resumed(),
		Start:   s.Origin(),
	}
	if job.RunDir != "" {
		state := filepath.Join(job.RunDir, cesearch.StateFile)
		// The checkpoint first: a kill between the two leaves the
		// training one iteration behind it, which the resumed run makes
		// again without logging it twice.
		t.Checkpoint = func(c train.Checkpoint, st *State) error {
			if err := s.Checkpoint(c); err != nil {
				return err
			}
			return WriteState(state, st)
		}
		if t.Resume != nil {
			if _, err := os.Stat(state); err == nil {
				if t.State, err = ReadState(state); err != nil {
					return err
				}
				job.Progress.Note("continuing stage %d at iteration %d (evaluation %d), where the run stopped", t.State.Stage, t.State.Iteration, t.State.Evaluations)
			}
		}
	}
	res, err := t.Run(start)
	if err != nil {
		return err
	}
	job.Progress.Note("%s", cesearch.Summary(res.Converged, res.Status, res.Iterations, res.Evals, res.Objective))
	return s.Write(w, res.Weights)
}

// startWeights is the training's start: the -m model (log-probabilities
// of a "p" model, a "w" model as it is) or the log of the initializer's
// θ⁽⁰⁾ (0 everywhere for zero).
func startWeights(s *train.Session, job train.Job) (*dmv.Params, error) {
	if t := s.StartTable(); t != nil {
		if err := dmv.RefuseValence(t.Params.V, "contrastive estimation"); err != nil {
			return nil, fmt.Errorf("%s: %w", job.StartModel, err)
		}
		switch t.Unit {
		case format.Prob:
			return ce.LogWeights(t.Params), nil
		case format.Weight:
			return t.Params, nil
		}
		return nil, fmt.Errorf("%s: holds counts, not a model", job.StartModel)
	}
	// θ⁽⁰⁾ in log space: the log-probabilities of a model, or for zero the
	// weight vector 0 (DESIGN.md §5.2). CE has no λ.
	st, err := s.Start(0)
	if err != nil {
		return nil, err
	}
	return ce.LogWeights(st.Params), nil
}
