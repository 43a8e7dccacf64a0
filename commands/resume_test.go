package commands

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/internal/clitest"
	"github.com/grind-nlp/grind/stages/train"
)

// TestResumeChild is the trainer TestResumeAfterSIGKILL kills.
func TestResumeChild(t *testing.T) { clitest.RunChild(t, program.Run) }

// logLines counts the complete lines of a run's iteration log.
func logLines(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, train.RunLog))
	return bytes.Count(b, []byte("\n"))
}

// A trainer killed with SIGKILL at seeded random iterations and resumed
// with --resume ends with the model an uninterrupted run writes, byte
// for byte, and with its log's iterations, once each and in order:
// resumed with the run's flags and inputs given again, or (the third
// kill) with --resume DIR alone, which writes the run's -o.
func TestResumeAfterSIGKILL(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	cases := []struct {
		name  string
		args  []string
		iters int // iterations of the whole run
	}{
		{"em", []string{"train-em", "--init", "km", "--lambda", "0.1", "--tol", "0", "--max-iter", "40"}, 40},
		{"vb", []string{"train-em", "--estimator", "vb", "--alpha", "0.1", "--tol", "0", "--max-iter", "40"}, 40},
		{"evg", []string{"train-em", "--init", "km", "--stop-valence", "3", "--child-valence", "2", "--child-backoff", "0.2", "--lambda", "0.1", "--tol", "0", "--max-iter", "20"}, 20},
		{"da", []string{"train-da", "--init", "km", "--skew", "--beta0", "0.25", "--gamma", "2", "--lambda", "0.1", "--tol", "0", "--max-iter", "12"}, 36},
		{"sa", []string{"train-sa", "--init", "zero", "--lambda", "10", "--delta0", "-0.4", "--delta-step", "0.2", "--delta-final", "0", "--tol", "0", "--max-iter", "12"}, 36},
		// Posterior regularization's dual goes on from the checkpoint's.
		{"pr-rules", []string{"train-em", "--rules", writeTemp(t, dir, "rules.txt", []byte(prRules)), "--rule-share", "0.9", "--tol", "0", "--max-iter", "30"}, 30},
		{"pr-sparsity", []string{"train-em", "--sparsity", "3", "--tol", "0", "--max-iter", "30"}, 30},
		{"pr-sparsity-exact", []string{"train-em", "--sparsity", "3", "--dual-rule", "exact", "--tol", "0", "--max-iter", "30"}, 30},
		{"pr-sparsity-interleaved", []string{"train-em", "--sparsity", "3", "--dual-rule", "interleaved", "--tol", "0", "--max-iter", "30"}, 30},
	}
	rng := rand.New(rand.NewPCG(14, 2))
	for _, tc := range cases {
		whole := filepath.Join(dir, tc.name+"-whole")
		want := run(t, nil, append(append([]string{}, tc.args...), "-q", "--run-dir", whole, corpus)...)
		wantLog := withoutSeconds(t, whole)
		for trial := 0; trial < 3; trial++ {
			at := 1 + rng.IntN(tc.iters*3/4) // kill once the log has this many lines (not too near the end, which a kill might miss)
			rd := filepath.Join(dir, tc.name+"-run", string(rune('a'+trial)))
			args := append(append([]string{}, tc.args...), "-q", "--workers", "2", "--run-dir", rd, "-o", filepath.Join(dir, "killed.jsonl"), corpus)
			killed := clitest.KillAt(t, "TestResumeChild", args, func() bool { return logLines(rd) >= at }, 30*time.Second)
			t.Logf("%s: killed after %d log lines (asked %d; killed before the end: %v)", tc.name, logLines(rd), at, killed)

			resume := append(append([]string{}, tc.args...), "-q", "--workers", "1", "--resume", rd, corpus)
			switch trial {
			case 1:
				resume = append(resume, "--stream") // held or streamed: the same model
			case 2:
				resume = []string{tc.args[0], "--resume", rd} // the rest from run.json, -o included
			}
			resumed := run(t, nil, resume...)
			if trial == 2 {
				resumed = readFile(t, filepath.Join(dir, "killed.jsonl"))
			}
			if !bytes.Equal(resumed, want) {
				t.Errorf("%s: the run killed at iteration %d and resumed differs from the uninterrupted one", tc.name, at)
			}
			if saved, _ := os.ReadFile(filepath.Join(rd, train.RunModel)); !bytes.Equal(saved, want) {
				t.Errorf("%s: %s differs from the uninterrupted run's model", tc.name, train.RunModel)
			}
			got := withoutSeconds(t, rd)
			if len(got) != tc.iters || len(wantLog) != tc.iters {
				t.Errorf("%s: the logs have %d and %d lines, want %d", tc.name, len(got), len(wantLog), tc.iters)
				continue
			}
			for i := range got {
				if got[i] != wantLog[i] {
					t.Errorf("%s: log line %d is %s, want %s", tc.name, i+1, got[i], wantLog[i])
					break
				}
			}
		}
	}
}

