package dmv

import (
	"fmt"
	"math/rand/v2"
)

// Initializers (DESIGN.md §5.2). Each but uniform and random is one
// special E-step followed by an M-step.
const (
	InitZero    = "zero"    // all weights 1: the uniform posterior over trees
	InitKM      = "km"      // Klein & Manning's harmonic start, in Smith's form
	InitLocal   = "local"   // edge weight 1 + 1/|i−j|
	InitUniform = "uniform" // every multinomial uniform
	InitRandom  = "random"  // every multinomial from a flat Dirichlet
)

// Initializers lists the names InitialModel accepts.
var Initializers = []string{InitZero, InitKM, InitLocal, InitUniform, InitRandom}

// InitOptions configure InitialModel.
type InitOptions struct {
	Lambda  float64 // add-λ in the initial M-step
	Seed    uint64  // for random
	Workers int
}

// InitialModel builds a starting model for the corpus.
//
// km is Smith's (2006, Eq. 3.14) reading of Klein & Manning's harmonic
// initializer: the posterior over trees whose score is the product of
// 1/|i−j| over non-root edges (root, stop and cont weights all 1),
// computed by the ordinary inside–outside; the M-step of those expected
// counts is the model. Klein's own text leaves the stop counts
// unspecified; this form fixes them by the same posterior.
func InitialModel(c *Corpus, name string, opts InitOptions) (*Params, error) {
	t := c.Tags.Len()
	ones := NewParams(t)
	ones.Fill(1)
	var dist func(int) float64
	switch name {
	case InitZero:
	case InitKM:
		dist = func(d int) float64 { return 1 / float64(max(d, 1)) }
	case InitLocal:
		dist = func(d int) float64 { return 1 + 1/float64(max(d, 1)) }
	case InitUniform:
		return MStep(NewParams(t), 1), nil
	case InitRandom:
		rng := rand.New(rand.NewPCG(opts.Seed, 0x5eed))
		draws := NewParams(t)
		for _, tab := range draws.Tables() {
			for i := range tab {
				tab[i] = rng.ExpFloat64() // Gamma(1): normalised, a flat Dirichlet
			}
		}
		return MStep(draws, 0), nil
	default:
		return nil, fmt.Errorf("unknown initializer %q (want one of %v)", name, Initializers)
	}
	res := NewEStepper(c).Run(ones, EStepOptions{Dist: dist, Workers: opts.Workers})
	return MStep(res.Counts, opts.Lambda), nil
}
