package hmm

import (
	"math/rand/v2"
	"testing"
)

// TestEntriesRoundTrip: every parameter written by name and read back
// gives the same table, for bitag and trigram, with a dictionary.
func TestEntriesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for order := 1; order <= 2; order++ {
		p := randomParams(rng, order, 3, 4, true)
		states := StateNames(3)
		words := []string{"a", "b", "c", "d"}
		stateID := map[string]int{"s0": 0, "s1": 1, "s2": 2}
		wordID := map[string]int32{"a": 0, "b": 1, "c": 2, "d": 3}
		q := NewParams(p.Space)
		n := 0
		err := p.Entries(states, words, func(e Entry) error {
			n++
			return q.Set(e, stateID, wordID)
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.Trans {
			ctx, k1 := i/(p.K+1), p.K+1
			if order == 2 && ctx%k1 == p.K && ctx/k1 != p.K {
				continue // never a context
			}
			if p.transSupported(ctx, i%k1) && q.Trans[i] != p.Trans[i] {
				t.Fatalf("order %d: transition %d: %v, want %v", order, i, q.Trans[i], p.Trans[i])
			}
		}
		for i := range p.Emit {
			if q.Emit[i] != p.Emit[i] {
				t.Fatalf("order %d: emission %d: %v, want %v", order, i, q.Emit[i], p.Emit[i])
			}
		}
		if err := q.Set(Entry{Prev2: "s0", Prev1: Boundary, Next: "s1"}, stateID, wordID); order == 2 && err == nil {
			t.Error("a state before the boundary was accepted")
		}
		if err := q.Set(Entry{Prev1: Boundary, Prev2: map[bool]string{true: Boundary}[order == 2], Next: Boundary}, stateID, wordID); err == nil {
			t.Error("start → stop was accepted")
		}
		if n == 0 {
			t.Fatal("no entries")
		}
	}
}
