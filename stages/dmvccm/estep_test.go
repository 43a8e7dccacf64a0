package dmvccm

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
)

// randomSentences are sentences of 1..maxLen random tags.
func randomSentences(rng *rand.Rand, count, maxLen, tags int) []*format.Sentence {
	out := make([]*format.Sentence, count)
	for i := range out {
		n := 1 + rng.IntN(maxLen)
		s := &format.Sentence{ID: strconv.Itoa(i)}
		for range n {
			s.Tags = append(s.Tags, "T"+strconv.Itoa(rng.IntN(tags)))
		}
		out[i] = s
	}
	return out
}

// corpusAndModels builds both corpora of sents with a random DMV and a
// CCM after one EM iteration.
func corpusAndModels(t testing.TB, sents []*format.Sentence) (*dmv.Corpus, *ccm.Corpus, *dmv.Params, *ccm.Model) {
	rng := rand.New(rand.NewPCG(9, 10))
	dc, err := dmv.NewCorpus(sents, nil)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := ccm.NewCorpus(tagsOf(sents), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := dmv.NewParams(dc.Tags.Len())
	for _, tab := range [][]float64{p.Root, p.Child, p.Stop, p.Cont} {
		for i := range tab {
			tab[i] = 0.05 + rng.Float64()
		}
	}
	m, _, err := ccm.Train(cc, ccm.Options{MaxIter: 1})
	if err != nil {
		t.Fatal(err)
	}
	return dc, cc, p, m
}

// TestEStepSameForWorkers: the corpus E-step's counts and likelihood do
// not depend on the number of workers, to the bit, and equal the
// sentence-by-sentence sums of the chart.
func TestEStepSameForWorkers(t *testing.T) {
	sents := randomSentences(rand.New(rand.NewPCG(1, 1)), 300, 8, 5)
	dc, cc, p, m := corpusAndModels(t, sents)
	es := NewEStepper(dc, cc)
	one, oneCCM := es.EStep(p, m, 1)
	for _, w := range []int{2, 3, 8} {
		got, gotCCM := es.EStep(p, m, w)
		if gotCCM.LogLik != oneCCM.LogLik || !slices.Equal(got.Child, one.Child) || !slices.Equal(got.Stop, one.Stop) ||
			!slices.Equal(got.Cont, one.Cont) || !slices.Equal(got.Root, one.Root) ||
			!slices.Equal(gotCCM.SpanT, oneCCM.SpanT) || !slices.Equal(gotCCM.ContextT, oneCCM.ContextT) {
			t.Errorf("%d workers give different counts from one", w)
		}
	}
	// Against the chart, sentence by sentence.
	want := dmv.NewParams(p.T)
	ll := 0.0
	var ch Chart
	for k, s := range cc.Sentences {
		ch.Inside(s.N, WeightsFromDMV(p, dc.Sent(k, nil)), m.SpanFactors(cc, k))
		ll += ch.LogProb()
		ch.Outside()
		addDMVCounts(want, dc.Sent(k, nil), ch.DMVCounts())
	}
	if relErr(oneCCM.LogLik, ll) > 1e-12 {
		t.Errorf("log-likelihood %v, sentence by sentence %v", oneCCM.LogLik, ll)
	}
	for i := range want.Child {
		if relErr(one.Child[i], want.Child[i]) > 1e-9 {
			t.Fatalf("child count %d: %v, want %v", i, one.Child[i], want.Child[i])
		}
	}
}

// BenchmarkEStepCorpus compares one corpus E-step (every sentence's
// inside, outside and counts, summed) of the DMV (stages/dmv's EStepper)
// and of DMV+CCM on the same 500 random sentences of 1–10 tags; the
// acceptance target is DMV+CCM within 3× the DMV. Run with -cpu 1,2.
func BenchmarkEStepCorpus(b *testing.B) {
	sents := randomSentences(rand.New(rand.NewPCG(3, 4)), 500, 10, 35)
	dc, cc, p, m := corpusAndModels(b, sents)
	b.Run("dmv", func(b *testing.B) {
		es := dmv.NewEStepper(dc)
		for b.Loop() {
			es.Run(p, dmv.EStepOptions{})
		}
	})
	b.Run("dmv+ccm", func(b *testing.B) {
		es := NewEStepper(dc, cc)
		for b.Loop() {
			es.EStep(p, m, 0)
		}
	})
}

// TestViterbiZeroProbability: a sentence whose every derivation has
// probability 0 (a held-out one with attachments the DMV never saw)
// still gets a tree, the first in the tie order.
func TestViterbiZeroProbability(t *testing.T) {
	sents := randomSentences(rand.New(rand.NewPCG(2, 2)), 1, 1, 3)
	sents[0].Tags = []string{"A", "B", "C", "D", "E"}
	_, cc, p, m := corpusAndModels(t, sents)
	for i := range p.Child {
		p.Child[i] = 0
	}
	got := Viterbi(5, WeightsFromDMV(p, []int{0, 1, 2, 3, 4}), m.SpanFactors(cc, 0))
	if !math.IsInf(got.LogMax, -1) {
		t.Errorf("LogMax %v, want −Inf", got.LogMax)
	}
	if want := []int{0, 1, 2, 3, 4}; !slices.Equal(got.Heads, want) {
		t.Errorf("heads %v, want the right chain %v", got.Heads, want)
	}
}

// TestEStepZeroProbability: a sentence of probability 0 under the product
// (the DMV half gives every tree 0) makes the log-likelihood −Inf, adds
// no DMV counts (the others' are as without it) and adds the CCM alone's
// bracket posteriors, never a NaN.
func TestEStepZeroProbability(t *testing.T) {
	sents := randomSentences(rand.New(rand.NewPCG(5, 5)), 40, 6, 4)
	sents = append(sents, &format.Sentence{ID: "zero", Tags: []string{"T0", "T1", "T2"}})
	dc, cc, p, m := corpusAndModels(t, sents)
	es := NewEStepper(dc, cc)
	// Attachments between T0, T1, T2 impossible: the last sentence has
	// no tree; the others lose the trees that use them.
	for _, h := range []int{0, 1, 2} {
		for _, a := range []int{0, 1, 2} {
			for d := range 2 {
				p.Child[p.ChildIndex(h, d, a)] = 0
			}
		}
	}
	got, gotCCM := es.EStep(p, m, 2)
	if !math.IsInf(gotCCM.LogLik, -1) {
		t.Fatalf("loglik %v, want −Inf", gotCCM.LogLik)
	}
	for _, tab := range got.Tables() {
		for _, v := range tab {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("a DMV count is %v", v)
			}
		}
	}
	// Without the zero sentence, the same DMV counts.
	dc2, err := dmv.NewCorpus(sents[:len(sents)-1], dc.Tags)
	if err != nil {
		t.Fatal(err)
	}
	cc2, err := ccm.NewCorpus(tagsOf(sents[:len(sents)-1]), cc.Sym)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := NewEStepper(dc2, cc2).EStep(p, m, 2)
	for i := range want.Child {
		if relErr(got.Child[i], want.Child[i]) > 1e-12 {
			t.Fatalf("child count %d: %v, want %v", i, got.Child[i], want.Child[i])
		}
	}
	// The zero sentence's CCM posteriors are the CCM's alone.
	last := cc.Sentences[len(sents)-1]
	post, _ := m.Posteriors(cc, len(sents)-1)
	if g, w := es.post[last.Span(0, 2)], post[0][2]; relErr(g, w) > 1e-12 || !(w > 0 && w < 1) {
		t.Errorf("posterior of [0,2) %v, the CCM's %v", g, w)
	}
}
