package report

import "github.com/grind-nlp/grind/stages/score"

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
	t.P = score.SignTestP(t.Wins, t.Losses)
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
