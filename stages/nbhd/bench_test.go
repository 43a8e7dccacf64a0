package nbhd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/stages/dmv"
)

// BenchmarkLatticeChart is one sentence's CE denominator — load, inside,
// outside and counts over its neighbourhood's lattice — beside the same
// work on the sentence alone (sentence; chain is the sentence as a
// lattice on the lattice chart), for random sentences over 35 tags
// and log-linear potentials; the lattice's size is in the name.
func BenchmarkLatticeChart(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const tags = 35
	w := dmv.NewParams(tags)
	for _, tab := range w.Tables() {
		for i := range tab {
			tab[i] = math.Exp(rng.NormFloat64())
		}
	}
	for _, n := range []int{5, 10, 20} {
		x := make([]int, n)
		for i := range x {
			x[i] = rng.IntN(tags)
		}
		counts := dmv.NewParams(tags)
		b.Run(fmt.Sprintf("sentence/len%d", n), func(b *testing.B) {
			c := dmv.NewChart(n)
			for b.Loop() {
				c.Load(x, w, nil)
				c.Inside()
				c.Outside()
				c.AddCounts(x, counts, 1)
			}
		})
		for _, kind := range []string{"chain", Trans1, Del1OrTrans1, Dynasearch, Trans2, Length} {
			l := dmv.ChainLattice(x) // the sentence, on the lattice chart
			if kind != "chain" {
				var err error
				if l, err = Build(kind, x, tags); err != nil {
					b.Fatal(err)
				}
			}
			c := dmv.NewLatticeChart()
			b.Run(fmt.Sprintf("%s/len%d/states%d-arcs%d", kind, n, l.States(), len(l.Arcs)), func(b *testing.B) {
				for b.Loop() {
					c.Load(l, w, nil)
					c.Inside()
					c.Outside()
					c.AddCounts(counts, 1)
				}
				b.ReportMetric(float64(c.Bytes())/(1<<20), "chart-MiB")
			})
		}
	}
}

// BenchmarkLatticeLanes is BenchmarkLatticeChart's del1ortrans1 case
// as training runs it: 32 sentences of one length as instances of the
// length's template, side by side in the lanes of one chart; ns/sentence
// is the cost per sentence.
func BenchmarkLatticeLanes(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const tags, lanes = 35, 32
	w := dmv.NewParams(tags)
	for _, tab := range w.Tables() {
		for i := range tab {
			tab[i] = math.Exp(rng.NormFloat64())
		}
	}
	for _, n := range []int{5, 10, 20} {
		tmpl := NewTemplate(Del1OrTrans1, n)
		var ls []*dmv.Lattice
		for range lanes {
			x := make([]int, n)
			for i := range x {
				x[i] = rng.IntN(tags)
			}
			ls = append(ls, tmpl.Instance(x))
		}
		counts := dmv.NewParams(tags)
		c := dmv.NewLatticeChart()
		b.Run(fmt.Sprintf("del1ortrans1/len%d", n), func(b *testing.B) {
			for b.Loop() {
				c.LoadLanes(ls, w, nil)
				c.Inside()
				c.Outside()
				c.AddCounts(counts, 1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lanes), "ns/sentence")
			b.ReportMetric(float64(c.Bytes())/(1<<20), "chart-MiB")
		})
	}
}

// BenchmarkBuild is the making of one lattice (automaton, subset
// construction, layering, minimisation) for a sentence of 10 tags.
func BenchmarkBuild(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]int, 10)
	for i := range x {
		x[i] = rng.IntN(8)
	}
	for _, kind := range Kinds {
		b.Run(kind, func(b *testing.B) {
			for b.Loop() {
				Build(kind, x, 35)
			}
		})
	}
}
