package dmv

import (
	"fmt"

	"github.com/grind-nlp/grind/stages/memory"
)

// MemoryBytes estimates what a DMV job holds in proportion to its tags
// and its longest sentence: tables copies of the tables of t tags and
// the average tag (2t² + 9t entries: a model, its counts, the E-step's
// chunk counts) and per worker a chart of n words (eighteen tables of n²
// float64s and four of n² back-pointers) and, where the E-step runs on a
// lane kernel (batch.go), a lane chart of up to batchMaxLen words
// (eighteen tables of n²·lanes float64s) and the window of sentences it
// sorts by length (a token and three numbers a sentence).
func MemoryBytes(t, n, workers, tables int) int64 {
	t64, n64 := int64(t)+1, int64(n)
	tab := memory.Of(memory.Add(memory.Mul(2, t64, t64), memory.Mul(9, t64)), 8)
	chart := memory.Add(memory.Mul(n64, n64, 18*8+4*4), memory.Mul(n64, 8*8))
	if kernel != "" && n > 0 {
		b64 := int64(min(n, batchMaxLen))
		chart = memory.Add(chart, memory.Mul(b64, b64, 18*lanes*8), memory.Mul(int64(window)+n64, 4*8))
	}
	return memory.Add(memory.Mul(tab, int64(tables)), memory.Mul(chart, int64(max(workers, 1))))
}

// CheckMemory refuses a job whose MemoryBytes is over limit bytes (≤ 0:
// no limit).
func CheckMemory(t, n, workers, tables int, limit int64) error {
	return memory.Check(MemoryBytes(t, n, workers, tables), limit, func() string {
		return fmt.Sprintf("a DMV of %d tags, the longest sentence %d words,", t, n)
	}, "leave long sentences out (filterlen)")
}

// TrainTables is how many tables of a DMV's size a training run over
// workers goroutines holds: the model, the next, the start or skew, the
// counts and the chunks' counts folded in order (a few per worker).
func TrainTables(workers int) int { return 6 + 2*workers }
