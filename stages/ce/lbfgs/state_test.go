package lbfgs

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/internal/golden"
	"github.com/grind-nlp/grind/stages/ce"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
	"github.com/grind-nlp/grind/stages/train"
)

// A training written to a state file and read back before every
// evaluation — what ce-step does between two calls — evaluates the same
// weights, logs the same iterations and ends with the same weights as
// the uninterrupted run, bit for bit, across the stages of an annealed δ.
func TestTrainingSavedAtEveryEvaluation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	c := corpora.Random(t, rng, 60, 6, 4)
	p, err := ce.NewProblem(c, nbhd.Del1OrTrans1, 2)
	if err != nil {
		t.Fatal(err)
	}
	init, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := ce.LogWeights(init)
	s := Settings{Sigma2: 2, Delta: -0.3, DeltaFinal: 0, DeltaStep: 0.15, MaxIter: 12}
	var want []format.Iteration
	tr := Trainer{Problem: p, Settings: s, Observe: func(it format.Iteration, _ *dmv.Params) error {
		want = append(want, it)
		return nil
	}}
	res, err := tr.Run(start)
	if err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(t.TempDir(), "ce.state")
	run, err := NewTraining(c.Tags.Names(), c.Tokens, start, s)
	if err != nil {
		t.Fatal(err)
	}
	var got []format.Iteration
	evals := 0
	for !run.Done {
		if err := WriteState(path, run.State()); err != nil {
			t.Fatal(err)
		}
		st, err := ReadState(path)
		if err != nil {
			t.Fatal(err)
		}
		wantX, _ := run.Pending()
		if run, err = st.Training(c.Tags.Names(), s); err != nil {
			t.Fatalf("after %d evaluations: %v", evals, err)
		}
		x, delta := run.Pending()
		if !slices.Equal(x, wantX) {
			t.Fatalf("after %d evaluations the restored training waits for other weights", evals)
		}
		run.Observe = func(it format.Iteration, _ *dmv.Params) error {
			got = append(got, it)
			return nil
		}
		w := dmv.NewParams(c.Tags.Len())
		ce.FromVector(x, w)
		if err := run.Give(p.Evaluate(w, ce.Settings{Sigma2: s.Sigma2, Delta: delta})); err != nil {
			t.Fatal(err)
		}
		evals++
	}
	if len(got) != len(want) {
		t.Fatalf("%d iterations logged, the uninterrupted run %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Iter != want[i].Iter || got[i].Stage != want[i].Stage || got[i].Objective != want[i].Objective || *got[i].Delta != *want[i].Delta {
			t.Fatalf("iteration %d: %+v, the uninterrupted run's %+v", i+1, got[i], want[i])
		}
	}
	r := run.Result()
	if !slices.Equal(ce.Vector(r.Weights, nil), ce.Vector(res.Weights, nil)) || r.Evals != res.Evals || r.Iterations != res.Iterations || r.Status != res.Status {
		t.Fatalf("ended with %d evaluations, %d iterations (%s), the uninterrupted run %d, %d (%s), or other weights", r.Evals, r.Iterations, r.Status, res.Evals, res.Iterations, res.Status)
	}
	if len(want) < 3*3 || evals != res.Evals {
		t.Fatalf("%d iterations over %d evaluations (the run counted %d): too short a test", len(want), evals, res.Evals)
	}
}

// A state file that is not one — cut short, another file, edited — is
// an error naming the file and line.
func TestReadStateRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	c := corpora.Random(t, rng, 10, 3, 3)
	init, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTraining(c.Tags.Names(), c.Tokens, ce.LogWeights(init), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := WriteState(good, tr.State()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(good)
	for name, c := range map[string]struct{ text, want string }{
		"cut":     {string(b[:len(b)/2]), "cut short"},
		"empty":   {"", "empty"},
		"model":   {`{"ev":"header","family":"dmv","unit":"w","events":26}` + "\n", "unknown field"},
		"foreign": {`{"format":"something else","version":1}`, "not a ce-step state"},
		"version": {strings.Replace(string(b), `"version":1`, `"version":7`, 1), "version 7"},
		"two":     {string(b) + string(b), "more than one record"},
		"stage":   {strings.Replace(string(b), `"stage":1`, `"stage":3`, 1), "stage 3"},
		"text":    {"hello\n", "invalid JSON"},
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(c.text), 0o644)
		_, err := ReadState(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), path+":") {
			t.Errorf("%s: %v, want an error naming the file and saying %q", name, err, c.want)
		}
	}
	// A state of another run (other tags, another σ²) is refused by the run.
	st, err := ReadState(good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Training(append(slices.Clone(st.Tags), "X"), Settings{}); err == nil {
		t.Error("a state over other tags taken")
	}
	if _, err := st.Training(st.Tags, Settings{Sigma2: 3}); err == nil {
		t.Error("a state of another σ² taken")
	}
}

