package ccm

import (
	"sync"

	"github.com/grind-nlp/grind/internal/vec8"
	"github.com/grind-nlp/grind/pipeline"
)

// Where this build has a lane kernel that this machine runs (AVX-512),
// the E-step runs the corpus's sentences in batches of one length on a
// laneChart. A lane's log P(s) and posteriors are the scalar chart's bit
// for bit, each written to its place (for a model without classes, in
// the layout of the batches' ids, laneSpans; else its sentence's), and
// the sums over them (the log-likelihood chunk by chunk in corpus order,
// the counts by id in corpus order) are the scalar E-step's: the result
// is the same, to the bit, with or without lanes and for any number of
// workers. Without a lane kernel every sentence runs on the scalar
// chart, as it always did.

// kernel is the lane kernel in use, or "" for the scalar chart alone
// (tests and benchmarks set it to compare the two): the AVX-512 lanes
// where there are some (vec8.Native), else none (the plain-Go lanes of a
// build without GOEXPERIMENT=simd, slower than the scalar chart, run only
// in tests, which check the lanes' arithmetic in every build).
var kernel = vec8.Native()

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

// laneSpans lays out the yield and context ids of every batch's spans
// (not those of a sentence beyond batchMaxLen) in the order the lanes'
// potentials read them: batch by batch, cell by cell in the chart's order
// (0 ≤ i ≤ j ≤ n, empty spans too), the lanes of a cell side by side (a
// short batch's last lanes repeat its last sentence). One stream read
// front to back, where the sentences' own (n+1)² ids lie scattered over
// the corpus in the batches' order. The lanes' posteriors (lanePost) take
// the same layout, written a cell's lanes at once, and a long sentence's
// (n+1)² after them; laneSpans gives every yield's and context's list of
// spans (idSpans) their places there. Made by the first batched E-step.
func (c *Corpus) laneSpans() {
	if c.laneIDStart != nil {
		return
	}
	nb := len(c.batchStart) - 1
	c.laneIDStart, c.lanePostStart = make([]int32, nb+1), make([]int32, nb)
	size := 0
	for g := range nb {
		c.laneIDStart[g] = int32(size)
		if n := c.Sentences[c.order[c.batchStart[g]]].N; n <= batchMaxLen {
			size += (n + 1) * (n + 2) / 2 * lanes
		}
	}
	c.laneIDStart[nb] = int32(size)
	c.laneIDs = make([][2]int32, 0, size)
	posOf := make([]int32, len(c.Yield))
	for g := range nb {
		batch := c.order[c.batchStart[g]:c.batchStart[g+1]]
		n := c.Sentences[batch[0]].N
		if n > batchMaxLen {
			s := c.Sentences[batch[0]]
			c.lanePostStart[g] = int32(size)
			for k := range (n + 1) * (n + 1) {
				posOf[s.Off+k] = int32(size + k)
			}
			size += (n + 1) * (n + 1)
			continue
		}
		c.lanePostStart[g] = c.laneIDStart[g]
		for i := 0; i <= n; i++ {
			for j := i; j <= n; j++ {
				for l := range lanes {
					k := c.Sentences[batch[min(l, len(batch)-1)]].Span(i, j)
					if l < len(batch) {
						posOf[k] = int32(len(c.laneIDs))
					}
					c.laneIDs = append(c.laneIDs, [2]int32{c.Yield[k], c.Context[k]})
				}
			}
		}
	}
	c.lanePostSize = size
	c.yieldSpans.lane, c.contextSpans.lane = c.yieldSpans.lanePlaces(posOf), c.contextSpans.lanePlaces(posOf)
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
	post   []float64 // a lane's posteriors from the scalar chart
}

// batchesLogProb runs every batch of c with workers goroutines, writing
// each sentence's log P(s) to logP[i] and its posteriors to post or, for
// a model without classes (laid out says which), to c.lanePost.
func (m *Model) batchesLogProb(c *Corpus, workers int, post, logP []float64) (laidOut bool) {
	nb := len(c.batchStart) - 1
	chunks := (nb + batchesPerChunk - 1) / batchesPerChunk
	work := make([]*laneWork, min(pipeline.Workers(workers), max(chunks, 1)))
	for w := range work {
		work[w] = laneWorkPool.Get().(*laneWork)
		defer laneWorkPool.Put(work[w])
	}
	pt := m.pairTables(c)
	if pt != nil {
		c.laneSpans()
		if len(c.lanePost) != c.lanePostSize {
			c.lanePost = make([]float64, c.lanePostSize)
		}
	}
	pipeline.ForEachChunk(chunks, len(work), func(w, k int) {
		lw := work[w]
		for g := k * batchesPerChunk; g < min((k+1)*batchesPerChunk, nb); g++ {
			if pt != nil {
				m.laidOutBatch(c, pt, g, lw, logP)
			} else {
				m.batch(c, g, lw, post, logP)
			}
		}
	})
	return pt != nil
}

// batch runs the sentences of batch g (one length) on the lanes, or a
// long sentence on the scalar chart, each lane's potentials loaded from
// the scalar chart's and its posteriors written to post.
func (m *Model) batch(c *Corpus, g int, lw *laneWork, post, logP []float64) {
	batch := c.order[c.batchStart[g]:c.batchStart[g+1]]
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
		b.load(m, c, l, c.Sentences[i])
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

// laidOutBatch is batch for a model without classes: the lanes'
// potentials from pt and the ids laneSpans laid out, their posteriors to
// c.lanePost in that layout.
func (m *Model) laidOutBatch(c *Corpus, pt *pairTables, g int, lw *laneWork, logP []float64) {
	batch := c.order[c.batchStart[g]:c.batchStart[g+1]]
	n := c.Sentences[batch[0]].N
	if n > batchMaxLen {
		at := int(c.lanePostStart[g])
		logP[batch[0]] = m.sentence(c, c.Sentences[batch[0]], &lw.scalar, c.lanePost[at:at+(n+1)*(n+1)])
		return
	}
	b := &lw.lanes
	b.grow(n)
	ids := c.laneIDs[c.laneIDStart[g]:c.laneIDStart[g+1]]
	post := c.lanePost[c.laneIDStart[g]:c.laneIDStart[g+1]]
	b.potentials(pt, ids)
	b.inside()
	b.outside()
	b.cellPosteriors(post)
	vec8.Settle()
	for l, k := range batch {
		if b.usable(l) {
			logP[k] = b.logProb(l)
			continue
		}
		// Redone on the scalar chart, its posteriors put in lane l.
		w := n + 1
		if cap(lw.post) < w*w {
			lw.post = make([]float64, w*w)
		}
		logP[k] = m.sentence(c, c.Sentences[k], &lw.scalar, lw.post[:w*w])
		q := 0 // the cell of [i, j) in the lanes' order
		for i := 0; i <= n; i++ {
			for j := i; j <= n; j++ {
				if j > i {
					post[q*lanes+l] = lw.post[i*w+j]
				}
				q++
			}
		}
	}
}
