package ccm_test

import (
	"fmt"
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/treebanks"
)

// BenchmarkEMIterationSinica10 is one CCM EM iteration (E-step and
// M-step) over the Chinese sample ≤ 10 (5,500 sentences); the target is
// 5 ms with 2 workers.
func BenchmarkEMIterationSinica10(b *testing.B) {
	c, m := floorInput(b)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				cnt := m.EStep(c, workers)
				if _, err := ccm.MStep(cnt, c.Sym, ccm.Model1, ccm.KleinSmoothing); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTrainLoopSinica10 is Train's loop (stages/emloop) for 10 EM
// iterations over the Chinese sample ≤ 10 with 2 workers, per iteration:
// the loop's own cost beside BenchmarkEMIterationSinica10's.
func BenchmarkTrainLoopSinica10(b *testing.B) {
	sents := corpora.TreebankTrees(b, treebanks.Sinica, 10)
	c := corpusOf(b, sents)
	for b.Loop() {
		if _, n, err := ccm.Train(c, ccm.Options{MaxIter: 10, Tol: 1e-300, Workers: 2}); err != nil || n != 10 {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10/1e6, "ms/iter")
}
