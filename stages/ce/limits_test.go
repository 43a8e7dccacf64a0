package ce

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/memory"
	"github.com/grind-nlp/grind/stages/nbhd"
)

func corpusOf(t *testing.T, lengths ...int) *dmv.Corpus {
	t.Helper()
	var sents []*format.Sentence
	for k, n := range lengths {
		s := &format.Sentence{ID: "s" + string(rune('a'+k)), Tags: make([]string, n)}
		for i := range s.Tags {
			s.Tags[i] = []string{"A", "B", "C"}[(i*7+k)%3]
		}
		sents = append(sents, s)
	}
	c, err := dmv.NewCorpus(sents, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The lattices a corpus keeps are bounded together: forty sentences of
// 40 words, whose del1subseq lattices each fit in 4 MiB, are refused
// under it, in one line naming the limit and how far the built ones got;
// under 1 GiB they are built.
func TestProblemKeptMemoryLimit(t *testing.T) {
	lengths := make([]int, 40)
	for i := range lengths {
		lengths[i] = 40
	}
	c := corpusOf(t, lengths...)
	_, err := NewProblemWithin(c, nbhd.Del1Subseq, 2, 4<<20)
	if err == nil || !strings.HasPrefix(err.Error(), "the del1subseq neighbourhoods of 40 sentences (the longest 40 words) need more than the limit of 4 MiB (--max-memory): the first ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v", err)
	}
	if _, err := NewProblemWithin(c, nbhd.Del1Subseq, 2, 1<<30); err != nil {
		t.Fatal(err)
	}
}

// A neighbourhood over the memory limit is refused when the problem is
// built, naming the sentence; under the limit it is not.
func TestProblemMemoryLimit(t *testing.T) {
	c := corpusOf(t, 4, 60)
	for _, kind := range []string{nbhd.Trans2, nbhd.Del1OrTrans1, nbhd.Length} {
		_, err := NewProblemWithin(c, kind, 1, 1<<20)
		var chart *dmv.MemoryError
		var build *memory.Error // to build it (trans2), before its chart
		if !errors.As(err, &chart) && !errors.As(err, &build) || !strings.Contains(err.Error(), "sentence 2 (sb), 60 words") {
			t.Errorf("%s: got %v", kind, err)
		}
		if _, err := NewProblemWithin(c, kind, 1, 1<<30); err != nil {
			t.Errorf("%s: refused under 1 GiB: %v", kind, err)
		}
	}
}

// Lost finds the sentences a large positive δ puts beyond floating
// point, where the objective only says −Inf.
func TestLostSentences(t *testing.T) {
	c := corpusOf(t, 3, 40, 2)
	for _, kind := range []string{nbhd.Trans1, nbhd.Length} {
		p, err := NewProblem(c, kind, 1)
		if err != nil {
			t.Fatal(err)
		}
		w := dmv.NewParams(c.Tags.Len())
		s := Settings{Delta: 30, Workers: 1}
		if v := p.Evaluate(w, s); !math.IsInf(v.Objective, -1) {
			t.Fatalf("%s: objective %v at δ = 30", kind, v.Objective)
		}
		if n, first := p.Lost(w, s); n != 1 || first != 1 {
			t.Errorf("%s: %d lost, the first %d; want 1, sentence 1", kind, n, first)
		}
		if n, first := p.Lost(w, Settings{Workers: 1}); n != 0 || first != -1 {
			t.Errorf("%s: without δ %d lost, the first %d", kind, n, first)
		}
	}
}

// The acceptance figure: one 150-word sentence's del1ortrans1 template,
// chart and shape, within 64 MiB (it was 0.7 GB), so that a CE
// iteration on it stays under 150 MB.
func TestLongSentenceChartSmall(t *testing.T) {
	c := corpusOf(t, 150)
	p, err := NewProblemWithin(c, nbhd.Del1OrTrans1, 1, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	l := p.Lattices[0]
	if b := l.LaneBytes() + int64(l.ShapeBytes()); b > 64<<20 {
		t.Fatalf("%d MiB", b>>20)
	}
	if v := p.Evaluate(dmv.NewParams(c.Tags.Len()), Settings{Workers: 1}); math.IsInf(v.Objective, 0) || math.IsNaN(v.Objective) {
		t.Fatalf("objective %v", v.Objective)
	}
}
