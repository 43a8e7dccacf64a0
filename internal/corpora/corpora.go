// Package corpora loads the corpora that benchmarks and accuracy tests
// share — the real ones from ../shared/data, skipping when it is absent,
// and sampled or random ones — and the checks the trainers' tests share.
package corpora

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/conll2deps"
	"github.com/grind-nlp/grind/stages/dmv"
)

// UDEnglish is UD English v1.4 train without punctuation, XPOS tags, of
// length ≤ maxLen: `conll2deps --tag xpos en-ud-train-nopunct-len15.conllu
// | filterlen maxLen` — 5,387 sentences at 10 (the accuracy tables'
// training set), all 7,647 at 15.
func UDEnglish(t testing.TB, maxLen int) *dmv.Corpus {
	t.Helper()
	path := testenv.SharedData(t, "ud-nopunct", "en-ud-train-nopunct-len15.conllu")
	sents := Converted(t, maxLen, func(w io.Writer) error {
		_, err := conll2deps.Convert(pipeline.Source{Names: []string{path}}, w, conll2deps.Options{Tag: conll2deps.XPOS})
		return err
	})
	return corpus(t, sents)
}

// Sampled draws sentences of minLen..maxLen tokens with their trees from a
// DMV over tags T0, T1, … whose parameters are drawn from seed (every
// stop probability scaled by stopScale before normalising: below 1,
// heads take more children).
func Sampled(t testing.TB, sentences, tags, minLen, maxLen int, stopScale float64, seed uint64) *dmv.Corpus {
	t.Helper()
	return corpus(t, SampledSentences(t, sentences, tags, minLen, maxLen, stopScale, seed))
}

// SampledSentences are the records of Sampled's corpus.
func SampledSentences(t testing.TB, sentences, tags, minLen, maxLen int, stopScale float64, seed uint64) []*format.Sentence {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	p := dmv.NewParams(tags)
	for _, tab := range p.Tables() {
		for i := range tab {
			tab[i] = rng.ExpFloat64()
		}
	}
	for i := range p.Stop {
		p.Stop[i] *= stopScale
	}
	p = dmv.MStep(p, 0)
	var sents []*format.Sentence
	for len(sents) < sentences {
		tg, heads, ok := dmv.Sample(rng, p, maxLen)
		if !ok || len(tg) < minLen {
			continue
		}
		s := &format.Sentence{Heads: heads}
		for _, x := range tg {
			s.Tags = append(s.Tags, fmt.Sprintf("T%d", x))
		}
		sents = append(sents, s)
	}
	return sents
}

// Random is sentences of 1..maxLen tags drawn uniformly over tags tags
// (A, B, …), without trees.
func Random(t testing.TB, rng *rand.Rand, sentences, maxLen, tags int) *dmv.Corpus {
	t.Helper()
	var sents []*format.Sentence
	for i := 0; i < sentences; i++ {
		s := &format.Sentence{Tags: make([]string, 1+rng.IntN(maxLen))}
		for j := range s.Tags {
			s.Tags[j] = string(rune('A' + rng.IntN(tags)))
		}
		sents = append(sents, s)
	}
	return corpus(t, sents)
}

func corpus(t testing.TB, sents []*format.Sentence) *dmv.Corpus {
	t.Helper()
	c, err := dmv.NewCorpus(sents, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// SameForWorkers trains with 1, 2 and 3 workers and fails unless the
// three models, as written, are identical to the last bit.
func SameForWorkers(t testing.TB, tags *dmv.TagSet, train func(workers int) (*dmv.Params, error)) {
	t.Helper()
	var first []byte
	for _, workers := range []int{1, 2, 3} {
		model, err := train(workers)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := dmv.WriteTable(&b, tags, model, format.Prob, nil); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b.Bytes()
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Fatalf("models differ between 1 and %d workers", workers)
		}
	}
}

// Converted runs convert (a treebank reader) into a buffer and keeps the
// sentences it writes of length ≤ maxLen: a test's "program | filterlen
// maxLen".
func Converted(t testing.TB, maxLen int, convert func(w io.Writer) error) []*format.Sentence {
	t.Helper()
	var out bytes.Buffer
	if err := convert(&out); err != nil {
		t.Fatal(err)
	}
	all, err := pipeline.ReadSentences(pipeline.Source{Stdin: &out})
	if err != nil {
		t.Fatal(err)
	}
	var sents []*format.Sentence
	for _, s := range all {
		if s.Len() <= maxLen {
			sents = append(sents, s)
		}
	}
	return sents
}
