package anneal

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/train"
)

// An annealer resumed from any of its checkpoints (mid-stage and at stage
// boundaries, through a run directory's file) logs the rest of the
// uninterrupted run's iterations and stage outcomes and ends with its
// model, to the last bit: SDA, Model L from the zero start (the biased
// first E-step on a table of weights) and Model S.
func TestResumeFromEveryCheckpoint(t *testing.T) {
	c := corpora.Sampled(t, 120, 5, 3, 8, 0.4, 5)
	km, _ := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	zero, _ := dmv.InitialModel(c, dmv.InitZero, dmv.InitOptions{})
	for _, cfg := range []struct {
		name   string
		p      Parameter
		start  *dmv.Params
		stages []dmv.Reweighting
	}{
		{"SDA", Beta, km, []dmv.Reweighting{{Beta: 0.25, Skew: km}, {Beta: 0.5, Skew: km}, {Beta: 1, Skew: km}}},
		{"Model L", Delta, zero, []dmv.Reweighting{{Beta: 1, Delta: -0.6}, {Beta: 1, Delta: -0.2}, {Beta: 1, Delta: 0.1}}},
		{"Model S", SegBeta, km, []dmv.Reweighting{{Beta: 1, Segmented: true, SegBeta: 0.5}, {Beta: 1, Segmented: true, SegBeta: -1}}},
	} {
		dir := t.TempDir()
		run := func(resume *train.Checkpoint, keep bool) (log, stages []string, res *train.Result, states []train.Checkpoint) {
			a := &Annealer{
				EM: train.EM{Corpus: c, MaxIter: 6, Tol: 1e-4, Lambda: 0.5, Observe: func(it format.Iteration, _ *dmv.Params) error {
					it.Seconds = 0
					b, _ := json.Marshal(it)
					log = append(log, string(b))
					return nil
				}},
				Stages: cfg.stages, Anneals: cfg.p, Resume: resume,
				AfterStage: func(k int, r dmv.Reweighting, res *train.Result) error {
					stages = append(stages, fmt.Sprint(k, r.Beta, r.Delta, r.SegBeta, res.Iterations, res.Converged, res.Objective, res.Model.Child))
					return nil
				},
			}
			if keep {
				a.Checkpoint = func(st train.Checkpoint) error {
					if err := train.WriteCheckpoint(dir, st); err != nil {
						return err
					}
					back, err := train.ReadCheckpoint(dir, c.Tags, format.Prob, dmv.DMVValence, false)
					if err != nil {
						return err
					}
					states = append(states, *back)
					return nil
				}
			}
			res, err := a.Run(cfg.start)
			if err != nil {
				t.Fatal(err)
			}
			return log, stages, res, states
		}
		whole, wholeStages, want, states := run(nil, true)
		boundaries := 0
		for _, st := range states {
			if st.StageIters == 0 {
				boundaries++
				if !math.IsNaN(st.Prev) {
					t.Errorf("%s: a boundary's prev is %v, not NaN", cfg.name, st.Prev)
				}
			}
			log, stages, got, _ := run(&st, false)
			if !slices.Equal(log, whole[st.Done():]) {
				t.Errorf("%s resumed at stage %d after %d+%d: log\n%v\nwant\n%v", cfg.name, st.Stage, st.Before, st.StageIters, log, whole[st.Done():])
			}
			if !slices.Equal(stages, wholeStages[st.Stage-1:]) {
				t.Errorf("%s resumed at stage %d after %d+%d: stages\n%v\nwant\n%v", cfg.name, st.Stage, st.Before, st.StageIters, stages, wholeStages[st.Stage-1:])
			}
			if got.Iterations != want.Iterations || got.Objective != want.Objective || got.Converged != want.Converged ||
				!slices.Equal(got.Model.Child, want.Model.Child) || !slices.Equal(got.Model.Stop, want.Model.Stop) || !slices.Equal(got.Model.Root, want.Model.Root) {
				t.Errorf("%s resumed at stage %d after %d+%d: a different result", cfg.name, st.Stage, st.Before, st.StageIters)
			}
		}
		if boundaries != len(cfg.stages)-1 || len(states) == boundaries {
			t.Errorf("%s: %d checkpoints, %d at boundaries, for %d stages", cfg.name, len(states), boundaries, len(cfg.stages))
		}
	}
}
