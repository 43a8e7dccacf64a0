package ccm

import (
	"sync"

	"github.com/grind-nlp/grind/internal/vec8"
	"github.com/grind-nlp/grind/pipeline"
)

// Where this build has a lane kernel that this machine runs (AVX-512),
// the E-step runs the corpus's sentences in batches of one length on a
// laneChart. A lane's log P(s) and posteriors are the scalar chart's bit
// for bit, each written to its sentence's place, and the sums over them
// (the log-likelihood chunk by chunk in corpus order, the counts by id in
// corpus order) are the scalar E-step's: the result is the same, to the
// bit, with or without lanes and for any number of workers. Without a
// lane kernel every sentence runs on the scalar chart, as it always did.

// kernel is the lane kernel in use: laneKernel's, or "" for the scalar
// chart alone (tests and benchmarks set it to compare the two).
var kernel = laneKernel()

// laneKernel is the lane kernel the E-step uses on this machine: the
// AVX-512 lanes where there are some, else none (the plain-Go lanes of a
// build without GOEXPERIMENT=simd, slower than the scalar chart, run only
// in tests, which check the lanes' arithmetic in every build).
func laneKernel() string {
	if vec8.Kernel == "avx512" && vec8.Runs() {
		return vec8.Kernel
	}
	return ""
}

// batchMaxLen is the longest sentence batched: a laneChart's three tables
// of (n+1)²·lanes numbers are 0.8 MB at 64, and longer sentences are too
// few to fill lanes.
const batchMaxLen = 64

// batchesPerChunk fixes the batched E-step's unit of work (about
// chunkSize sentences).
const batchesPerChunk = chunkSize / lanes

// batches lists c's sentences by length (by number within a length) in
// c.order, and records in c.batchStart where each batch of at most lanes
// sentences of one length starts there (and one past the last); a
// sentence longer than batchMaxLen is a batch of its own.
func (c *Corpus) batches() {
	first := make([]int, c.MaxLen+2)
	for _, s := range c.Sentences {
		first[s.N+1]++
	}
	for n := 1; n < len(first); n++ {
		first[n] += first[n-1]
	}
	c.order = make([]int32, len(c.Sentences))
	for i, s := range c.Sentences {
		c.order[first[s.N]] = int32(i)
		first[s.N]++
	}
	c.batchStart = c.batchStart[:0]
	for g := 0; g < len(c.order); {
		n := c.Sentences[c.order[g]].N
		size := lanes
		if n > batchMaxLen {
			size = 1
		}
		end := g + 1
		for end < len(c.order) && end-g < size && c.Sentences[c.order[end]].N == n {
			end++
		}
		c.batchStart = append(c.batchStart, int32(g))
		g = end
	}
	c.batchStart = append(c.batchStart, int32(len(c.order)))
}

// laneWorkPool keeps workers' workspaces from one E-step to the next (an
// EM run's E-steps would otherwise each allocate and fault in their
// charts anew).
var laneWorkPool = sync.Pool{New: func() any { return new(laneWork) }}

// laneWork is a worker's workspace for batches.
type laneWork struct {
	lanes  laneChart
	scalar chart // a batch of one, and a lane out of range
	posts  [lanes][]float64
}

// batchesLogProb runs every batch of c with workers goroutines, writing
// each sentence's log P(s) to logP[i] and its posteriors to post.
func (m *Model) batchesLogProb(c *Corpus, workers int, post, logP []float64) {
	nb := len(c.batchStart) - 1
	chunks := (nb + batchesPerChunk - 1) / batchesPerChunk
	work := make([]*laneWork, min(pipeline.Workers(workers), max(chunks, 1)))
	for w := range work {
		work[w] = laneWorkPool.Get().(*laneWork)
		defer laneWorkPool.Put(work[w])
	}
	pt := m.pairTables(c)
	pipeline.ForEachChunk(chunks, len(work), func(w, k int) {
		lw := work[w]
		for g := k * batchesPerChunk; g < min((k+1)*batchesPerChunk, nb); g++ {
			m.batch(c, pt, c.order[c.batchStart[g]:c.batchStart[g+1]], lw, post, logP)
		}
	})
}

// batch runs the sentences of one batch (one length) on the lanes, or a
// long sentence on the scalar chart.
func (m *Model) batch(c *Corpus, pt *pairTables, batch []int32, lw *laneWork, post, logP []float64) {
	postOf := func(s Sentence) []float64 { return post[s.Off : s.Off+(s.N+1)*(s.N+1)] }
	n := c.Sentences[batch[0]].N
	if n > batchMaxLen {
		for _, i := range batch {
			logP[i] = m.sentence(c, c.Sentences[i], &lw.scalar, postOf(c.Sentences[i]))
		}
		return
	}
	b := &lw.lanes
	b.grow(n)
	for l, i := range batch {
		b.load(m, c, pt, l, c.Sentences[i])
	}
	b.pad(len(batch))
	b.inside()
	b.outside()
	vec8.Settle()
	lw.posts = [lanes][]float64{}
	for l, i := range batch {
		s := c.Sentences[i]
		if !b.usable(l) {
			logP[i] = m.sentence(c, s, &lw.scalar, postOf(s))
			continue
		}
		logP[i] = b.logProb(l)
		lw.posts[l] = postOf(s)
	}
	b.posteriors(&lw.posts)
	vec8.Settle()
}
