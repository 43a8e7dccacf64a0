package pr

import (
	"fmt"

	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/memory"
)

// slotBytes is what the sparsity penalty holds per potential edge of a
// sentence (n² of them): the dual, its solver's four vectors, the
// interleaved rule's two and the E-step's factors (each laid out by
// slot), the slot's representative and type, and its place in the list of
// variables by type (at most one a slot).
const slotBytes = 8*8 + 3*4

// CheckMemory refuses, before it is made, a projector over corpus whose
// memory, with the held bytes of the job around it (the DMV's tables and
// charts: dmv.MemoryBytes), would be over limit (≤ 0: no limit). The
// sparsity penalty has a dual variable for every potential edge, n² a
// sentence: a corpus of long sentences needs far more than its text. The
// rules' one dual needs nothing to speak of.
func CheckMemory(corpus *dmv.Corpus, opts Options, held, limit int64) error {
	if opts.Rules != nil || !opts.On() {
		return nil
	}
	var edges int64
	err := corpus.Each(0, corpus.Len(), func(_ int, tags, _ []int) {
		edges = memory.Add(edges, memory.Mul(int64(len(tags)), int64(len(tags))))
	})
	if err != nil {
		return err
	}
	return memory.Check(memory.Add(held, memory.Mul(edges, slotBytes)), limit, func() string {
		return fmt.Sprintf("posterior sparsity's dual over %d potential edges (n² a sentence, the longest %d words), with the DMV's tables and charts,", edges, corpus.MaxLen)
	}, "leave long sentences out (filterlen)")
}
