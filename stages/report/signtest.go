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

// Sign runs the test of b against a (they hold the same sentences: see
// sameCorpus): score --against's at the level of sentences.
func Sign(a, b *Run) SignTest {
	s := compare(a, b).Sentences
	return SignTest{Wins: s.Wins, Losses: s.Losses, Ties: s.Ties, P: s.P}
}

// compare is score --against's sign test of b's parses against a's,
// root counted.
func compare(a, b *Run) *score.SignTest {
	gold, pa, pb := make([][]int, len(a.Sentences)), make([][]int, len(a.Sentences)), make([][]int, len(a.Sentences))
	for k, s := range a.Sentences {
		gold[k], pa[k], pb[k] = s.Heads, s.Pred, b.Sentences[k].Pred
	}
	return score.CompareHeads(a.Name, score.RootCounted, gold, pb, pa)
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
