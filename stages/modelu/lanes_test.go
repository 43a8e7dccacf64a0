package modelu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// withLanes runs f with Objective's lanes on (the plain-Go lanes in a
// build without GOEXPERIMENT=simd) or off, then restores the kernel.
func withLanes(on bool, f func()) {
	old := laneKernel
	defer func() { laneKernel = old }()
	laneKernel = ""
	if on {
		laneKernel = "lanes"
	}
	f()
}

// TestLanesBitForBit checks Objective with lanes (every instance's chart
// filled first, up to eight of one shape at once, the chunks adding up
// afterwards) against the scalar charts one by one: the same objective
// and gradient to the bit, for plain and spelling features and several
// neighbourhoods, at small weights, large ones (potentials underflowing
// to 0, so that the lanes' masks skip terms; some Z out of range) and
// extreme ones, with one and two workers; and that most charts ran in
// lanes.
func TestLanesBitForBit(t *testing.T) {
	sents := corpora.SampledSentences(t, 150, 25, 3, 8, 1, 11)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range sents {
		for range s.Tags {
			w := make([]byte, 2+rng.IntN(5))
			for i := range w {
				w[i] = "aeiklmnrst"[rng.IntN(10)]
			}
			s.Words = append(s.Words, string(w))
		}
	}
	tags := corpusTags(sents)
	for _, c := range []struct {
		kind     string
		spelling bool
	}{{nbhd.Del1OrTrans2, true}, {nbhd.Trans2, false}, {nbhd.Dynasearch, true}, {nbhd.Del1, false}} {
		m := New(tags, c.spelling)
		p, err := NewProblem(m, sents, c.kind, 2, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, scale := range []float64{0.3, 10, 40, 800} {
			theta := make([]float64, len(m.Theta))
			for i := range theta {
				theta[i] = scale * rng.NormFloat64()
			}
			want := make([]float64, len(theta))
			var wantObj float64
			withLanes(false, func() { wantObj = p.Objective(theta, 2, 2, want) })
			for _, workers := range []int{1, 2} {
				got := make([]float64, len(theta))
				var obj float64
				withLanes(true, func() { obj = p.Objective(theta, 2, workers, got) })
				if math.Float64bits(obj) != math.Float64bits(wantObj) {
					t.Errorf("%s spelling %v, weights ×%g, %d workers: objective %v with lanes, %v without", c.kind, c.spelling, scale, workers, obj, wantObj)
				}
				for f := range got {
					if math.Float64bits(got[f]) != math.Float64bits(want[f]) {
						t.Fatalf("%s spelling %v, weights ×%g, %d workers: feature %d: %v with lanes, %v without", c.kind, c.spelling, scale, workers, f, got[f], want[f])
					}
				}
			}
		}
		inLanes := 0
		for _, u := range p.units {
			inLanes += len(u.ins)
		}
		if inLanes < len(sents) {
			t.Errorf("%s spelling %v: %d of %d charts in lanes", c.kind, c.spelling, inLanes, 2*len(sents))
		}
	}
}
