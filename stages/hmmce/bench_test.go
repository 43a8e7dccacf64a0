package hmmce

import (
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// BenchmarkObjective_K45: the objective and gradient over 100 random
// sentences of 10 words (V = 1,000), del1ortrans1, one worker; reported
// per token·K² of the sentences. "dict" lets each word take 2 of the 45
// tags, as a tag dictionary does.
func BenchmarkObjective_K45(b *testing.B) {
	for _, dict := range []bool{false, true} {
		name := "nodict"
		if dict {
			name = "dict"
		}
		b.Run(name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			m := &Model{K: 45, V: 1000, Workers: 1}
			if dict {
				m.Allowed = make([]bool, m.V*m.K)
				for w := 0; w < m.V; w++ {
					m.Allowed[w*m.K+w%m.K] = true
					m.Allowed[w*m.K+(w/m.K)%m.K] = true
				}
			}
			var sents [][]int
			var nb []*dmv.Lattice
			for i := 0; i < 100; i++ {
				x := make([]int, 10)
				for j := range x {
					x[j] = r.IntN(m.V)
				}
				l, err := Neighbourhood(nbhd.Del1OrTrans1, x, m.V)
				if err != nil {
					b.Fatal(err)
				}
				sents, nb = append(sents, x), append(nb, l)
			}
			theta := make([]float64, m.Dim())
			for i := range theta {
				theta[i] = 0.01 * r.Float64()
			}
			grad := make([]float64, m.Dim())
			b.ResetTimer()
			for b.Loop() {
				m.Objective(theta, sents, nb, 0, grad)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(1000*45*45), "ns/token·K²")
		})
	}
}
