package modelu

import (
	"math"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// TestSharedShapes checks that the lattices of one shape get one, and
// that an instance of a shared shape gives, bit for bit, the log Z and
// the gradient of an instance of its own.
func TestSharedShapes(t *testing.T) {
	m := New([]string{"CD", "DT", "NN", "NNS", "RB", "VBD", "VBP", "VBZ"}, true)
	sents := corpus()
	ss, err := Features(m, sents)
	if err != nil {
		t.Fatal(err)
	}
	shared := newShapes(0)
	theta := make([]float64, len(m.Theta))
	for i := range theta {
		theta[i] = math.Sin(float64(i))
	}
	for i, x := range ss {
		l, err := nbhd.Build(nbhd.Del1OrTrans2, x.IDs, len(x.Sym))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []*dmv.Lattice{dmv.ChainLattice(x.IDs), l} {
			in, err := shared.instance(m, l, newPairTable(x.Sym))
			if err != nil {
				t.Fatal(err)
			}
			own := NewInstance(m, l, x.Sym)
			g1, g2 := make([]float64, len(theta)), make([]float64, len(theta))
			if z1, z2 := in.Expect(theta, g1, 1), own.Expect(theta, g2, 1); z1 != z2 {
				t.Errorf("sentence %d: log Z %v with a shared shape, %v with its own", i+1, z1, z2)
			}
			for f := range g1 {
				if g1[f] != g2[f] {
					t.Fatalf("sentence %d: feature %d: %v with a shared shape, %v with its own", i+1, f, g1[f], g2[f])
				}
			}
		}
	}
	// sentences 2 and 4 have 4 words each, no tag repeated: their chains
	// and their neighbourhoods have one shape each
	if len(shared.m) != 6 {
		t.Errorf("%d shapes for 4 sentences' chains and neighbourhoods, want 6", len(shared.m))
	}
}

// TestShapeOverMemory checks that a shape whose sums would take more
// than the limit is refused before they are listed.
func TestShapeOverMemory(t *testing.T) {
	l, err := nbhd.Build(nbhd.Del1OrTrans2, []int{0, 1, 2, 3, 4, 5}, 6)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newShape(l, 1000); err == nil || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("a shape over 1000 bytes: error %v, want one naming --max-memory", err)
	}
	if _, err := newShape(l, 1<<30); err != nil {
		t.Error(err)
	}
}
