package dmv

import (
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/internal/testenv"
)

// The estimate of an EM iteration (an E-step over a long sentence, whose
// chart dominates, and an M-step) is at least what the job holds at its
// end and at most twice what it allocates in all, garbage included.
func TestMemoryBytesAgainstAllocation(t *testing.T) {
	const n, tags = 300, 20
	rng := rand.New(rand.NewPCG(1, 2))
	sent := make([]int, n)
	for i := range sent {
		sent[i] = rng.IntN(tags)
	}
	c := CorpusFromNumbers(NewTagSet(), [][]int{sent, {0, 1}})
	w := randomWeights(rng, tags, true)
	est := MemoryBytes(tags, n, 1, TrainTables(1))
	allocated, held := testenv.Measure(func() any {
		e := NewEStepper(c)
		res := e.Run(w, EStepOptions{Workers: 1})
		return []any{e, MStep(res.Counts, 0)}
	})
	t.Logf("%d words, %d tags: estimate %d bytes, held %d, allocated %d", n, tags, est, held, allocated)
	if est < held || est > 2*allocated {
		t.Errorf("estimate %d, not between %d held and twice %d allocated", est, held, allocated)
	}
}
