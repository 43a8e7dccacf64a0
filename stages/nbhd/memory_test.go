package nbhd

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/grind-nlp/grind/stages/dmv"
)

// chartBytes is the memory of a one-lane chart over l and of what it
// keeps with l.
func chartBytes(t *testing.T, l *dmv.Lattice) int64 {
	t.Helper()
	if err := l.Prepare(0); err != nil {
		t.Fatal(err)
	}
	return l.LaneBytes() + int64(l.ShapeBytes())
}

// For the neighbourhoods whose lattices grow linearly with the sentence,
// built or as templates, the chart's memory grows at most quadratically:
// doubling the length at most quadruples it (cubic growth, as the chart
// had when its program listed every term, would be eightfold).
func TestChartMemoryQuadratic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sentence := func(n int) []int {
		x := make([]int, n)
		for i := range x {
			x[i] = rng.IntN(20)
		}
		return x
	}
	for _, kind := range []string{Trans1, Del1, Del1OrTrans1, Dynasearch} {
		var built, template [2]int64
		for k, n := range []int{40, 80} {
			l, err := Build(kind, sentence(n), 20)
			if err != nil {
				t.Fatal(err)
			}
			built[k] = chartBytes(t, l)
			template[k] = chartBytes(t, NewTemplate(kind, n).Lattice)
		}
		for what, b := range map[string][2]int64{"built": built, "template": template} {
			r := float64(b[1]) / float64(b[0])
			t.Logf("%s %s ×%.2f", kind, what, r)
			if r > 4.5 {
				t.Errorf("%s %s: %d bytes at 40 words, %d at 80 (×%.2f)", kind, what, b[0], b[1], r)
			}
		}
	}
}

// A lattice whose chart would exceed the limit is refused with a
// MemoryError, keeping nothing and having allocated a small part of what
// its chart would need.
func TestPrepareRefusesBeforeAllocating(t *testing.T) {
	l := LengthLattice(100, 40) // 4000 arcs: attachments by the million
	const limit = 16 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := l.Prepare(limit)
	runtime.ReadMemStats(&after)
	var big *dmv.MemoryError
	if !errors.As(err, &big) {
		t.Fatalf("got %v, want a MemoryError", err)
	}
	if big.Need <= limit || big.Limit != limit || big.States != 101 || big.Arcs != 4000 {
		t.Fatalf("%+v", big)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit/4 {
		t.Fatalf("refusing allocated %d bytes", alloc)
	}
	if l.ShapeBytes() != 0 {
		t.Fatal("a refused lattice keeps a shape")
	}
	small := LengthLattice(5, 3)
	if err := small.Prepare(limit); err != nil || chartBytes(t, small) > limit {
		t.Fatalf("a small lattice: %v, %d bytes", err, chartBytes(t, small))
	}
}
