package cecmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/grind-nlp/grind/commands/stepcmd" // registers estep
	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/hmmce"
)

// randomCorpus writes n sentences of 3 to 6 random tags, each word its
// tag in one of three spellings ("NN", "nn", "Nn-2"), and returns the
// file's path.
func randomCorpus(t *testing.T, dir string, seed uint64, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 4))
	tags := []string{"DT", "JJ", "NN", "VB", "IN", "RB"}
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		var s, words []string
		for k := 3 + rng.IntN(4); len(s) < k; {
			t := tags[rng.IntN(len(tags))]
			s = append(s, t)
			words = append(words, []string{t, strings.ToLower(t), t[:1] + strings.ToLower(t[1:]) + "-2"}[rng.IntN(3)])
		}
		line, _ := json.Marshal(map[string]any{"id": fmt.Sprint("s", i+1), "words": words, "tags": s})
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(dir, "corpus.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeFile(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ceLoop is CE as the shell loop runs it (examples/ce/loop.sh): ce-step
// --start, the lattices once, then estep over the sentences and over the
// lattices (at the state's δ) and ce-step, until the state is done. It
// returns the model and the log.
func ceLoop(t *testing.T, dir, corpus, kind string, opts ...string) (model []byte, log []format.Iteration) {
	t.Helper()
	state, w, logPath := filepath.Join(dir, "ce.state"), filepath.Join(dir, "w.jsonl"), filepath.Join(dir, "ce.log")
	start := append([]string{"ce-step", "--start"}, opts...)
	modelU := slices.Contains(opts, "modelu")
	if modelU {
		start = append(start, "--nbhd", kind) // its header names it
	}
	run(t, append(start, "-q", "--state", state, "--log", logPath, "-o", w, corpus)...)
	nbhd := []string{"nbhd", "--kind", kind}
	switch {
	case slices.Contains(opts, "--states"):
		nbhd = append(nbhd, "--words") // the HMM's neighbourhoods are of words
	case modelU && slices.Contains(opts, "--spelling"):
		nbhd = append(nbhd, "--spelling") // Model U's spelling reads the words
	}
	if kind == "length" {
		nbhd = append(nbhd, "-m", w)
	}
	lattices := run(t, append(nbhd, corpus)...)
	latPath := writeFile(t, filepath.Join(dir, "lattices.jsonl"), lattices)
	for steps := 0; ; steps++ {
		var st struct {
			Status string
			Delta  float64
		}
		b, err := os.ReadFile(state)
		if err == nil {
			err = json.Unmarshal(b, &st)
		}
		if err != nil {
			t.Fatal(err)
		}
		if st.Status == cesearch.Finished {
			break
		}
		if steps > 1000 {
			t.Fatal("the loop does not end")
		}
		delta := fmt.Sprint(st.Delta)
		num := writeFile(t, filepath.Join(dir, "s.counts"), run(t, "estep", "-q", "--delta", delta, "-m", w, corpus))
		den := writeFile(t, filepath.Join(dir, "l.counts"), run(t, "estep", "-q", "--delta", delta, "-m", w, latPath))
		run(t, "ce-step", "-q", "--state", state, "--log", logPath, "-o", w, num, den)
	}
	model, err := os.ReadFile(w)
	if err != nil {
		t.Fatal(err)
	}
	return model, readLog(t, logPath)
}

func readLog(t *testing.T, path string) []format.Iteration {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []format.Iteration
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var it format.Iteration
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out = append(out, it)
	}
	return out
}

