package nbhd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/memory"
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

// MemoryBytes bounds what building a neighbourhood and writing its record
// allocate in all (more than it holds at once), and is not far above it:
// every kind, sentences of 300 words (del1subseq's 150) over 40 tags
// named with 2 or 60 bytes.
func TestMemoryBytesBoundsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, nameLen := range []int{2, 60} {
		for _, kind := range Kinds {
			n := 300
			if kind == Del1Subseq {
				n = 150
			}
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf("%0*d", nameLen, rng.IntN(40))
			}
			ts := dmv.SortedTagSet(names)
			x := make([]int, n)
			for i, name := range names {
				x[i], _ = ts.Index(name)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			l, err := Build(kind, x, ts.Len())
			if err != nil {
				t.Fatal(err)
			}
			if err := pipeline.WriteRecord(io.Discard, ToRecord(l, ts, &format.Sentence{Tags: names}, kind)); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			got, est := int64(after.TotalAlloc-before.TotalAlloc), MemoryBytes(kind, n, ts.Len(), longestName(ts))
			t.Logf("%s, %d-byte names: allocated %d, estimate %d (×%.1f)", kind, nameLen, got, est, float64(est)/float64(got))
			if got > est || est > 6*got {
				t.Errorf("%s, %d words, %d-byte names: allocated %d bytes, estimated %d", kind, n, nameLen, got, est)
			}
		}
	}
}

// A sentence whose neighbourhood is over the limit is refused before
// anything is written or built, naming it and the limit.
func TestRunRefusesOverLimit(t *testing.T) {
	var in strings.Builder
	in.WriteString(`{"id":"short","tags":["A","B"]}` + "\n" + `{"id":"long","tags":[`)
	for i := range 2000 {
		if i > 0 {
			in.WriteByte(',')
		}
		in.WriteString(`"A"`)
	}
	in.WriteString("]}\n")
	var out bytes.Buffer
	src := pipeline.Source{Names: []string{"-"}, Stdin: strings.NewReader(in.String())}
	err := Run(src, &out, Options{Kind: Del1Subseq, MaxMemory: 64 << 20})
	var big *memory.Error
	if !errors.As(err, &big) || !strings.HasPrefix(err.Error(), "sentence 2 (long), 2000 words: its del1subseq neighbourhood needs about") {
		t.Fatalf("got %v", err)
	}
	if strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("wrote %q", out.String())
	}
}
