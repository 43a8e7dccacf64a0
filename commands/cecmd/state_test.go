package cecmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
)

// A state file of any family edited so that it no longer fits together is
// refused by ce-step with an error naming the file and line and saying what
// does not fit; the state is left as it was and no model is written. The
// states are those the families' tests read back byte for byte.
func TestCEStepRefusesEditedStates(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, from, to, want string }{
		{"ce/lbfgs/testdata/state/step.json", `"family":"dmv"`, `"family":"xyz"`, `the "xyz" family, not "dmv"`},
		{"ce/lbfgs/testdata/state/step.json", `"iteration":3`, `"iteration":4`, "3 points accepted, not the 4 iterations logged"},
		{"ce/lbfgs/testdata/state/done.json", `"weights":[`, `"weights":[1,`, "done with 27 weights, not its 26"},
		{"ce/lbfgs/testdata/state/step.json", `"evaluations":6`, `"evaluations":5`, "5 evaluations, fewer than its search's 6"},
		{"hmmce/testdata/state/step.json", `"iteration":5`, `"iteration":6`, "5 points accepted, not the 6 iterations logged"},
		{"hmmce/testdata/state/done.json", `"status":"done"`, `"status":"finished"`, `status "finished"`},
		{"hmmce/testdata/state/start.json", `"words":["a","dog","runs"]`, `"words":["a","dog"]`, "a search over 15 weights, not the training's 13"},
		{"modelu/testdata/state/step.json", `"max_iter":100,"tol"`, `"max_iter":50,"tol"`, "its search's options"},
		{"modelu/testdata/state/done.json", `"tokens":7`, `"tokens":-7`, "-7 tokens"},
		{"modelu/testdata/state/start.json", `"version":1`, `"version":2`, "version 2"},
	} {
		b, err := os.ReadFile(filepath.Join("../../stages", c.file))
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(b), c.from, c.to, 1)
		if edited == string(b) {
			t.Fatalf("%s holds no %s", c.file, c.from)
		}
		state := writeFile(t, filepath.Join(dir, "s.json"), []byte(edited))
		out := filepath.Join(dir, "w.jsonl")
		os.Remove(out)
		var stdout, stderr bytes.Buffer
		code := program.Run("ce-step", []string{"ce-step", "--state", state, "-o", out}, strings.NewReader(""), &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), state+":1: ") || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%s with %s: exit %d, %q; want an error naming the file and saying %q", c.file, c.to, code, stderr.String(), c.want)
		}
		if after, _ := os.ReadFile(state); string(after) != edited {
			t.Errorf("%s with %s: the state was changed", c.file, c.to)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s with %s: a model written", c.file, c.to)
		}
	}
}

// Counts of the weights a state waits for over its sentences and over
// other neighbourhoods than the steps before had (the state's lattices
// hash edited), or over fewer sentences, are refused for every family; the
// state is left as it was.
func TestCEStepRefusesOtherCorpora(t *testing.T) {
	dir := t.TempDir()
	// The corpus the states of testdata/state were made from, and its
	// first two sentences.
	corpus := writeFile(t, filepath.Join(dir, "c.jsonl"), []byte(`{"id":"1","words":["a","dog"],"tags":["A","B"]}
{"id":"2","words":["dog","runs","a"],"tags":["B","A","B"]}
{"id":"3","words":["a","a"],"tags":["A","A"]}
`))
	short := writeFile(t, filepath.Join(dir, "short.jsonl"), []byte(`{"id":"1","words":["a","dog"],"tags":["A","B"]}
{"id":"2","words":["dog","runs","a"],"tags":["B","A","B"]}
`))
	for _, c := range []struct{ file, lattices, words string }{
		{"ce/lbfgs/testdata/state/step.json", "413743c57b918e84", ""},
		{"hmmce/testdata/state/step.json", "a79f04fcb60fe1ff", "--words"},
		{"modelu/testdata/state/step.json", "d94e4a9b244b0a39", "--spelling"},
	} {
		b, err := os.ReadFile(filepath.Join("../../stages", c.file))
		if err != nil {
			t.Fatal(err)
		}
		w := writeFile(t, filepath.Join(dir, "w.jsonl"), run(t, "ce-step", "--state", filepath.Join("../../stages", c.file)))
		nbhd := []string{"nbhd", "--kind", "trans1", corpus}
		if c.words != "" {
			nbhd = append(nbhd, c.words)
		}
		lattices := writeFile(t, filepath.Join(dir, "l.jsonl"), run(t, nbhd...))
		sents := writeFile(t, filepath.Join(dir, "s.counts"), run(t, "estep", "-q", "-m", w, corpus))
		lats := writeFile(t, filepath.Join(dir, "l.counts"), run(t, "estep", "-q", "-m", w, lattices))
		few := writeFile(t, filepath.Join(dir, "few.counts"), run(t, "estep", "-q", "-m", w, short))
		other := strings.Replace(string(b), `"lattices":"`+c.lattices+`"`, `"lattices":"0123456789abcdef"`, 1)
		if other == string(b) {
			t.Fatalf("%s: not lattices %s", c.file, c.lattices)
		}
		for _, step := range []struct{ state, sents, want string }{
			{other, sents, "counts of other neighbourhoods (lattices " + c.lattices + ") than the training's so far (0123456789abcdef)"},
			{string(b), few, "counts of 2 sentences and 5 tokens, not the training's 3 and 7"},
		} {
			state := writeFile(t, filepath.Join(dir, "s.json"), []byte(step.state))
			var stdout, stderr bytes.Buffer
			code := program.Run("ce-step", []string{"ce-step", "-q", "--state", state, "-o", w, step.sents, lats}, strings.NewReader(""), &stdout, &stderr)
			if code == 0 || !strings.Contains(stderr.String(), step.want) {
				t.Errorf("%s: exit %d, %q; want an error saying %q", c.file, code, stderr.String(), step.want)
			}
			if after, _ := os.ReadFile(state); string(after) != step.state {
				t.Errorf("%s: the state was changed", c.file)
			}
		}
	}
}

// Counts given to a training that has ended are refused, for every
// family, saying how it ended; the state is left as it was.
func TestCEStepRefusesCountsWhenDone(t *testing.T) {
	dir := t.TempDir()
	for _, file := range []string{"ce/lbfgs/testdata/state/done.json", "hmmce/testdata/state/done.json", "modelu/testdata/state/done.json"} {
		b, err := os.ReadFile(filepath.Join("../../stages", file))
		if err != nil {
			t.Fatal(err)
		}
		state := writeFile(t, filepath.Join(dir, "s.json"), b)
		var stdout, stderr bytes.Buffer
		code := program.Run("ce-step", []string{"ce-step", "--state", state, "-o", filepath.Join(dir, "w.jsonl"), "s.counts", "l.counts"}, strings.NewReader(""), &stdout, &stderr)
		if want := state + ": the training has ended (stopped (IterationLimit))"; code == 0 || !strings.Contains(stderr.String(), want) {
			t.Errorf("%s: exit %d, %q; want an error saying %q", file, code, stderr.String(), want)
		}
		if after, _ := os.ReadFile(state); string(after) != string(b) {
			t.Errorf("%s: the state was changed", file)
		}
	}
}
