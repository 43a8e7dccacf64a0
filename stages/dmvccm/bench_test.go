package dmvccm

import (
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
)

// BenchmarkSentence10 compares one length-10 sentence's E-step under the
// DMV alone (stages/dmv's split-head chart, O(n³)) and under DMV+CCM
// (this package's O(n⁴) chart, with its posteriors and counts); the
// acceptance target is DMV+CCM within 3× the DMV.
func BenchmarkSentence10(b *testing.B) {
	const n, tags = 10, 35
	rng := rand.New(rand.NewPCG(1, 2))
	p := dmv.NewParams(tags)
	for _, tab := range [][]float64{p.Root, p.Child, p.Stop, p.Cont} {
		for i := range tab {
			tab[i] = 0.05 + rng.Float64()
		}
	}
	sents := make([][]int, 64)
	names := make([][]string, len(sents))
	for i := range sents {
		for range n {
			t := rng.IntN(tags)
			sents[i] = append(sents[i], t)
			names[i] = append(names[i], string(rune('A'+t)))
		}
	}
	c, err := ccm.NewCorpus(names, nil)
	if err != nil {
		b.Fatal(err)
	}
	m, _, err := ccm.Train(c, ccm.Options{MaxIter: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("dmv", func(b *testing.B) {
		ch, counts := dmv.NewChart(n), dmv.NewParams(tags)
		for i := 0; b.Loop(); i++ {
			s := sents[i%len(sents)]
			ch.Load(s, p, nil)
			ch.Inside()
			ch.Outside()
			ch.AddCounts(s, counts, 1)
		}
	})
	b.Run("dmv+ccm", func(b *testing.B) {
		var chart Chart
		for i := 0; b.Loop(); i++ {
			k := i % len(sents)
			chart.Inside(n, WeightsFromDMV(p, sents[k]), m.SpanFactors(c, k))
			chart.Outside()
			chart.Brackets()
			chart.DMVCounts()
		}
	})
}
