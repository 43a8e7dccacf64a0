package hmmce

import (
	"fmt"

	"github.com/grind-nlp/grind/stages/memory"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// MemoryBytes estimates what training m on sentences of the given lengths
// over neighbourhoods of
// kind holds in proportion to its tags, words and sentence lengths:
// L-BFGS's history of weight vectors, the chunks' counts, the
// potentials, every sentence's lattice (kept for the whole run; length's
// has V arcs per position) and each worker's lattice passes.
func (m *Model) MemoryBytes(kind string, lengths []int) int64 {
	k1 := int64(m.K) + 1
	trans, emit := int64(m.transLen()), memory.Mul(int64(m.K), int64(m.V))
	vec := k1 // a lattice state's vector: the previous tag, or the trigram's two
	if m.Trigram() {
		trans, vec = memory.Mul(k1, k1, k1), memory.Mul(k1, k1)
	}
	dim := memory.Add(trans, emit, memory.Mul(int64(m.K), int64(m.F)))
	// gonum's L-BFGS keeps 15 pairs of vectors and a few more; the
	// objective a gradient, the chunks their counts, the potentials one
	// table more.
	total := memory.Of(memory.Add(memory.Mul(dim, 40), memory.Mul(memory.Add(trans, emit), chunks+2)), 8)
	total = memory.Add(total, memory.Mul(emit, 2)) // a dictionary's flags
	longest := int64(0)
	for _, n := range lengths {
		states, arcs := latticeSize(kind, n, m.V)
		// Depth and Final per state; an arc, and its Dead flag.
		total = memory.Add(total, memory.Mul(states, 9), memory.Mul(arcs, 25))
		longest = max(longest, memory.Add(memory.Of(memory.Mul(states, vec), 8*3+8), memory.Mul(states, 8*4), memory.Mul(arcs, 8*2)))
	}
	workers := int64(max(m.Workers, 1))
	return memory.Add(total, memory.Mul(longest, workers))
}

// latticeSize bounds the states and arcs of a neighbourhood of an n-word
// sentence over v words (nbhd's lattices, measured: trans1 3n states and
// 4n arcs, del1ortrans1 4n and 6n, length n+1 and n·v).
func latticeSize(kind string, n, v int) (states, arcs int64) {
	n64 := int64(n)
	switch kind {
	case nbhd.Length:
		return n64 + 1, memory.Mul(n64, int64(v))
	case nbhd.Trans1:
		return 3*n64 + 3, 4*n64 + 1
	}
	return 4*n64 + 4, 6*n64 + 1
}

// Check refuses training m on sentences of the given lengths when its
// estimate is over limit bytes.
func (m *Model) Check(kind string, lengths []int, limit int64) error {
	return memory.Check(m.MemoryBytes(kind, lengths), limit, func() string {
		return fmt.Sprintf("contrastive estimation of a %d-state HMM over %d words with %s neighbourhoods", m.K, m.V, kind)
	}, "use fewer states or a smaller neighbourhood (or leave long sentences out: filterlen)")
}

// checkTables refuses, before they are made, a tagger's weights (and its
// dictionary's flags) that would need more than limit bytes: a few
// records over many words and states could ask for far more than the
// file holds.
func (m *Model) checkTables(limit int64) error {
	k1 := int64(m.K) + 1
	trans := memory.Mul(k1, k1)
	if m.Trigram() {
		trans = memory.Mul(trans, k1)
	}
	emit := memory.Mul(int64(m.K), int64(m.V))
	dim := memory.Add(trans, emit, memory.Mul(int64(m.K), int64(m.F)))
	return memory.Check(memory.Add(memory.Of(dim, 8), emit), limit, func() string {
		return fmt.Sprintf("a CE tagger of %d states over %d words", m.K, m.V)
	}, "")
}
