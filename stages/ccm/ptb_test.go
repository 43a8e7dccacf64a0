package ccm_test

import (
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/score"
	"github.com/grind-nlp/grind/stages/treebanks"
)

// bracketScore decodes every sentence of c with m and scores the brackets
// against the gold trees of sents.
func bracketScore(t *testing.T, m *ccm.Model, c *ccm.Corpus, sents []*format.Sentence, dec ccm.Decoder) score.BracketReport {
	t.Helper()
	var tally score.BracketTally
	for k, s := range sents {
		gold, n, err := score.GoldBrackets(s.Tree)
		if err != nil || n != s.Len() {
			t.Fatalf("%s: %v", s.ID, err)
		}
		pred, _, _ := m.Parse(c, k, dec)
		tally.Add(gold, pred, n)
	}
	return tally.Report("pred_spans")
}

func tagsOf(sents []*format.Sentence) [][]string {
	out := make([][]string, len(sents))
	for i, s := range sents {
		out[i] = s.Tags
	}
	return out
}

// corpusOf is the CCM corpus of sents' tags.
func corpusOf(tb testing.TB, sents []*format.Sentence) *ccm.Corpus {
	tb.Helper()
	c, err := ccm.NewCorpus(tagsOf(sents), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestCCMOnPTB10 trains the CCM by EM on the PTB sample ≤ 10 (all 555
// sentences, Klein's protocol: train and evaluate on the same sentences)
// and reports bracket scores; Klein has F1 71.9 on full WSJ10. Run with
// -v for the numbers.
func TestCCMOnPTB10(t *testing.T) {
	if testing.Short() {
		t.Skip("EM run")
	}
	sents := corpora.PTBTrees(t, 10)
	c := corpusOf(t, sents)
	for _, v := range []ccm.Variant{ccm.Model1, ccm.Model2} {
		var last float64
		m, iters, err := ccm.Train(c, ccm.Options{Variant: v, Observe: func(it format.Iteration, _ *ccm.Model) error { last = float64(it.Objective); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		vit := bracketScore(t, m, c, sents, ccm.Viterbi)
		mbr := bracketScore(t, m, c, sents, ccm.MBR)
		t.Logf("CCM model %d, split start, %d EM iterations, objective (log-likelihood + log prior) %.1f", v, iters, last)
		for _, r := range []struct {
			name string
			r    score.BracketReport
		}{{"viterbi", vit}, {"mbr", mbr}} {
			t.Logf("  %-7s standard UP/UR/F1 %.1f/%.1f/%.1f  Klein' F1 %.1f  Smith-Eisner F1 %.1f  crossing %.2f",
				r.name, 100*r.r.Standard.Precision, 100*r.r.Standard.Recall, 100*r.r.Standard.F1,
				100*r.r.Prime.F1, 100*r.r.SmithEisner.F1, r.r.Crossing)
		}
		if vit.Standard.F1 < 0.689 {
			t.Errorf("model %d: F1 %.1f, more than 3 points below Klein's 71.9", v, 100*vit.Standard.F1)
		}
	}
}

// TestCCMOnSpanishAndChinese10 trains the CCM on the Spanish and Chinese
// samples ≤ 10 (train = test, as Klein) and logs the bracket scores next
// to the baselines'; the CCM must beat RANDOM's expectation. Run with -v.
func TestCCMOnSpanishAndChinese10(t *testing.T) {
	if testing.Short() {
		t.Skip("EM runs")
	}
	for _, f := range []treebanks.Format{treebanks.CESS, treebanks.Sinica} {
		sents := corpora.TreebankTrees(t, f, 10)
		c := corpusOf(t, sents)
		m, iters, err := ccm.Train(c, ccm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := bracketScore(t, m, c, sents, ccm.Viterbi)
		t.Logf("%s ≤10 (%d sentences): CCM %d iterations, standard UP/UR/F1 %.1f/%.1f/%.1f (RANDOM %.1f, UBOUND %.1f), Smith-Eisner F1 %.1f",
			f, len(sents), iters, 100*r.Standard.Precision, 100*r.Standard.Recall, 100*r.Standard.F1,
			100*r.Random.F1, 100*r.UBound.F1, 100*r.SmithEisner.F1)
		if r.Standard.F1 <= r.Random.F1 {
			t.Errorf("%s: CCM F1 %.3f not above RANDOM %.3f", f, r.Standard.F1, r.Random.F1)
		}
	}
}
