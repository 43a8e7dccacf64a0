package hmm

import (
	"fmt"

	"github.com/grind-nlp/grind/stages/memory"
)

// Job is the shape of an HMM job, for its memory estimate: what it holds
// in proportion to its states, words and sentence lengths.
type Job struct {
	Order, K, V int
	MaxLen      int // the longest sentence
	// Rows is the emission rows of the E-step's chunks, which count
	// emissions over their own words (ChunkRows).
	Rows    int
	Workers int // forward–backward workspaces (≥ 1)
	// Train is the estimator of a training loop, which holds the model,
	// its counts and the next model at once (and the annealed weights
	// under da, the start too under sda, the variational weights under
	// vb), and the E-step's chunk tables. "" is one pass (estep, decode,
	// tag) over a model read from a file: the model, its extension over
	// new words, and the counts.
	Train Estimator
	// EStep: the pass sums counts (estep), with the chunk tables.
	EStep bool
	// Checkpoint: the model is written as JSON to a run directory after
	// every iteration.
	Checkpoint bool
}

// Tables is the number of transition and emission entries of the
// model.
func (j Job) Tables() (trans, emit int64) {
	k1 := int64(j.K) + 1
	trans = memory.Mul(k1, k1)
	if j.Order == 2 {
		trans = memory.Mul(trans, k1)
	}
	return trans, memory.Mul(int64(j.V), int64(j.K))
}

// Bytes is the estimate: every table counted as float64s, forward–backward's
// vectors per worker (n·K, or n·(K+1)·K for a trigram, each with a
// back-pointer; K padded to kp on the vector kernel) and a dictionary's
// flags.
func (j Job) Bytes() int64 {
	trans, emit := j.Tables()
	model := memory.Add(trans, emit)
	copies := int64(3)
	switch j.Train {
	case DA, VB:
		copies = 4
	case SDA:
		copies = 5
	}
	total := memory.Of(memory.Mul(model, copies), 8)
	k, width := int64(j.K), int64(j.K)
	chunkTrans := trans
	if j.Order == 2 {
		width = memory.Mul(k+1, k)
	}
	if kernel != "" {
		// The vector kernel's forward vectors of rows padded to kp, its
		// copy and transpose of the transitions to the K states (the
		// transpose's rows padded to cp), and each chunk's padded sums of
		// them (fbvec.go).
		kp, cp := int64(padTo(j.K)), int64(padTo(j.K))
		rows, atRows := k, k
		width = kp
		if j.Order == 2 {
			cp, rows, atRows = int64(padTo(j.K+1)), memory.Mul(k+1, k), memory.Mul(k, k)
			width = memory.Mul(k+1, kp)
		}
		padded := memory.Mul(rows, kp)
		chunkTrans = memory.Add(trans, padded)
		total = memory.Add(total, memory.Of(memory.Add(padded, memory.Mul(atRows, cp)), 8))
	}
	if j.Train != "" || j.EStep {
		// 32 chunks, each with its own transition table and emission rows
		// of its own words.
		total = memory.Add(total, memory.Of(memory.Add(memory.Mul(chunkTrans, chunks), memory.Mul(int64(j.Rows), int64(j.K))), 8))
	}
	n := int64(max(j.MaxLen, 1))
	perWorker := memory.Add(memory.Of(memory.Mul(n, width), 8+4), memory.Of(memory.Mul(n, k), 8), memory.Of(memory.Mul(width, 3), 8))
	total = memory.Add(total, memory.Mul(perWorker, int64(max(j.Workers, 1))))
	total = memory.Add(total, memory.Mul(emit, 2)) // a dictionary's flags, twice while built
	if j.Checkpoint {
		// encoding/json's text of every entry (up to 24 bytes) and its
		// buffer growing by doubling.
		total = memory.Add(total, memory.Of(model, 64))
	}
	return total
}

// Check refuses the job when its estimate is over limit bytes.
func (j Job) Check(limit int64) error {
	return memory.Check(j.Bytes(), limit, func() string {
		kind := "bitag"
		if j.Order == 2 {
			kind = "trigram"
		}
		return fmt.Sprintf("a %s HMM of %d states over %d words, the longest sentence %d words,", kind, j.K, j.V, j.MaxLen)
	}, "use fewer states (or leave long sentences out: filterlen)")
}

// ChunkRows is the number of emission rows the E-step's chunks of c hold:
// each chunk's distinct words, added (NewEStepper's chunks).
func ChunkRows(c *Corpus) int {
	last := make([]int32, len(c.Words))
	rows := 0
	n := len(c.Sents)
	for i := 0; i < chunks; i++ {
		for _, sent := range c.Sents[i*n/chunks : (i+1)*n/chunks] {
			for _, w := range sent {
				if last[w] != int32(i+1) {
					last[w] = int32(i + 1)
					rows++
				}
			}
		}
	}
	return rows
}
