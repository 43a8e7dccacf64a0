package nbhd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/stages/dmv"
)

func BenchmarkZZLen(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const tags = 35
	w := dmv.NewParams(tags)
	for _, tab := range w.Tables() {
		for i := range tab {
			tab[i] = math.Exp(rng.NormFloat64())
		}
	}
	for _, n := range []int{1, 2, 3, 5, 7, 10} {
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
		l, _ := Build(Del1OrTrans1, x, tags)
		c := dmv.NewLatticeChart()
		b.Run(fmt.Sprintf("d1t1/len%d", n), func(b *testing.B) {
			for b.Loop() {
				c.Load(l, w, nil)
				c.Inside()
				c.Outside()
				c.AddCounts(counts, 1)
			}
		})
	}
}
