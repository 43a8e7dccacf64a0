package dmv

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchSentences draws count random tag strings of length n over 35 tags.
func benchSentences(count, n int) [][]int {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	out := make([][]int, count)
	for i := range out {
		out[i] = make([]int, n)
		for j := range out[i] {
			out[i][j] = rng.IntN(35)
		}
	}
	return out
}

// BenchmarkChart measures one sentence's E-step (load, inside, outside,
// counts) and its Viterbi parse, per sentence length.
func BenchmarkChart(b *testing.B) {
	w := randomWeights(rand.New(rand.NewPCG(1, 1)), 35, true)
	for _, n := range []int{10, 20, 40} {
		sents := benchSentences(64, n)
		b.Run(fmt.Sprintf("estep/len%d", n), func(b *testing.B) {
			c, counts := NewChart(n), NewParams(35)
			for i := 0; b.Loop(); i++ {
				s := sents[i%len(sents)]
				c.Load(s, w, nil)
				c.Inside()
				c.Outside()
				c.AddCounts(s, counts, 1)
			}
		})
		b.Run(fmt.Sprintf("viterbi/len%d", n), func(b *testing.B) {
			c, heads := NewChart(n), make([]int, n)
			for i := 0; b.Loop(); i++ {
				s := sents[i%len(sents)]
				c.Load(s, w, nil)
				c.Viterbi(heads)
			}
		})
	}
}

// BenchmarkEStep measures a whole E-step (EStepper.Run) over 2,000
// sentences of one length, with 1 and 2 workers, in sentences per second.
func BenchmarkEStep(b *testing.B) {
	w := randomWeights(rand.New(rand.NewPCG(1, 1)), 35, true)
	for _, n := range []int{10, 20, 40} {
		sents := benchSentences(2000, n)
		c := CorpusFromNumbers(NewTagSet(), sents)
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("len%d/workers%d", n, workers), func(b *testing.B) {
				e := NewEStepper(c)
				for b.Loop() {
					e.Run(w, EStepOptions{Workers: workers})
				}
				b.ReportMetric(float64(len(sents)*b.N)/b.Elapsed().Seconds(), "sentences/s")
			})
		}
	}
}
