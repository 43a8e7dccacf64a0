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
	InitKlein   = "klein"   // Klein & Manning's harmonic start, as Klein describes it
	InitLocal   = "local"   // edge weight 1 + 1/|i−j|
	InitUniform = "uniform" // every multinomial uniform
	InitRandom  = "random"  // every multinomial from a flat Dirichlet
)

// Initializers lists the names InitialModel accepts.
var Initializers = []string{InitZero, InitKM, InitKlein, InitLocal, InitUniform, InitRandom}

// InitOptions configure InitialModel.
type InitOptions struct {
	Lambda  float64 // add-λ in the initial M-step
	Seed    uint64  // for random
	Workers int
}

// InitialModel builds a starting model for the corpus.
//
// klein follows Klein's own description instead (harmonicCounts).
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
	case InitKlein:
		return MStep(harmonicCounts(c), opts.Lambda), nil
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

// harmonicCounts are the counts of Klein's description of the harmonic
// start: a first E-step that is not a posterior over trees. In a sentence
// of n tokens every token is the root with mass 1/n, and spreads its
// remaining mass 1 − 1/n over the other tokens as heads in proportion to
// 1/distance. Klein leaves the stop counts open; here they follow the
// mass: a head whose side receives k expected children continues at the
// first decision with mass min(1, k), stops there with the rest, and
// after a first child continues max(0, k − 1) times and stops min(1, k)
// times — the counts of a chain of k children.
func harmonicCounts(c *Corpus) *Params {
	counts := NewParams(c.Tags.Len())
	var mass [2][]float64 // [dir][head]: expected children on that side
	for _, tags := range c.Sents {
		n := len(tags)
		for d := range mass {
			mass[d] = append(mass[d][:0], make([]float64, n)...)
		}
		for dep, td := range tags {
			counts.Root[td] += 1 / float64(n)
			z := 0.0
			for h := range tags {
				if h != dep {
					z += 1 / float64(abs(h-dep))
				}
			}
			for h, th := range tags {
				if h == dep {
					continue
				}
				dir := Right
				if dep < h {
					dir = Left
				}
				m := (1 - 1/float64(n)) / float64(abs(h-dep)) / z
				counts.Child[counts.ChildIndex(th, dir, td)] += m
				mass[dir][h] += m
			}
		}
		for h, th := range tags {
			for dir := Left; dir <= Right; dir++ {
				k := mass[dir][h]
				first := min(1, k)
				counts.Cont[DecisionIndex(th, dir, Adj)] += first
				counts.Stop[DecisionIndex(th, dir, Adj)] += 1 - first
				counts.Cont[DecisionIndex(th, dir, NonAdj)] += max(0, k-1)
				counts.Stop[DecisionIndex(th, dir, NonAdj)] += first
			}
		}
	}
	return counts
}
