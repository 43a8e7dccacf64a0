package dmv

import (
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/internal/testenv"
)

// The estimate of an EM iteration (an E-step over a long sentence, whose
// chart dominates, and an M-step) is at least what the job holds at its
// end and at most twice what it allocates in all, garbage included: for
// the plain DMV, EVG's two child valences (on the DMV's chart) and stop
// and child valence 3 (on the valence chart).
func TestMemoryBytesAgainstAllocation(t *testing.T) {
	const n, tags = 300, 20
	for _, v := range []Valence{DMVValence, twoChildValences, {Stop: 3, Child: 3}} {
		rng := rand.New(rand.NewPCG(1, 2))
		sent := make([]int, n)
		for i := range sent {
			sent[i] = rng.IntN(tags)
		}
		c := CorpusFromNumbers(NewTagSet(), [][]int{sent, {0, 1}})
		w := randomValenceWeights(rng, tags, v, true)
		est := MemoryBytes(v, tags, n, 1, TrainTables(1))
		allocated, held := testenv.Measure(func() any {
			e := NewEStepper(c)
			res := e.Run(w, EStepOptions{Workers: 1})
			return []any{e, MStep(res.Counts, 0)}
		})
		t.Logf("%v, %d words, %d tags: estimate %d bytes, held %d, allocated %d", v, n, tags, est, held, allocated)
		if est < held || est > 2*allocated {
			t.Errorf("%v: estimate %d, not between %d held and twice %d allocated", v, est, held, allocated)
		}
	}
}
