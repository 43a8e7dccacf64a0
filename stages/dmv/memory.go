package dmv

import (
	"fmt"

	"github.com/grind-nlp/grind/stages/memory"
)

// MemoryBytes estimates what a DMV job with valence settings v (and depth
// bound, when on) holds in proportion to its tags and its longest
// sentence: tables copies of the tables of t tags and the average tag
// (2C·t² + (4S + 1)·t entries for
// stop valence S and child valence C: a model, its counts, the E-step's
// chunk counts) and per worker a chart of n words (eighteen tables of n²
// float64s and four of n² back-pointers; five tables more for EVG's two
// child valences; for other valence settings the valence chart beside it,
// its items and adjoints n²·max(S, C) each: valence.go) and, where the
// E-step runs on a lane kernel (batch.go), a lane chart of up to
// batchMaxLen words (eighteen tables of n²·lanes float64s, or twenty-three)
// and the window of sentences it sorts by length (a token and three
// numbers a sentence); within a depth bound, the bounded charts beside
// them (boundedBytes). A sentence the charts hand to the valence chart's
// log space (tiny potentials: Chart.settle) is not counted.
func MemoryBytes(v Valence, bound DepthBound, t, n, workers, tables int) int64 {
	t64, n64 := int64(t)+1, int64(n)
	S, C, k := int64(v.Stop), int64(v.Child), int64(v.States())
	tab := memory.Of(memory.Add(memory.Mul(2*C, t64, t64), memory.Mul(4*S+1, t64)), 8)
	chart := chartBytes(n)
	laneTables := int64(18)
	switch {
	case v == twoChildValences:
		chart = memory.Add(chart, memory.Mul(n64, n64, 5*8))
		laneTables += 5
	case !v.IsDMV(): // vchart.grow's tables
		chart = memory.Add(chart, memory.Mul(n64, n64, (3*C+4+8*k)*8+(4*k+2)*4), memory.Mul(n64, (5+12*S)*8))
	}
	if kernel != "" && n > 0 && v.onDMVChart() {
		b64 := int64(min(n, batchMaxLen))
		chart = memory.Add(chart, memory.Mul(b64, b64, laneTables*lanes*8), memory.Mul(int64(window)+n64, 4*8))
	}
	if bound.On() && n > 0 {
		chart = memory.Add(chart, boundedBytes(bound, n))
	}
	return memory.Add(memory.Mul(tab, int64(tables)), memory.Mul(chart, int64(max(workers, 1))))
}

// chartBytes is a Chart of n words: eighteen tables of n² float64s, four
// of n² back-pointers and eighteen float64s a word.
func chartBytes(n int) int64 {
	n64 := int64(n)
	return memory.Add(memory.Mul(n64, n64, 18*8+4*4), memory.Mul(n64, 18*8))
}

// boundedBytes is what the depth bound adds to a worker's charts for
// sentences of n words: a BoundedChart (its potentials' own Chart, and
// for each depth level eighteen tables of n² float64s and seven of n²
// back-pointers, with A_ℓ's two and its back-pointers for each ℓ up to
// the chunk length) and, on a lane kernel, its lanes' tables
// (boundedLanes). Its tables are many and large: each is counted in
// whole pages of 8 KiB, as the runtime allocates them.
func boundedBytes(bound DepthBound, n int) int64 {
	cells := func(n int) int64 { return memory.Mul(int64(min(bound.Max, n)), int64(n), int64(n)) }
	tables := func(count int, size int64) int64 { return memory.Mul(int64(count), memory.Add(size, 8191)/8192*8192) }
	chunks := min(bound.Chunk, n) + 1
	b := memory.Add(chartBytes(n), tables(18+2*chunks, memory.Mul(cells(n), 8)), tables(7+chunks, memory.Mul(cells(n), 4)))
	if kernel != "" {
		nb := min(n, boundedLaneLen(bound))
		b = memory.Add(b, tables(boundedLaneTables(min(bound.Chunk, nb)), memory.Mul(cells(nb), lanes*8)))
	}
	return b
}

// CheckMemory refuses a job whose MemoryBytes is over limit bytes (≤ 0:
// no limit).
func CheckMemory(v Valence, bound DepthBound, t, n, workers, tables int, limit int64) error {
	return memory.Check(MemoryBytes(v, bound, t, n, workers, tables), limit, func() string {
		switch {
		case !v.IsDMV():
			return fmt.Sprintf("a DMV with %s of %d tags, the longest sentence %d words,", v, t, n)
		case bound.On():
			return fmt.Sprintf("a DMV of %d tags within depth %d (chunks of %d), the longest sentence %d words,", t, bound.Max, bound.Chunk, n)
		}
		return fmt.Sprintf("a DMV of %d tags, the longest sentence %d words,", t, n)
	}, "leave long sentences out (filterlen)")
}

// TrainTables is how many tables of a DMV's size a training run over
// workers goroutines holds: the model, the next, the start or skew, the
// counts and the chunks' counts folded in order (a few per worker).
func TrainTables(workers int) int { return 6 + 2*workers }
