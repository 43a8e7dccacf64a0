package dmv

import (
	"math"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// A positive δ whose factor e^{δ·d} overflows at the distances of a long
// sentence leaves that sentence out, counted as unusable, instead of
// giving it weight 0 (a log-likelihood of −Inf, silently); a short
// sentence whose distances stay in range is kept.
func TestDistanceOverflowIsUnusable(t *testing.T) {
	long := &format.Sentence{Tags: make([]string, 30)}
	for i := range long.Tags {
		long.Tags[i] = []string{"A", "B"}[i%2]
	}
	c, err := NewCorpus([]*format.Sentence{{Tags: []string{"A", "B", "A"}}, long}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := NewParams(2)
	w.Fill(0.5)
	w.Child[w.ChildIndex(0, Right, 0)] = 0 // an impossible edge: 0·∞ is not 0 in floating point
	const delta = 75                       // e^{75·d} overflows from d = 10 on
	res := NewEStepper(c).Run(w, EStepOptions{Dist: func(d int) float64 { return math.Exp(delta * float64(d)) }, Workers: 1})
	if res.Unusable != 1 || res.ZeroWeight != 0 || math.IsInf(res.LogLik, 0) || math.IsNaN(res.LogLik) {
		t.Fatalf("unusable %d, zero weight %d, log-likelihood %v", res.Unusable, res.ZeroWeight, res.LogLik)
	}
}
