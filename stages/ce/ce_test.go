package ce

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

func randomWeights(rng *rand.Rand, tags int, scale float64) *dmv.Params {
	w := dmv.NewParams(tags)
	for _, tab := range w.Tables() {
		for i := range tab {
			tab[i] = scale * rng.NormFloat64()
		}
	}
	return w
}

// The gradient is the derivative of the objective: against central
// differences (Richardson-extrapolated, so their own error is far below
// the tolerance), every weight, every neighbourhood, with and without
// the prior and Model L.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := corpora.Random(t, rng, 6, 5, 3)
	for _, kind := range nbhd.Kinds {
		p, err := NewProblem(c, kind, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Settings{{}, {Sigma2: 1, Delta: -0.3}, {Sigma2: 0.5, Delta: 0.2}} {
			w := randomWeights(rng, c.Tags.Len(), 0.7)
			v := p.Evaluate(w, s)
			grad := Vector(v.Gradient, nil)
			x := Vector(w, nil)
			f := func(x []float64) float64 {
				q := dmv.NewParams(w.T)
				FromVector(x, q)
				return p.Evaluate(q, s).Objective
			}
			diff := func(i int, h float64) float64 {
				y := append([]float64(nil), x...)
				y[i] = x[i] + h
				fp := f(y)
				y[i] = x[i] - h
				return (fp - f(y)) / (2 * h)
			}
			for i := range x {
				const h = 1e-3
				fd := (4*diff(i, h/2) - diff(i, h)) / 3
				if math.Abs(fd-grad[i]) > 1e-6*math.Max(1, math.Abs(grad[i])) {
					t.Fatalf("%s %+v: weight %d: gradient %v, finite differences %v", kind, s, i, grad[i], fd)
				}
			}
		}
	}
}

// x is in its own neighbourhood, so without the prior the objective is
// at most 0; and the number of workers changes no bit of the result.
func TestObjectiveBoundAndWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := corpora.Random(t, rng, 150, 8, 4)
	for _, kind := range nbhd.Kinds {
		p, err := NewProblem(c, kind, 1)
		if err != nil {
			t.Fatal(err)
		}
		w := randomWeights(rng, c.Tags.Len(), 1)
		one := p.Evaluate(w, Settings{Workers: 1, Delta: -0.1})
		if one.Objective > 1e-9 {
			t.Errorf("%s: objective %v > 0", kind, one.Objective)
		}
		three := p.Evaluate(w, Settings{Workers: 3, Delta: -0.1})
		if one.Objective != three.Objective || fmt.Sprint(one.Gradient) != fmt.Sprint(three.Gradient) {
			t.Errorf("%s: 1 and 3 workers differ: %v vs %v", kind, one.Objective, three.Objective)
		}
	}
}

// length's shared partition (one lattice per length) equals running each
// sentence's own length lattice.
func TestLengthPartitionIsShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := corpora.Random(t, rng, 40, 6, 3)
	p, err := NewProblem(c, nbhd.Length, 2)
	if err != nil {
		t.Fatal(err)
	}
	if p.Lattices != nil {
		t.Fatal("length built a lattice per sentence")
	}
	w := randomWeights(rng, c.Tags.Len(), 1)
	shared := p.Evaluate(w, Settings{Delta: -0.2})
	// The same objective with a lattice per sentence.
	each := &Problem{Corpus: c, Kind: nbhd.Length, Sents: c.Sentences(), Lattices: make([]*dmv.Lattice, c.Len()), apart: dmv.NewEStepper(c)}
	for i, x := range each.Sents {
		each.Lattices[i] = nbhd.LengthLattice(len(x), c.Tags.Len())
	}
	per := each.Evaluate(w, Settings{Delta: -0.2})
	if math.Abs(shared.Objective-per.Objective) > 1e-9*math.Abs(per.Objective) {
		t.Fatalf("shared %v, per sentence %v", shared.Objective, per.Objective)
	}
	g1, g2 := Vector(shared.Gradient, nil), Vector(per.Gradient, nil)
	for i := range g1 {
		if math.Abs(g1[i]-g2[i]) > 1e-9*math.Max(1, math.Abs(g2[i])) {
			t.Fatalf("gradient %d: shared %v, per sentence %v", i, g1[i], g2[i])
		}
	}
}

func TestLogWeightsClamp(t *testing.T) {
	p := dmv.NewParams(1)
	p.Root[0], p.Stop[0] = 1, 0.5
	w := LogWeights(p)
	if w.Root[0] != 0 || w.Stop[0] != math.Log(0.5) || w.Cont[0] != MinWeight {
		t.Fatalf("log weights %v", w)
	}
}

// Weights far outside what training meets give either a value with a
// finite gradient or −Inf (no value), never NaN.
func TestExtremeWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	c := corpora.Random(t, rng, 30, 9, 4)
	for _, kind := range []string{nbhd.Del1OrTrans1, nbhd.Length} {
		p, err := NewProblem(c, kind, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, scale := range []float64{50, 150, 400} {
			v := p.Evaluate(randomWeights(rng, c.Tags.Len(), scale), Settings{Sigma2: 1})
			if math.IsNaN(v.Objective) || math.IsInf(v.Objective, 1) {
				t.Fatalf("%s ×%v: objective %v", kind, scale, v.Objective)
			}
			if !math.IsInf(v.Objective, -1) {
				for _, g := range Vector(v.Gradient, nil) {
					if math.IsNaN(g) || math.IsInf(g, 0) {
						t.Fatalf("%s ×%v: objective %v with gradient entry %v", kind, scale, v.Objective, g)
					}
				}
			}
		}
	}
}

// Every neighbourhood's Σ log Z(x) is the sentences' own, each from the
// sentence chart alone, whichever way the objective takes it: from the
// lattice beside Z(N(x)), or from the DMV's E-step where the lattice does
// not give it (length, dynasearch and the neighbourhoods without
// templates, which once lost it).
func TestOwnTermsEveryNeighbourhood(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := corpora.Random(t, rng, 30, 6, 3)
	w := randomWeights(rng, c.Tags.Len(), 0.7)
	for _, s := range []Settings{{Workers: 2}, {Workers: 2, Delta: -0.2}} {
		pot, dist := dmv.ExpWeights(w), dmv.DistanceFactors(s.Delta, c.MaxLen)
		sc, want := dmv.NewChart(c.MaxLen), 0.0
		for _, x := range c.Sentences() {
			sc.Load(x, pot, dist)
			want += sc.Inside()
		}
		for _, kind := range nbhd.Kinds {
			p, err := NewProblem(c, kind, 2)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Evaluate(w, s).LogZ; math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("%s, δ = %v: Σ log Z(x) %v, the sentence chart's %v", kind, s.Delta, got, want)
			}
		}
	}
}
