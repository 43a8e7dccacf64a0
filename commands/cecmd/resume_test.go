package cecmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/internal/clitest"
	"github.com/grind-nlp/grind/stages/ce/lbfgs"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/modelu"
	"github.com/grind-nlp/grind/stages/train"
)

// TestResumeCEChild is the train-ce TestResumeCEAfterSIGKILL kills.
func TestResumeCEChild(t *testing.T) { clitest.RunChild(t, program.Run) }

func logLines(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, train.RunLog))
	return bytes.Count(b, []byte("\n"))
}

// train-ce with an annealed δ, killed with SIGKILL at seeded random
// iterations and resumed, ends with the uninterrupted run's model byte for
// byte: it goes on from the training's state (ce-state.json, L-BFGS's
// memory and line search included) where the kill stopped it, in the
// middle of a stage, not from the stage's start.
func TestResumeCEAfterSIGKILL(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(14, 4))
	tags := []string{"DT", "JJ", "NN", "VB", "IN", "RB"}
	var b bytes.Buffer
	for i := 0; i < 60; i++ {
		var s []string
		for n := 3 + rng.IntN(4); len(s) < n; {
			s = append(s, tags[rng.IntN(len(tags))])
		}
		line, _ := json.Marshal(map[string][]string{"tags": s})
		b.Write(append(line, '\n'))
	}
	corpus := filepath.Join(dir, "corpus.jsonl")
	if err := os.WriteFile(corpus, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"train-ce", "--nbhd", "trans1", "--sigma2", "1", "--delta0", "-0.4", "--delta-step", "0.2", "--delta-final", "0", "--max-iter", "15", "--tol", "0", "-q"}
	whole := filepath.Join(dir, "whole")
	want := run(t, append(append([]string{}, flags...), "--run-dir", whole, corpus)...)
	total := logLines(whole)
	if total < 6 {
		t.Fatalf("the whole run logged %d lines; too few to kill it in the middle", total)
	}
	midStage := 0
	for trial := 0; trial < 3; trial++ {
		at := 1 + rng.IntN(total*3/4) // not too near the end, which a kill might miss
		rd := filepath.Join(dir, fmt.Sprintf("run-%d", trial))
		args := append(append([]string{}, flags...), "--workers", "2", "--run-dir", rd, "-o", filepath.Join(dir, "killed.jsonl"), corpus)
		killed := clitest.KillAt(t, "TestResumeCEChild", args, func() bool { return logLines(rd) >= at }, 60*time.Second)
		t.Logf("killed after %d of %d log lines (asked %d; killed before the end: %v)", logLines(rd), total, at, killed)
		st, err := lbfgs.ReadState(filepath.Join(rd, cesearch.StateFile))
		if err != nil {
			t.Fatal(err)
		}
		// Without -q (a resumed run may change it), to hear where it goes on.
		args = append(append([]string{}, flags[:len(flags)-1]...), "--workers", "1", "--resume", rd, corpus)
		var resumed, errs bytes.Buffer
		if code := program.Run("train-ce", args, strings.NewReader(""), &resumed, &errs); code != 0 {
			t.Fatalf("resume: exit %d: %s", code, errs.String())
		}
		note := fmt.Sprintf("continuing stage %d at iteration %d (evaluation %d)", st.Stage, st.Iteration, st.Evaluations)
		if !strings.Contains(errs.String(), note) {
			t.Errorf("the resumed run did not go on from its state (%s): %s", note, errs.String())
		}
		if st.Iteration > st.StageStart {
			midStage++
		}
		if !bytes.Equal(resumed.Bytes(), want) {
			t.Errorf("the run killed at line %d and resumed differs from the uninterrupted one", at)
		}
		if n := logLines(rd); n != total {
			t.Errorf("the resumed run's log has %d lines, want %d", n, total)
		}
	}
	if midStage == 0 {
		t.Error("no kill came in the middle of a stage")
	}
}

// train-ce --family modelu --spelling, killed with SIGKILL at seeded
// random iterations and resumed, ends with the uninterrupted run's model
// and log byte for byte (but the seconds): it goes on from the training's
// state (ce-state.json: L-BFGS's memory and line search), not from the
// start. --save-every's models are those of the uninterrupted run too.
func TestResumeModelUAfterSIGKILL(t *testing.T) {
	dir := t.TempDir()
	corpus := randomCorpus(t, dir, 21, 120)
	flags := []string{"train-ce", "--family", "modelu", "--spelling", "--nbhd", "del1ortrans1", "--sigma2", "1", "--max-iter", "25", "--tol", "0", "-q"}
	whole := filepath.Join(dir, "whole")
	wholeSaves := filepath.Join(dir, "whole-saves")
	want := run(t, append(append([]string{}, flags...), "--run-dir", whole, "--save-every", "5", "--save-dir", wholeSaves, corpus)...)
	total := logLines(whole)
	if total < 10 {
		t.Fatalf("the whole run logged %d lines; too few to kill it in the middle", total)
	}
	rng := rand.New(rand.NewPCG(22, 5))
	before := 0
	for trial := 0; trial < 3; trial++ {
		at := 1 + rng.IntN(total*3/4)
		rd := filepath.Join(dir, fmt.Sprintf("run-%d", trial))
		saves := filepath.Join(dir, fmt.Sprintf("saves-%d", trial))
		args := append(append([]string{}, flags...), "--workers", "2", "--run-dir", rd, "--save-every", "5", "--save-dir", saves, "-o", filepath.Join(dir, "killed.jsonl"), corpus)
		killed := clitest.KillAt(t, "TestResumeCEChild", args, func() bool { return logLines(rd) >= at }, 60*time.Second)
		t.Logf("killed after %d of %d log lines (asked %d; killed before the end: %v)", logLines(rd), total, at, killed)
		if tr, err := modelu.ReadState(filepath.Join(rd, cesearch.StateFile)); killed && err == nil && tr.State.Iteration > 1 {
			before++ // in the middle of the training, its state saved
		}
		args = append(append([]string{}, flags[:len(flags)-1]...), "--workers", "1", "--save-every", "5", "--save-dir", saves, "--resume", rd, corpus)
		var resumed, errs bytes.Buffer
		if code := program.Run("train-ce", args, strings.NewReader(""), &resumed, &errs); code != 0 {
			t.Fatalf("resume: exit %d: %s", code, errs.String())
		}
		if !bytes.Equal(resumed.Bytes(), want) {
			t.Errorf("the run killed at line %d and resumed differs from the uninterrupted one", at)
		}
		if n := logLines(rd); n != total {
			t.Errorf("the resumed run's log has %d lines, want %d", n, total)
		}
		for k := 5; k <= total; k += 5 {
			name := fmt.Sprintf("iter-%04d.jsonl", k)
			a, _ := os.ReadFile(filepath.Join(wholeSaves, name))
			b, err := os.ReadFile(filepath.Join(saves, name))
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("%s differs from the uninterrupted run's (%v)", name, err)
			}
		}
	}
	if before == 0 {
		t.Error("no kill came in the middle of the training")
	}
}
