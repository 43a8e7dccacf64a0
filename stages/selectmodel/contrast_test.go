package selectmodel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// z2 is Z of the two-word string a b under potentials p, by hand: a
// heads b (b its right child) or b heads a (a its left child).
func z2(p *dmv.Params, a, b int) float64 {
	leaf := func(h int) float64 {
		return p.Stop[dmv.DecisionIndex(h, dmv.Left, dmv.Adj)] * p.Stop[dmv.DecisionIndex(h, dmv.Right, dmv.Adj)]
	}
	aHeads := p.Root[a] * p.Stop[dmv.DecisionIndex(a, dmv.Left, dmv.Adj)] *
		p.Cont[dmv.DecisionIndex(a, dmv.Right, dmv.Adj)] * p.Child[p.ChildIndex(a, dmv.Right, b)] *
		p.Stop[dmv.DecisionIndex(a, dmv.Right, dmv.NonAdj)] * leaf(b)
	bHeads := p.Root[b] * p.Stop[dmv.DecisionIndex(b, dmv.Right, dmv.Adj)] *
		p.Cont[dmv.DecisionIndex(b, dmv.Left, dmv.Adj)] * p.Child[p.ChildIndex(b, dmv.Left, a)] *
		p.Stop[dmv.DecisionIndex(b, dmv.Left, dmv.NonAdj)] * leaf(a)
	return aHeads + bHeads
}

// The contrastive objective select-model ranks by is, for TRANS1 on
// two-word sentences, Σ log Z(ab) − log(Z(ab) + Z(ba)), worked by hand.
func TestContrastByHand(t *testing.T) {
	ts := dmv.NewTagSet("A", "B")
	w := dmv.NewParams(2)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tab := range w.Tables() {
		for i := range tab {
			tab[i] = rng.NormFloat64()
		}
	}
	m := &dmv.Table{Tags: ts, Params: w, Unit: format.Weight}
	dev := []*format.Sentence{{Tags: []string{"A", "B"}}, {Tags: []string{"B", "B"}}, {Tags: []string{"B", "A"}}}
	known := []bool{true, false, true} // the second is left out
	got, err := contrast(dev, known, m, nbhd.Trans1, 2)
	if err != nil {
		t.Fatal(err)
	}
	pot := dmv.ExpWeights(w)
	ab, ba := z2(pot, 0, 1), z2(pot, 1, 0)
	want := math.Log(ab) - math.Log(ab+ba) + math.Log(ba) - math.Log(ab+ba)
	if math.Abs(got-want) > 1e-12 {
		t.Fatalf("contrast %v, want %v", got, want)
	}
}
