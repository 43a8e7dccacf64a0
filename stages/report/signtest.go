package report

import "math"

// SignTest compares two runs sentence by sentence: a sentence is a win
// for B when B attaches more of its tokens correctly (directed, root
// counted) than A, a loss when fewer, a tie otherwise.
type SignTest struct {
	Wins, Losses, Ties int
	// P is the exact two-sided binomial p-value of the wins among the
	// untied sentences under the null that both are equally likely.
	P float64
}

// Sign runs the test of b against a; they hold the same sentences (see
// sameCorpus).
func Sign(a, b *Run) SignTest {
	var t SignTest
	for k, sa := range a.Sentences {
		ca, cb := correct(sa.Heads, sa.Pred), correct(sa.Heads, b.Sentences[k].Pred)
		switch {
		case cb > ca:
			t.Wins++
		case cb < ca:
			t.Losses++
		default:
			t.Ties++
		}
	}
	t.P = signP(t.Wins, t.Losses)
	return t
}

func correct(gold, pred []int) int {
	n := 0
	for i, g := range gold {
		if pred[i] == g {
			n++
		}
	}
	return n
}

// signP is 2·P(X ≤ min(w, l)) for X ~ Binomial(w+l, ½), at most 1. The
// terms are summed in log space: with thousands of sentences, 2^−n
// underflows a float64.
func signP(w, l int) float64 {
	n := w + l
	if n == 0 {
		return 1
	}
	k := min(w, l)
	lgN, _ := math.Lgamma(float64(n + 1))
	logHalfN := float64(n) * math.Log(0.5)
	terms := make([]float64, 0, k+1)
	top := math.Inf(-1)
	for i := 0; i <= k; i++ {
		a, _ := math.Lgamma(float64(i + 1))
		b, _ := math.Lgamma(float64(n - i + 1))
		v := lgN - a - b + logHalfN
		terms = append(terms, v)
		top = math.Max(top, v)
	}
	sum := 0.0
	for _, v := range terms {
		sum += math.Exp(v - top)
	}
	return math.Min(1, 2*math.Exp(top+math.Log(sum)))
}
