package tageval

import (
	"fmt"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/score"
)

// SignTest is the paired sign test of two taggings of the same tokens
// (Smith & Eisner 2004, Table 1): tokens the first tags correctly and the
// other does not (wins), the reverse (losses) and the rest (ties), with
// the exact two-sided binomial p-value of so uneven a split under p = ½ —
// score's sign test, at the level of tokens.
type SignTest struct {
	Against string      `json:"against"` // the other tagging's file
	Tokens  score.Signs `json:"tokens"`
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
			okA, okB := x.Tags[j] == g, y.Tags[j] == g
			switch {
			case okA && !okB:
				r.Tokens.Wins++
			case okB && !okA:
				r.Tokens.Losses++
			default:
				r.Tokens.Ties++
			}
		}
	}
	r.Tokens.P = score.SignTestP(r.Tokens.Wins, r.Tokens.Losses)
	return r, nil
}
