package dmv

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// The records of one step of a shell loop over 41 tags (UD English's
// XPOS): 3,731 events, a third of the counts 0, the rest of 15–17 digits.
func loopRecords(b *testing.B) (ts *TagSet, counts *Params, countsData, modelData []byte) {
	rng := rand.New(rand.NewPCG(15, 15))
	names := make([]string, 41)
	for i := range names {
		names[i] = fmt.Sprintf("T%02d", i)
	}
	ts = NewTagSet(names...)
	counts = NewParams(len(names))
	for _, tab := range counts.Tables() {
		for i := range tab {
			if rng.IntN(3) > 0 {
				tab[i] = rng.Float64() * 1000
			}
		}
	}
	return ts, counts, writeCounts(b, ts, counts, "0000000000000001"), writeModel(b, ts, MStep(counts, 0), format.Prob)
}

func BenchmarkReadCounts(b *testing.B) {
	_, _, data, _ := loopRecords(b)
	for b.Loop() {
		if _, err := readCountsBytes(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadModel(b *testing.B) {
	_, _, _, data := loopRecords(b)
	for b.Loop() {
		if _, err := readModelBytes(b, data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteCounts(b *testing.B) {
	ts, counts, _, _ := loopRecords(b)
	for b.Loop() {
		if err := WriteCounts(io.Discard, ts, counts, "00000000000000aa", "0000000000000001", &format.Stats{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteModel(b *testing.B) {
	ts, counts, _, _ := loopRecords(b)
	model := MStep(counts, 0)
	for b.Loop() {
		if err := WriteTable(io.Discard, ts, model, format.Prob, nil); err != nil {
			b.Fatal(err)
		}
	}
}