// A checkpoint without the training's state (a run directory of an older
// grind) resumes at its stage boundary, and ends as the uninterrupted
// run; one in the middle of a stage without it is refused.
func TestResumeAtStageBoundaryWithoutState(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	c := corpora.Random(t, rng, 40, 5, 4)
	p, err := ce.NewProblem(c, nbhd.Trans1, 1)
	if err != nil {
		t.Fatal(err)
	}
	init, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{Sigma2: 1, Delta: -0.2, DeltaFinal: 0, DeltaStep: 0.2, MaxIter: 6}
	var boundary, middle *train.Checkpoint
	var log []format.Iteration
	tr := Trainer{Problem: p, Settings: s,
		Observe: func(it format.Iteration, _ *dmv.Params) error { log = append(log, it); return nil },
		Checkpoint: func(ck train.Checkpoint, _ *State) error {
			switch {
			case ck.Stage == 2 && ck.StageIters == 0 && boundary == nil:
				boundary = &ck
			case ck.StageIters > 0 && middle == nil:
				middle = &ck
			}
			return nil
		}}
	want, err := tr.Run(ce.LogWeights(init))
	if err != nil || boundary == nil || middle == nil {
		t.Fatalf("%v; checkpoints at the boundary %v, in the middle %v", err, boundary != nil, middle != nil)
	}
	var again []format.Iteration
	resumed := Trainer{Problem: p, Settings: s, Resume: boundary,
		Observe: func(it format.Iteration, _ *dmv.Params) error { again = append(again, it); return nil }}
	got, err := resumed.Run(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ce.Vector(got.Weights, nil), ce.Vector(want.Weights, nil)) {
		t.Fatal("resumed at the stage boundary, the run ends with other weights")
	}
	if len(again) != len(log)-boundary.Before || again[0].Iter != boundary.Before+1 || again[0].Objective != log[boundary.Before].Objective {
		t.Fatalf("resumed at iteration %d of %d, it logged %d iterations from %d", boundary.Before, len(log), len(again), again[0].Iter)
	}
	if _, err := (&Trainer{Problem: p, Settings: s, Resume: middle}).Run(nil); err == nil || !strings.Contains(err.Error(), cesearch.StateFile) {
		t.Fatalf("a checkpoint in the middle of a stage without its state: %v", err)
	}
}

// State files of 7fe9ac9's ce-step and train-ce --run-dir (testdata/state:
// the first evaluation, a few steps in with a trial under way, the second
// stage of an annealed δ, a training done, a run directory's, with neither
// corpus nor started) read back and written again are the same bytes, and
// so is the state of the training rebuilt from them, as ce-step saves it.
func TestStateFilesRewrittenByteForByte(t *testing.T) {
	golden.Rewritten(t, "testdata/state/*.json", 5, func(path, out string) error {
		st, err := ReadState(path)
		if err != nil {
			return err
		}
		return WriteState(out, st)
	})
	golden.Rewritten(t, "testdata/state/*.json", 5, func(path, out string) error {
		st, err := ReadState(path)
		if err != nil || st.Status == cesearch.Finished {
			return errors.Join(err, WriteState(out, st))
		}
		tr, err := st.Continue()
		if err != nil {
			return err
		}
		rebuilt := tr.State()
		rebuilt.Model, rebuilt.Corpus, rebuilt.Lattices, rebuilt.Sentences, rebuilt.Started = st.Model, st.Corpus, st.Lattices, st.Sentences, st.Started
		return WriteState(out, rebuilt)
	})
}
