package modelu

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// hyphens is a sentence whose words' affixes hold hyphens of their own:
// "--" is the suffix of "re-" and the prefix of "-x", "-x-" both a
// suffix and a prefix.
var hyphens = &format.Sentence{Words: []string{"re-", "--", "-x-", "dog"}, Tags: []string{"JJ", ":", "NN", "NN"}}

// A model written is read back the same, its affixes' names with
// hyphens of the words' own too.
func TestWriteReadRoundTrip(t *testing.T) {
	sents := append(corpus(), hyphens)
	m := New([]string{":", "CD", "DT", "JJ", "NN", "NNS", "RB", "VBD", "VBP", "VBZ"}, true)
	m.Nbhd = nbhd.Trans1
	p, err := NewProblem(m, sents, nbhd.Trans1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Train(p, Options{MaxIter: 3, Sigma2: 1}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "u.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Hash() != m.Hash() || len(r.Theta) != len(m.Theta) {
		t.Fatalf("read back a different model")
	}
	for _, s := range sents {
		x, _ := Symbols(m, s, false)
		y, _ := Symbols(r, s, false)
		a, c := m.Parse(m.Theta, x), r.Parse(r.Theta, y)
		for i := range a {
			if a[i] != c[i] {
				t.Errorf("sentence %v: parse %v before writing, %v after", s.Tags, a, c)
			}
		}
	}
}

func TestTrainingRaisesTheObjective(t *testing.T) {
	m := New([]string{"CD", "DT", "NN", "NNS", "RB", "VBD", "VBP", "VBZ"}, false)
	p, err := NewProblem(m, corpus(), nbhd.Del1OrTrans1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	start := p.Objective(m.Theta, 1, 1, nil)
	res, err := Train(p, Options{MaxIter: 20, Sigma2: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !(res.Objective > start) {
		t.Errorf("objective %v after training, %v at the start", res.Objective, start)
	}
}
