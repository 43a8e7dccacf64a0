package classes

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// MemoryBytes bounds what training allocates beyond what it allocates
// for the corpus alone (the same corpus with 2 classes, 10 contexts,
// rank 2), and is not far above it, where the classes, contexts and rank
// make the tables: Klein's with many classes, with many contexts and a
// high rank, and Brown's with many classes.
func TestMemoryBytesBoundsTraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var sents []*format.Sentence
	for range 400 {
		s := &format.Sentence{}
		for range 10 {
			s.Words = append(s.Words, fmt.Sprintf("w%d", int(2000*rng.Float64()*rng.Float64())))
		}
		sents = append(sents, s)
	}
	alloc := func(opts TrainOptions) (int64, int) {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := Train(sents, opts)
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return int64(after.TotalAlloc - before.TotalAlloc), len(m.Words)
	}
	small := KleinOptions{Contexts: 10, Rank: 2, MaxIter: 3, Seed: 1}
	for _, opts := range []TrainOptions{
		{Method: MethodKlein, Classes: 1000, Klein: KleinOptions{Contexts: 100, Rank: 50, MaxIter: 3, Seed: 1}},
		{Method: MethodKlein, Classes: 20, Klein: KleinOptions{Contexts: 400, Rank: 800, MaxIter: 3, Seed: 1}},
		{Method: MethodBrown, Classes: 300},
	} {
		base, _ := alloc(TrainOptions{Method: opts.Method, Classes: 2, Klein: small})
		got, types := alloc(opts)
		est := MemoryBytes(opts, types)
		t.Logf("%s %d classes, %d contexts, rank %d, %d types: allocated %d beyond the corpus's %d, estimate %d", opts.Method, opts.Classes, opts.Klein.Contexts, opts.Klein.Rank, types, got-base, base, est)
		if got-base > est || est > 4*(got-base) {
			t.Errorf("%+v: allocated %d bytes beyond the corpus's, estimated %d", opts, got-base, est)
		}
	}
}
