package families_test

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// transpositions are x and each string of one swap of adjacent words,
// each once: TRANS1 by its definition.
func transpositions(x []string) [][]string {
	out := [][]string{x}
	for i := 0; i+1 < len(x); i++ {
		y := slices.Clone(x)
		y[i], y[i+1] = y[i+1], y[i]
		if !slices.ContainsFunc(out, func(z []string) bool { return slices.Equal(z, y) }) {
			out = append(out, y)
		}
	}
	return out
}

// An HMM ranked --by contrast is its log probabilities as a log-linear
// model: for a smoothed model (no zero) Σ log Z(x) − log Z(N(x)) is Σ log
// p(x) − log Σ_{y ∈ TRANS1(x)} p(y), each p by the family's own forward
// probabilities (LogProbs), bitag and trigram, held-out words included
// (their unseen_word weights).
func TestHMMContrastIsLikelihoodRatio(t *testing.T) {
	dir := t.TempDir()
	train, _ := wordCorpus(t, dir, "train.jsonl", 40, 1)
	_, dev := wordCorpus(t, dir, "dev.jsonl", 12, 2)
	dev = append(dev, &format.Sentence{Words: []string{"the", "zebra", "runs"}, Tags: []string{"DT", "NN", "VB"}})
	for _, order := range []int{1, 2} {
		res, c := trainHMM(t, train, hmm.Options{Order: order, States: 3, Estimator: hmm.MAP, Lambda: 0.5, Iterations: 3, Noise: 1, Seed: 1})
		model := write(t, filepath.Join(dir, "m.jsonl"), savedHMM(t, res, c))
		fam := families.HMM.(interface{ SentenceFamily() family.Sentences }).SentenceFamily()
		m, err := fam.ReadModel(model, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		cor, err := m.Corpus(dev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.(family.Contraster).Contrast(cor, nbhd.Trans1, 2)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for _, s := range dev {
			var nb []*format.Sentence
			for _, y := range transpositions(s.Words) {
				nb = append(nb, &format.Sentence{Words: y, Tags: s.Tags})
			}
			nc, err := m.Corpus(nb)
			if err != nil {
				t.Fatal(err)
			}
			lp := m.(family.Scorer).LogProbs(nc, 1)
			z := 0.0
			for _, l := range lp {
				z += math.Exp(l - lp[0])
			}
			want -= math.Log(z)
		}
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("order %d: contrast %.12g, by the forward probabilities %.12g", order, got, want)
		}
	}
}
