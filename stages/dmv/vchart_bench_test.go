package dmv

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkValenceChart measures the E-step of one sentence (inside,
// outside, counts) on sentences of 10 and 20 tokens, for the plain DMV
// (stop 2, child 1) and EVG (stop 2, child 2), both on the DMV's chart,
// and stop 3, child 3 on the valence chart.
func BenchmarkValenceChart(b *testing.B) {
	for _, v := range []Valence{{2, 1}, {2, 2}, {3, 3}} {
		w := randomValenceWeights(rand.New(rand.NewPCG(1, 1)), 35, v, true)
		for _, n := range []int{10, 20} {
			sents := benchSentences(200, n)
			b.Run(fmt.Sprintf("stop%d-child%d/len%d", v.Stop, v.Child, n), func(b *testing.B) {
				c := NewChart(n)
				counts := NewValenceParams(35, v)
				for i := 0; b.Loop(); i++ {
					s := sents[i%len(sents)]
					c.Load(s, w, nil)
					c.Inside()
					c.Outside()
					c.AddCounts(s, counts, 1)
				}
			})
		}
	}
}