// withoutSeconds is the iteration log of a run directory, line by line,
// without the wall-clock seconds that differ between runs (and which must
// never go back).
func withoutSeconds(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, train.RunLog))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	last := 0.0
	for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var rec map[string]any
		if err := json.Unmarshal(l, &rec); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		// A resumed log's clock goes on from where the killed run's stopped.
		if sec, _ := rec["seconds"].(float64); sec < last {
			t.Errorf("%s: seconds go back from %g to %g", dir, last, sec)
		} else {
			last = sec
		}
		delete(rec, "seconds")
		out, _ := json.Marshal(rec)
		lines = append(lines, string(out))
	}
	return lines
}

// --resume refuses a run directory made by another program, from other
// inputs or with other flags, before the run; flags that do not change
// the model (--workers, --quiet, -o) may differ. --run-dir refuses a
// folder that already holds a run.
func TestResumeRefusesAnotherRun(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 50)
	other := writeTemp(t, dir, "other.jsonl", []byte(`{"tags":["A","B"]}`+"\n"))
	rd := filepath.Join(dir, "run")
	base := []string{"--lambda", "0.1", "--max-iter", "3", "-q"}
	want := run(t, nil, append(append([]string{"train-em"}, base...), "--run-dir", rd, corpus)...)
	for _, tc := range []struct {
		args []string
		err  string // "" for a run that must succeed
	}{
		{append([]string{"train-em", "--workers", "1", "-o", filepath.Join(dir, "m.jsonl")}, base...), ""},
		{[]string{"train-em", "--lambda", "0.2", "--max-iter", "3"}, "flags differ from the run's"},
		{append([]string{"train-em", "--hard"}, base...), "--hard true (the run had false)"},
		{append([]string{"train-da"}, base...), "is a run of train-em, not train-da"},
	} {
		var out, errs bytes.Buffer
		args := append(append([]string{}, tc.args...), "--resume", rd, corpus)
		code := program.Run(args[0], args, nil, &out, &errs)
		switch {
		case tc.err == "" && code != 0:
			t.Errorf("%v: exit %d: %s", args, code, errs.String())
		case tc.err == "" && !bytes.Equal(readFile(t, filepath.Join(dir, "m.jsonl")), want):
			t.Errorf("%v: a different model", args)
		case tc.err != "" && (code != program.ExitUsage || !bytes.Contains(errs.Bytes(), []byte(tc.err))):
			t.Errorf("%v: exit %d, %q; want exit %d and %q", args, code, errs.String(), program.ExitUsage, tc.err)
		}
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"train-em", "--resume", rd, other}, other + " is not the file the run read"},
		{[]string{"train-em", "--run-dir", rd, corpus}, "already holds a run; continue it with 'train-em --resume " + rd + "'"},
		{[]string{"train-em", "--run-dir", rd, "--resume", rd, corpus}, "a run either starts or resumes"},
		{[]string{"train-em", "--log", filepath.Join(dir, "l"), "--run-dir", filepath.Join(dir, "new"), corpus}, "the run directory has its log"},
		// --resume DIR alone: the flags given replace the run's, and are
		// checked as any resume's; another program's run is refused.
		{[]string{"train-em", "--resume", rd, "--lambda", "0.2"}, "flags differ from the run's (" + filepath.Join(rd, "run.json") + "): --lambda 0.2 (the run had 0.1)"},
		{[]string{"train-da", "--resume", rd}, "is a run of train-em, not train-da"},
		{[]string{"train-em", "--lambda", "0.1", "--max-iter", "3", "--resume", rd, "-"}, "which stdin's cannot be"},
	} {
		var out, errs bytes.Buffer
		if code := program.Run(tc.args[0], tc.args, bytes.NewReader(nil), &out, &errs); code != program.ExitUsage || !bytes.Contains(errs.Bytes(), []byte(tc.err)) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, errs.String(), program.ExitUsage, tc.err)
		}
	}
}

// --resume DIR alone refuses a run whose input has changed since: the
// file run.json names, read again, has another SHA-256.
func TestResumeAloneRefusesChangedInput(t *testing.T) {
	dir := t.TempDir()
	corpus := writeTemp(t, dir, "c.jsonl", readFile(t, sampledCorpus(t, dir, 30)))
	rd := filepath.Join(dir, "run")
	run(t, nil, "train-em", "--max-iter", "2", "-q", "--run-dir", rd, corpus)
	writeTemp(t, dir, "c.jsonl", []byte(`{"tags":["A","B"]}`+"\n"))
	var errs bytes.Buffer
	want := corpus + " is not the file the run read: its SHA-256 differs from run.json's"
	if code := program.Run("train-em", []string{"train-em", "--resume", rd}, nil, &bytes.Buffer{}, &errs); code != program.ExitUsage || !bytes.Contains(errs.Bytes(), []byte(want)) {
		t.Errorf("exit %d, %q; want exit %d and %q", code, errs.String(), program.ExitUsage, want)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
