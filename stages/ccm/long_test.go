package ccm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/stages/dmv"
)

// The log-space chart (the fallback of long sentences and of a model's
// zeros) gives what the scaled chart gives where both hold: the same log
// P(s) and bracket posteriors, to rounding.
func TestLogSpaceAgreesWithScaledChart(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, v := range []Variant{Model1, Model2} {
		c := randomCorpus(rng, 30, 40, 5)
		m := randomModel(rng, c, v)
		for _, s := range c.Sentences {
			w := s.N + 1
			fast, slow := make([]float64, w*w), make([]float64, w*w)
			var ch chart
			lf := m.sentence(c, s, &ch, fast)
			ls := m.logSentence(c, s, &ch, slow, false)
			if relErr(ls, lf) > 1e-12 {
				t.Fatalf("variant %d, %d words: log P %v in log space, %v scaled", v, s.N, ls, lf)
			}
			for i := range fast {
				if math.Abs(fast[i]-slow[i]) > 1e-9 {
					t.Fatalf("variant %d, %d words: posterior %d: %v in log space, %v scaled", v, s.N, i, slow[i], fast[i])
				}
			}
		}
	}
}

// Sentences of 100 and 500 words have finite likelihoods (500 words,
// whose 4⁴⁹⁹ bracketings overflow the scaled chart, through log space),
// and their posteriors are those of binary bracketings: n − 1 brackets of
// two or more words each.
func TestLongSentencesHaveFiniteLikelihoods(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{100, 500} {
		tags := make([]string, n)
		for i := range tags {
			tags[i] = []string{"A", "B", "C", "D", "E", "F"}[rng.IntN(6)]
		}
		c, err := NewCorpus([][]string{tags}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []Variant{Model1, Model2} {
			m := randomModel(rng, c, v)
			post, logP := m.Posteriors(c, 0)
			if math.IsInf(logP, 0) || math.IsNaN(logP) {
				t.Fatalf("variant %d, %d words: log P = %v", v, n, logP)
			}
			sum := 0.0
			for i := 0; i < n; i++ {
				for j := i + 2; j <= n; j++ {
					sum += post[i][j]
				}
			}
			if math.Abs(sum-float64(n-1)) > 1e-6*float64(n) {
				t.Errorf("variant %d, %d words: brackets of two or more words sum to %v, want %d", v, n, sum, n-1)
			}
		}
	}
}

// A span whose distituent probability is 0 must be a constituent: the
// likelihood is the sum over the bracketings that hold it, as enumeration
// gives it; a sentence no bracketing can take has probability 0, and its
// decoding falls back to the DMV's rule (every probability of 0 at
// dmv.Floor), so the bracketing holds as few impossible spans as it can.
func TestZeroProbabilities(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c, err := NewCorpus([][]string{{"A", "B", "C", "D", "E"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := randomModel(rng, c, Model1)
	s := c.Sentences[0]
	forced := c.Yield[s.Span(1, 3)] // "B C": never a distituent
	m.Span[Distituent][forced] = 0
	trees := binaryBracketings(0, s.N)
	total := math.Inf(-1)
	for _, b := range trees {
		total = logAddTest(total, jointLogProb(m, c, s, b, len(trees)))
	}
	if got := m.LogProb(c, 0); relErr(got, total) > 1e-12 {
		t.Errorf("forced span: log P %v, enumeration %v", got, total)
	}
	spans, _, fell := m.Parse(c, 0, Viterbi)
	if fell || !containsSpan(spans, [2]int{1, 3}) {
		t.Errorf("forced span: Viterbi %v (fell back %v)", spans, fell)
	}
	// "A B" may be neither: no bracketing holds both it and "B C".
	m.Span[Constituent][c.Yield[s.Span(0, 2)]] = 0
	m.Span[Distituent][c.Yield[s.Span(0, 2)]] = 0
	if got := m.LogProb(c, 0); !math.IsInf(got, -1) {
		t.Errorf("no bracketing: log P %v, want −Inf", got)
	}
	for _, dec := range []Decoder{Viterbi, MBR} {
		spans, _, fell := m.Parse(c, 0, dec)
		if !fell || len(spans) != s.N-1 {
			t.Errorf("%s: %v, fell back %v; want a bracketing by the fallback", dec, spans, fell)
		}
	}
	// The fallback's best bracketing under floored probabilities uses one
	// impossible span: "A B" as a distituent or "B C" as one, never both.
	spans, _, _ = m.Parse(c, 0, Viterbi)
	if containsSpan(spans, [2]int{0, 2}) == containsSpan(spans, [2]int{1, 3}) {
		t.Errorf("fallback %v: one of [0 2] and [1 3] expected (Floor %g)", spans, dmv.Floor)
	}
}

func containsSpan(spans [][2]int, sp [2]int) bool {
	for _, s := range spans {
		if s == sp {
			return true
		}
	}
	return false
}

func logAddTest(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}
