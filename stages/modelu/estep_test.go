package modelu

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// writeLines writes records as JSON lines to dir/name.
func writeLines[T any](t *testing.T, dir, name string, recs []T) string {
	t.Helper()
	var b bytes.Buffer
	for _, r := range recs {
		if err := pipeline.WriteRecord(&b, r); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The E-step from programs — estep over the sentences, and over nbhd's
// lattices (of tagged words with spelling), and ce-step's sum of the two
// count files — gives train-ce's in-process objective and gradient at
// random weights, to 1e-12: each neighbourhood kind, with and without
// spelling (sentences with two words of one tag among them, of other
// spellings and of one).
func TestEStepCountsEqualInProcessGradient(t *testing.T) {
	sents := append(corpus(), &format.Sentence{Words: []string{"dogs", "chase", "cats"}, Tags: []string{"NNS", "VBP", "NNS"}},
		// Two numbers of one spelling ("-0", "00-", …): one symbol.
		&format.Sentence{Words: []string{"1990", "sat", "1989"}, Tags: []string{"CD", "VBD", "CD"}})
	for _, c := range []struct {
		kind     string
		spelling bool
		sigma2   float64
	}{{nbhd.Trans1, false, math.Inf(1)}, {nbhd.Del1OrTrans2, true, 2}, {nbhd.Length, false, 1}, {nbhd.Del1Subseq, true, math.Inf(1)}, {nbhd.Dynasearch, true, 0.5}, {nbhd.Del1OrTrans1, false, 3}} {
		dir := t.TempDir()
		m := New([]string{"CD", "DT", "NN", "NNS", "RB", "VBD", "VBP", "VBZ"}, c.spelling)
		m.Nbhd = c.kind
		p, err := NewProblem(m, sents, c.kind, 2, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(5, 6))
		for i := range m.Theta {
			m.Theta[i] = r.NormFloat64()
		}
		theta := append([]float64(nil), m.Theta...)
		want := make([]float64, len(theta))
		wantObj := p.Objective(theta, c.sigma2, 2, want)

		var model bytes.Buffer
		if err := m.Write(&model); err != nil {
			t.Fatal(err)
		}
		modelPath := filepath.Join(dir, "u.jsonl")
		if err := os.WriteFile(modelPath, model.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		corpusPath := writeLines(t, dir, "corpus.jsonl", sents)
		var lattices bytes.Buffer
		if err := nbhd.Run(pipeline.Source{Names: []string{corpusPath}}, &lattices, nbhd.Options{Kind: c.kind, Spelling: c.spelling, Model: map[bool]string{true: modelPath}[c.kind == nbhd.Length]}); err != nil {
			t.Fatal(err)
		}
		latPath := filepath.Join(dir, "lattices.jsonl")
		if err := os.WriteFile(latPath, lattices.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		counts := func(in, out string) string {
			var b bytes.Buffer
			if err := EStep(pipeline.Source{Names: []string{in}}, &b, EStepOptions{Model: modelPath, Workers: 2}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, out)
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}
		step := Step{cesearch.Step{Sentences: counts(corpusPath, "s.counts"), Lattices: counts(latPath, "l.counts")}}
		tr, err := NewTraining(m, sents, c.sigma2, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		obj, grad, err := step.evaluation(tr)
		if err != nil {
			t.Fatal(err)
		}
		worst := math.Abs(obj-wantObj) / math.Abs(wantObj)
		for i := range grad {
			worst = max(worst, math.Abs(grad[i]-want[i])/max(1, math.Abs(want[i])))
		}
		t.Logf("%s (spelling %v): %d features, objective %.6g, worst difference %.2g", c.kind, c.spelling, len(grad), obj, worst)
		if worst > 1e-12 {
			t.Errorf("%s (spelling %v): the counts' objective and gradient differ from the in-process ones by %g", c.kind, c.spelling, worst)
		}
	}
}
