package classes

import (
	"fmt"

	"github.com/grind-nlp/grind/stages/memory"
)

// MemoryBytes estimates what training allocates in proportion to the
// classes, contexts and rank asked for over types word types (not the
// corpus's bigrams and context counts, which grow with its text):
// Brown's (K+2)² tables and what its merges make, nine numbers a pair of
// slots; Klein's MᵀM of (2N)² numbers, about six times over while
// gonum's EigenSym factors it, the types' rank-reduced vectors,
// k-means's centroids and sums, k·(R+1) for each chunk of 512 types, and
// its seeding's work for each class. It counts what is allocated, some
// of it garbage before the rest is made: more than is held at once
// (TestMemoryBytesBoundsTraining).
func MemoryBytes(opts TrainOptions, types int) int64 {
	k := int64(opts.Classes)
	if opts.Method == MethodBrown {
		k += 2
		return memory.Of(memory.Add(memory.Mul(9, k, k), memory.Mul(20, k)), 8)
	}
	v := int64(types)
	d := 2 * min(int64(opts.Klein.Contexts), v)
	r := min(int64(opts.Klein.Rank), d)
	chunks := (v + pointChunk - 1) / pointChunk
	return memory.Of(memory.Add(memory.Mul(6, d, d), memory.Mul(v, r), memory.Mul(chunks, k, r+1), memory.Mul(k, 3*r+256), memory.Mul(4, v)), 8)
}

// checkMemory refuses training whose MemoryBytes is over opts.MaxMemory.
func checkMemory(opts TrainOptions, types int) error {
	if opts.Method == MethodBrown {
		return memory.Check(MemoryBytes(opts, types), opts.MaxMemory, func() string {
			return fmt.Sprintf("Brown clustering into %d classes", opts.Classes)
		}, "ask for fewer classes")
	}
	return memory.Check(MemoryBytes(opts, types), opts.MaxMemory, func() string {
		return fmt.Sprintf("Klein's %d classes of %d word types (%d contexts, rank %d)", opts.Classes, types, opts.Klein.Contexts, opts.Klein.Rank)
	}, "ask for fewer classes or contexts, or a lower rank")
}
