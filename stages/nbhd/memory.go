package nbhd

import (
	"fmt"

	"github.com/grind-nlp/grind/stages/memory"
)

// buildCost is what building a neighbourhood of kind costs, measured
// (TestMemoryBytesBoundsBuild): bytes allocated per word of the sentence
// (per word² for del1subseq, per arc for length, whose n·tags arcs are
// made at once) and the arcs of the lattice per word (per word², per
// arc), each of which the record spells with its tag's name (and JSON's
// encoder copies some eight times over, as its buffer grows). Allocation
// grows a little faster than the sentence (the maps and slices that
// double): the bytes are twice those measured at 25,600 words, 1,600 for
// del1subseq.
var buildCost = map[string]struct{ bytes, arcs int64 }{
	Trans1:       {11 << 10, 4},
	Del1:         {7 << 10, 3},
	Del1OrTrans1: {16 << 10, 6},
	Dynasearch:   {7 << 10, 3},
	Trans2:       {33 << 10, 11},
	Del1OrTrans2: {44 << 10, 13},
	Del1Subseq:   {2 << 10, 2},
	Length:       {600, 1},
}

// MemoryBytes estimates the memory of building the neighbourhood of kind
// of a sentence of n words over tags tags (length's tag set), and of its
// record, whose tag names are at most nameLen bytes: the automata, the
// lattice and the record.
func MemoryBytes(kind string, n, tags, nameLen int) int64 {
	c := buildCost[kind]
	units := int64(n) // what c counts in
	switch kind {
	case Del1Subseq:
		units = memory.Mul(units, units)
	case Length:
		units = memory.Mul(units, int64(max(tags, 1)))
	}
	return memory.Add(memory.Mul(units, c.bytes), memory.Mul(units, c.arcs, 8*(int64(nameLen)+8)))
}

// CheckMemory refuses, before anything is built, the neighbourhood of
// kind of sentence number k (1-based; id may be "") of n words whose
// MemoryBytes is over limit bytes (≤ 0: no limit).
func CheckMemory(kind string, k int, id string, n, tags, nameLen int, limit int64) error {
	return memory.Check(MemoryBytes(kind, n, tags, nameLen), limit, func() string {
		if id != "" {
			id = " (" + id + ")"
		}
		what := fmt.Sprintf("sentence %d%s, %d words: its %s neighbourhood", k, id, n, kind)
		if kind == Length {
			what += fmt.Sprintf(" over %d tags", tags)
		}
		return what
	}, "leave long sentences out (filterlen)")
}
