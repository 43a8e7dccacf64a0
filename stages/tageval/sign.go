package tageval

import (
	"fmt"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/score"
)

// SignTest is the paired sign test of two taggings of the same tokens
// (Smith & Eisner 2004, Table 1): tokens one tags correctly and the other
// does not, with the exact two-sided binomial p-value of so uneven a
// split under p = ½.
type SignTest struct {
	Tokens int     `json:"tokens"`
	Wins   int     `json:"wins"`   // right in the first, wrong in the second
	Losses int     `json:"losses"` // wrong in the first, right in the second
	P      float64 `json:"p"`
}

// Compare takes two taggings of the same sentences, in the same order,
// and counts the tokens where exactly one has tag = gold tag. Tokens
// whose gold tag is in o.Exclude are not counted.
func Compare(a, b []*format.Sentence, o Options) (SignTest, error) {
	if len(a) != len(b) {
		return SignTest{}, fmt.Errorf("the taggings have %d and %d sentences", len(a), len(b))
	}
	skip := excluded(o)
	var r SignTest
	for i := range a {
		x, y := a[i], b[i]
		if len(x.GoldTags) != len(y.GoldTags) {
			return SignTest{}, fmt.Errorf("sentence %d has %d tokens in one tagging and %d in the other", i+1, len(x.GoldTags), len(y.GoldTags))
		}
		for j, g := range x.GoldTags {
			if g != y.GoldTags[j] {
				return SignTest{}, fmt.Errorf("sentence %d, token %d: gold tags %q and %q differ", i+1, j+1, g, y.GoldTags[j])
			}
			if skip[g] {
				continue
			}
			r.Tokens++
			okA, okB := x.Tags[j] == g, y.Tags[j] == g
			switch {
			case okA && !okB:
				r.Wins++
			case okB && !okA:
				r.Losses++
			}
		}
	}
	r.P = score.SignTestP(r.Wins, r.Losses)
	return r, nil
}
