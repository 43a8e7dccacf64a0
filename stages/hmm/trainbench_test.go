package hmm

import (
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"
)

// BenchmarkTrainLoopPTB is Train's loop (stages/emloop) for 5 EM
// iterations of a bitag HMM, K = 45, over the PTB sample ≤ 10 (555
// sentences) with 2 workers, per iteration.
func BenchmarkTrainLoopPTB(b *testing.B) {
	c, err := NewCorpus(corpora.PTBTrees(b, 10))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r, err := Train(c, Options{Order: 1, States: 45, Estimator: EM, Iterations: 5, Noise: 1, Seed: 1, Workers: 2})
		if err != nil || len(r.Tags) == 0 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/5/1e6, "ms/iter")
}
