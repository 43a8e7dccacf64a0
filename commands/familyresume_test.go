package commands

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/grind-nlp/grind/internal/clitest"
	"github.com/grind-nlp/grind/stages/rundir"
)

// train-ccm (ccm, ccm2, ccm --classes 3, dmvccm under each --order) and train-hmm, on
// the loop every family shares (emloop), and
// train-hmm's Gibbs sampler, killed with SIGKILL at seeded random
// iterations (sweeps) and resumed with --resume (the second kill: --resume
// DIR alone, which takes the rest from run.json and writes the run's -o),
// write the sentences and the model (model.jsonl; none for gibbs) an
// uninterrupted run writes, byte for byte, and its log's iterations once
// each and in order.
func TestFamilyResumeAfterSIGKILL(t *testing.T) {
	dir := t.TempDir()
	tags := sampledCorpus(t, dir, 300)
	treebank, _ := filepath.Glob("../examples/treebank/*.mrg")
	words := writeTemp(t, dir, "words.jsonl", run(t, nil, append([]string{"ptb2deps", "--keep-punct"}, treebank...)...))
	// The product's chart is costly: its sentences are the treebank's of
	// up to 10 words, with gold heads (the log's accuracies are resumed).
	short := writeTemp(t, dir, "short.jsonl", run(t, nil, "filterlen", "10", words))
	cases := []struct {
		name   string
		args   []string
		corpus string
		iters  int
	}{
		{"ccm-em", []string{"train-ccm", "--tol", "1e-300", "--max-iter", "24"}, tags, 24},
		{"ccm2-sda", []string{"train-ccm", "--model", "ccm2", "--estimator", "sda", "--beta0", "0.25", "--gamma", "2", "--tol", "1e-300", "--max-iter", "8"}, tags, 24},
		{"ccm-classes", []string{"train-ccm", "--classes", "3", "--seed", "5", "--tol", "1e-300", "--max-iter", "16"}, tags, 16},
		{"dmvccm", []string{"train-ccm", "--model", "dmvccm", "--tol", "1e-300", "--max-iter", "16"}, short, 16},
		{"dmvccm-right-first", []string{"train-ccm", "--model", "dmvccm", "--right-first", "--dmv-init", "klein", "--tol", "1e-300", "--max-iter", "16"}, short, 16},
		{"dmvccm-mixture", []string{"train-ccm", "--model", "dmvccm", "--order", "mixture", "--tol", "1e-300", "--max-iter", "12"}, short, 12},
		{"dmvccm-footnote8-sda", []string{"train-ccm", "--model", "dmvccm", "--order", "footnote8", "--estimator", "sda", "--beta0", "0.25", "--gamma", "2", "--tol", "1e-300", "--max-iter", "4"}, short, 12},
		{"dmvccm-sda", []string{"train-ccm", "--model", "dmvccm", "--estimator", "sda", "--beta0", "0.25", "--gamma", "2", "--tol", "1e-300", "--max-iter", "6"}, short, 18},
		{"hmm-em", []string{"train-hmm", "--states", "12", "--max-iter", "30"}, words, 30},
		{"hmm-da", []string{"train-hmm", "--trigram", "--states", "6", "--estimator", "da", "--lambda", "0.1", "--beta0", "0.25", "--gamma", "2", "--max-iter", "8"}, words, 24},
		{"hmm-vb", []string{"train-hmm", "--states", "12", "--estimator", "vb", "--max-iter", "24"}, words, 24},
		{"hmm-gibbs", []string{"train-hmm", "--states", "12", "--estimator", "gibbs", "--temp0", "3", "--samples", "8", "--max-iter", "40"}, words, 40},
	}
	rng := rand.New(rand.NewPCG(14, 3))
	for _, tc := range cases {
		whole := filepath.Join(dir, tc.name+"-whole")
		want := run(t, nil, append(append([]string{}, tc.args...), "-q", "--run-dir", whole, tc.corpus)...)
		wantModel, _ := os.ReadFile(filepath.Join(whole, rundir.Model)) // none for gibbs
		wantLog := withoutSeconds(t, whole)
		if len(wantLog) != tc.iters {
			t.Fatalf("%s: %d log lines, want %d", tc.name, len(wantLog), tc.iters)
		}
		for trial := 0; trial < 2; trial++ {
			at := 1 + rng.IntN(tc.iters*3/4)
			rd := filepath.Join(dir, tc.name+"-run", string(rune('a'+trial)))
			args := append(append([]string{}, tc.args...), "-q", "--workers", "2", "--run-dir", rd, "-o", filepath.Join(dir, "killed.jsonl"), tc.corpus)
			killed := clitest.KillAt(t, "TestResumeChild", args, func() bool { return logLines(rd) >= at }, 30*time.Second)
			t.Logf("%s: killed after %d log lines (asked %d; killed before the end: %v)", tc.name, logLines(rd), at, killed)

			var resumed []byte
			if trial == 0 {
				resumed = run(t, nil, append(append([]string{}, tc.args...), "-q", "--workers", "1", "--resume", rd, tc.corpus)...)
			} else { // --resume DIR alone: the run's flags, inputs and -o from run.json
				run(t, nil, tc.args[0], "--resume", rd)
				resumed = readFile(t, filepath.Join(dir, "killed.jsonl"))
			}
			if !bytes.Equal(resumed, want) {
				t.Errorf("%s: the output of the run killed at iteration %d and resumed differs from the uninterrupted one's", tc.name, at)
			}
			if saved, _ := os.ReadFile(filepath.Join(rd, rundir.Model)); !bytes.Equal(saved, wantModel) {
				t.Errorf("%s: %s differs from the uninterrupted run's", tc.name, rundir.Model)
			}
			got := withoutSeconds(t, rd)
			if len(got) != tc.iters {
				t.Errorf("%s: the resumed log has %d lines, want %d", tc.name, len(got), tc.iters)
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

// The model of a run directory is the one --save-model writes.
func TestFamilyRunDirModel(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 40)
	rd, saved := filepath.Join(dir, "run"), filepath.Join(dir, "m.jsonl")
	run(t, nil, "train-ccm", "-q", "--max-iter", "3", "--run-dir", rd, "--save-model", saved, corpus)
	if !bytes.Equal(readFile(t, saved), readFile(t, filepath.Join(rd, rundir.Model))) {
		t.Error("train-ccm: model.jsonl differs from --save-model's file")
	}
}

// --save-every K saves, as iter-NNNN.jsonl, the model iteration NNNN's
// E-step ran with: the one --max-iter NNNN−1 --save-model writes.
func TestFamilySaveEvery(t *testing.T) {
	dir := t.TempDir()
	tags := sampledCorpus(t, dir, 40)
	treebank, _ := filepath.Glob("../examples/treebank/*.mrg")
	words := writeTemp(t, dir, "words.jsonl", run(t, nil, append([]string{"ptb2deps", "--keep-punct"}, treebank...)...))
	short := writeTemp(t, dir, "short.jsonl", run(t, nil, "filterlen", "8", words))
	for _, tc := range []struct {
		name   string
		args   []string
		corpus string
	}{
		{"ccm", []string{"train-ccm", "--model", "ccm2", "--tol", "1e-300"}, tags},
		{"ccm-classes", []string{"train-ccm", "--classes", "4", "--tol", "1e-300"}, tags},
		{"hmm", []string{"train-hmm", "--states", "4", "--lambda", "0.1"}, words},
		{"dmvccm-mixture", []string{"train-ccm", "--model", "dmvccm", "--order", "mixture", "--tol", "1e-300"}, short},
		{"dmvccm-footnote8", []string{"train-ccm", "--model", "dmvccm", "--order", "footnote8", "--tol", "1e-300"}, short},
		{"hmm-vb", []string{"train-hmm", "--states", "4", "--estimator", "vb"}, words},
	} {
		saves := filepath.Join(dir, tc.name)
		run(t, nil, append(append([]string{}, tc.args...), "-q", "--max-iter", "4", "--save-every", "2", "--save-dir", saves, tc.corpus)...)
		for _, iter := range []string{"2", "4"} {
			want := filepath.Join(dir, tc.name+"-"+iter+".jsonl")
			prev := map[string]string{"2": "1", "4": "3"}[iter]
			run(t, nil, append(append([]string{}, tc.args...), "-q", "--max-iter", prev, "--save-model", want, tc.corpus)...)
			if !bytes.Equal(readFile(t, filepath.Join(saves, "iter-000"+iter+".jsonl")), readFile(t, want)) {
				t.Errorf("%s: iter-000%s.jsonl differs from the model after %s iterations", tc.name, iter, prev)
			}
		}
	}
}