// taggerWeights is the CE tagger train-hmm saved as the log-linear HMM
// ce-step writes: its transitions, and its emissions with the spelling
// weights folded in.
func taggerWeights(t *testing.T, path string) []byte {
	t.Helper()
	tagger, err := hmmce.ReadTagger(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tagger.M.Params(tagger.Theta)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := hmm.WriteWeights(&b, p, tagger.States, tagger.Words); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// weights reads the "w" of every event of a model, in order.
func weights(t *testing.T, model []byte) []float64 {
	t.Helper()
	var out []float64
	for _, line := range strings.Split(strings.TrimSpace(string(model)), "\n")[1:] {
		var e struct{ W *float64 }
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.W == nil {
			t.Fatalf("%s: not a weight (%v)", line, err)
		}
		out = append(out, *e.W)
	}
	return out
}

// CE as a shell loop of estep, nbhd | estep and ce-step equals train-ce
// over a fixed number of iterations: the same iterations (stage and δ),
// each one's objective to 1e-9 (relative), every weight to 1e-9 (relative
// beyond ±1). DMV CE, Model L's CE at a fixed δ and annealed, HMM CE
// (--states, over words) against train-hmm --estimator ce --save-model, and
// Model U's CE (--family modelu; with --spelling over nbhd --spelling's
// lattices of tagged words).
func TestCEStepLoopEqualsTrainCE(t *testing.T) {
	cases := []struct {
		kind string
		opts []string
	}{
		{"del1ortrans1", []string{"--init", "km", "--max-iter", "8", "--tol", "0"}},
		{"trans1", []string{"--init", "zero", "--sigma2", "1", "--delta0", "-0.3", "--max-iter", "6", "--tol", "0"}},
		{"dynasearch", []string{"--init", "local", "--delta0", "-0.2", "--delta-final", "0", "--delta-step", "0.1", "--max-iter", "4", "--tol", "0"}},
		{"length", []string{"--init", "km", "--sigma2", "2", "--max-iter", "10", "--tol", "0"}},
		{"trans2", []string{"--init", "km", "--sigma2", "1", "--max-iter", "5", "--tol", "0"}},
		{"trans1", []string{"--init", "km", "--delta0", "-0.3", "--delta-final", "0.1", "--delta-step", "0.1", "--max-iter", "2", "--tol", "0"}},
		{"trans1", []string{"--states", "4", "--max-iter", "8"}},
		{"del1ortrans1", []string{"--states", "3", "--spelling", "--sigma2", "1", "--seed", "5", "--max-iter", "8"}},
		{"length", []string{"--states", "2", "--max-iter", "5", "--noise", "0.5"}},
		{"trans1", []string{"--family", "modelu", "--max-iter", "8", "--tol", "0"}},
		{"length", []string{"--family", "modelu", "--sigma2", "1", "--max-iter", "4", "--tol", "0"}},
		{"del1ortrans1", []string{"--family", "modelu", "--spelling", "--sigma2", "2", "--max-iter", "6", "--tol", "0"}},
	}
	for i, c := range cases {
		dir := t.TempDir()
		corpus := randomCorpus(t, dir, uint64(i+1), 40)
		loop, loopLog := ceLoop(t, dir, corpus, c.kind, c.opts...)
		trainLog := filepath.Join(dir, "train.log")
		var trained []byte
		if slices.Contains(c.opts, "--states") {
			saved := filepath.Join(dir, "hmm.jsonl")
			run(t, append(append([]string{"train-hmm", "--estimator", "ce", "--nbhd", c.kind}, c.opts...), "-q", "--log", trainLog, "--save-model", saved, corpus)...)
			trained = taggerWeights(t, saved)
		} else {
			trained = run(t, append(append([]string{"train-ce", "--nbhd", c.kind}, c.opts...), "-q", "--log", trainLog, corpus)...)
		}
		want := readLog(t, trainLog)
		name := c.kind + " " + strings.Join(c.opts, " ")
		if len(loopLog) != len(want) {
			t.Fatalf("%s: the loop logged %d iterations, train-ce %d", name, len(loopLog), len(want))
		}
		worst := 0.0
		for k, it := range want {
			got := loopLog[k]
			if got.Iter != it.Iter || got.Stage != it.Stage || (got.Delta == nil) != (it.Delta == nil) || got.Delta != nil && *got.Delta != *it.Delta {
				t.Fatalf("%s: iteration %d logged as %+v, train-ce's %+v", name, k+1, got, it)
			}
			worst = max(worst, math.Abs(float64(got.Objective-it.Objective))/math.Abs(float64(it.Objective)))
		}
		a, b := weights(t, loop), weights(t, trained)
		if len(a) != len(b) {
			t.Fatalf("%s: %d weights, train-ce %d", name, len(a), len(b))
		}
		dw := 0.0
		for k := range a {
			dw = max(dw, math.Abs(a[k]-b[k])/max(1, math.Abs(a[k]), math.Abs(b[k])))
		}
		t.Logf("%s: %d iterations, objectives within %.2g (relative), %d weights within %.2g", name, len(want), worst, len(a), dw)
		if worst > 1e-9 || dw > 1e-9 {
			t.Errorf("%s: the loop differs from train-ce", name)
		}
	}
}
