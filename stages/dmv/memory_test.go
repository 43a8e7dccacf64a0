package dmv

import (
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/internal/testenv"
)

// The estimate of an EM iteration (an E-step over a long sentence, whose
// chart dominates, and an M-step) is at least what the job holds at its
// end and at most twice what it allocates in all, garbage included: for
// the plain DMV, EVG's two child valences (on the DMV's chart), stop and
// child valence 3 (on the valence chart), and the plain DMV within a
// depth bound (the bounded chart beside the plain one).
func TestMemoryBytesAgainstAllocation(t *testing.T) {
	const n, tags = 300, 20
	for _, job := range []struct {
		v     Valence
		bound DepthBound
	}{{DMVValence, DepthBound{}}, {twoChildValences, DepthBound{}}, {Valence{Stop: 3, Child: 3}, DepthBound{}}, {DMVValence, DepthBound{Max: 2, Chunk: 3}}} {
		v := job.v
		rng := rand.New(rand.NewPCG(1, 2))
		sent := make([]int, n)
		for i := range sent {
			sent[i] = rng.IntN(tags)
		}
		c := CorpusFromNumbers(NewTagSet(), [][]int{sent, {0, 1}})
		w := randomValenceWeights(rng, tags, v, true)
		est := MemoryBytes(v, job.bound, tags, n, 1, TrainTables(1))
		allocated, held := testenv.Measure(func() any {
			e := NewEStepper(c)
			res := e.Run(w, EStepOptions{Workers: 1, Bound: job.bound})
			return []any{e, MStep(res.Counts, 0)}
		})
		t.Logf("%v %+v, %d words, %d tags: estimate %d bytes, held %d, allocated %d", v, job.bound, n, tags, est, held, allocated)
		if est < held || est > 2*allocated {
			t.Errorf("%v %+v: estimate %d, not between %d held and twice %d allocated", v, job.bound, est, held, allocated)
		}
	}
}
