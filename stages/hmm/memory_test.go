package hmm

import (
	"fmt"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
)

// The estimate of a training job whose states dominate its memory (one
// iteration and the decoding) is at least what the job holds at its end
// and at most twice what it allocates in all, garbage included: every
// table counted, and legitimate runs not refused.
func TestJobBytesAgainstAllocation(t *testing.T) {
	var sents []*format.Sentence
	for i := range 10 {
		s := &format.Sentence{}
		for j := range 10 {
			s.Words = append(s.Words, fmt.Sprint("w", (i*7+j*3)%50))
		}
		sents = append(sents, s)
	}
	c, err := NewCorpus(sents)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		order, k int
		est      Estimator
	}{{1, 300, EM}, {1, 300, SDA}, {2, 50, EM}, {2, 50, VB}} {
		job := Job{Order: tc.order, K: tc.k, V: len(c.Words), MaxLen: c.MaxLen, Rows: ChunkRows(c), Workers: 1, Train: tc.est}
		allocated, held := testenv.Measure(func() any {
			res, err := Train(c, Options{Order: tc.order, States: tc.k, Estimator: tc.est, Iterations: 1, Noise: 1, AlphaT: 0.1, AlphaE: 0.1, Beta0: 0.5, BetaGrowth: 2, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			return res
		})
		est := job.Bytes()
		t.Logf("order %d, %d states, %s: estimate %d bytes, held %d, allocated %d", tc.order, tc.k, tc.est, est, held, allocated)
		if est < held || est > 2*allocated {
			t.Errorf("order %d, %d states, %s: estimate %d, not between %d held and twice %d allocated", tc.order, tc.k, tc.est, est, held, allocated)
		}
	}
}
