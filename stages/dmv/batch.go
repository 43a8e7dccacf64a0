package dmv

import (
	"slices"

	"github.com/grind-nlp/grind/internal/vec8"
)

// Where this build has a lane kernel that this machine runs (AVX-512),
// the soft E-step of a plain DMV cuts the corpus into laneChunks pieces,
// takes each piece's sentences in order of length (stably, so by index
// within a length) and runs them lanes at a time on a laneChart. Each lane does the scalar chart's operations in
// its order, so the counts differ from the scalar chart's only in the
// order sentences are summed in (within 1e-12 relative), and, the chunks
// being fixed, not at all with the number of workers. Without a lane
// kernel the E-step is the scalar chart's, sentence by sentence in corpus
// order, as it always was.

// kernel is the lane kernel in use, or "" for the scalar chart alone
// (tests and benchmarks set it to compare the two): the AVX-512 lanes
// where there are some (vec8.Native), else none. The plain-Go lanes of a
// build without GOEXPERIMENT=simd are slower than the scalar chart
// (BenchmarkEMIterationKernels: 3–4×, the [8]float64 of each operation
// going through memory), so they run only in tests, which check the
// lanes' arithmetic in every build.
var kernel = vec8.Native()

// Kernel names the E-step kernel of this binary on this machine, for
// --version: "avx512" (GOEXPERIMENT=simd on amd64 with AVX-512) or
// "scalar".
func Kernel() string {
	if kernel == "" {
		return "scalar"
	}
	return kernel
}

// batchMaxLen is the longest sentence batched: a laneChart's 18 tables of
// n²·lanes numbers are 4.7 MB at 64, and longer sentences are too few to
// fill lanes.
const batchMaxLen = 64

// laneChunks is how many pieces the lanes cut the corpus into, fixed as
// chunks are: fewer, so that a piece's sentences of one length fill their
// batches. UD English ≤ 10 in 64 pieces of 84 sentences had a short batch
// at almost every length of every piece, its lanes 71% full and 41% more
// cells computed than full batches need; in 16, 90% full (8: 95%, but
// no more than 8 workers).
const laneChunks = 16

// laneWork is a worker's workspace for batches.
type laneWork struct {
	chart       laneChart
	bounded     boundedLanes // the depth bound's tables (lclanes.go)
	numbers     []int        // a streamed window's sentences: their numbers in the corpus,
	start       []int        // where their tags start in tags (and one past the last)
	tags        []int
	places      []int       // 0, 1, …: their places in the window, as its plan takes them
	plan        lanePlan    // a streamed window's
	inMemory    bool        // the plan's sentences are the corpus's numbers, their tags the corpus's
	corpus      *Corpus     // (when inMemory)
	buf         []int       // a sentence's tags, read from the corpus
	first       []int       // where each length starts in a window's order (while sorting)
	factors     []float64   // each lane's attachment factors (Factors)
	laneFactors [][]float64 // the lanes' slices of factors
	use         []int       // the lanes whose counts the lane chart gives
	edge        []float64   // a lane's posteriors, for Posteriors
	root        []float64
}

// lanePlan is the order a piece's sentences go through the lanes in:
// window by window, by length within a window (stably, so by number
// within a length), cut into batches of one length and at most lanes
// sentences. The sentences are the corpus's numbers (a corpus in memory,
// whose plans EStepper keeps from one E-step to the next: they depend on
// the corpus alone) or a streamed window's places in it (laneWork.numbers).
type lanePlan struct {
	sents   []int32 // in that order
	batches []int32 // where each batch starts in sents, and len(sents) last
	longest int     // the longest sentence batched (≤ batchMaxLen)
	// A corpus in memory's batches' tags as the lanes take them, padded:
	// batch b's in rows[rowsAt[b]:rowsAt[b+1]] (none for a batch of
	// sentences longer than batchMaxLen); about two bytes a token, as
	// the corpus's own tags and heads.
	rows   [][lanes]uint16
	rowsAt []int32
}

// window is how many tokens (or sentences) of a piece are sorted by
// length at a time: a bound on what a worker copies of a large corpus (a
// piece is 1/16 of it), large enough that a window of short sentences
// fills its lanes. (A variable for tests.)
var window = 1 << 14

// addWindow adds sentences sents (of lengths length(i) for sentence i) to
// the plan, sorted by length, in batches; first is scratch space, which
// it returns.
func (pl *lanePlan) addWindow(sents []int, length func(i int) int, maxLen int, first []int) []int {
	// By length, by number within a length: a counting sort.
	first = slices.Grow(first[:0], maxLen+2)[:maxLen+2]
	clear(first)
	for _, i := range sents {
		n := length(i)
		first[n+1]++
		if n <= batchMaxLen {
			pl.longest = max(pl.longest, n)
		}
	}
	for n := 1; n < len(first); n++ {
		first[n] += first[n-1]
	}
	at := len(pl.sents)
	pl.sents = slices.Grow(pl.sents, len(sents))[:at+len(sents)]
	for _, i := range sents {
		n := length(i)
		pl.sents[at+first[n]] = int32(i)
		first[n]++
	}
	for g := at; g < len(pl.sents); {
		n := length(int(pl.sents[g]))
		same := g + 1
		for same < len(pl.sents) && length(int(pl.sents[same])) == n {
			same++
		}
		for ; g < same; g += lanes {
			pl.batches = append(pl.batches, int32(g))
		}
		g = same
	}
	return first
}

// layRows lays out the tags of the plan's batches (of corpus c's
// sentences) for the lanes, once for every E-step; buf is scratch space,
// which it returns.
func (pl *lanePlan) layRows(c *Corpus, buf []int) []int {
	pl.rowsAt = append(pl.rowsAt[:0], 0)
	for b := 0; b+1 < len(pl.batches); b++ {
		batch := pl.sents[pl.batches[b]:pl.batches[b+1]]
		if n := c.SentLen(int(batch[0])); n <= batchMaxLen {
			at := len(pl.rows)
			pl.rows = slices.Grow(pl.rows, n)[:at+n]
			rows := pl.rows[at:]
			for l, k := range batch {
				buf = c.Sent(int(k), buf)
				putLane(rows, l, buf)
			}
			padLanes(rows, len(batch))
		}
		pl.rowsAt = append(pl.rowsAt, int32(len(pl.rows)))
	}
	return buf
}

// done ends the plan's batches.
func (pl *lanePlan) done() { pl.batches = append(pl.batches, int32(len(pl.sents))) }

func (pl *lanePlan) reset() {
	pl.sents, pl.batches, pl.longest = pl.sents[:0], pl.batches[:0], 0
}

// byLength is the soft E-step of sentences lo..hi−1 (piece k of
// laneChunks) in order of length, window by window: a corpus in memory by
// the piece's plan, made at its first E-step; a streamed one read and
// sorted window by window.
func (p *chunkPass) byLength(k, lo, hi int) error {
	lw, c := p.e.lanes[p.worker], p.e.corpus
	if !c.Streamed() {
		pl := p.e.plans[k]
		if pl == nil {
			pl = &lanePlan{}
			var sents []int
			tokens := 0
			for i := lo; i < hi; i++ {
				sents = append(sents, i)
				tokens += c.SentLen(i)
				if tokens >= window || len(sents) >= window || i == hi-1 {
					lw.first = pl.addWindow(sents, c.SentLen, c.MaxLen, lw.first)
					sents, tokens = sents[:0], 0
				}
			}
			pl.done()
			lw.buf = pl.layRows(c, lw.buf)
			p.e.plans[k] = pl
		}
		lw.inMemory, lw.corpus = true, c
		p.run(lw, pl)
		return nil
	}
	lw.inMemory = false
	lw.reset()
	err := c.Each(lo, hi, func(i int, tags, _ []int) {
		lw.numbers = append(lw.numbers, i)
		lw.start = append(lw.start, len(lw.tags))
		lw.tags = append(lw.tags, tags...)
		if len(lw.tags) >= window || len(lw.numbers) >= window {
			p.window(lw)
		}
	})
	if err != nil {
		return err
	}
	p.window(lw)
	return nil
}

func (lw *laneWork) reset() {
	lw.numbers, lw.start, lw.tags = lw.numbers[:0], lw.start[:0], lw.tags[:0]
}

// window runs the streamed sentences held in lw by length, and lets them
// go.
func (p *chunkPass) window(lw *laneWork) {
	defer lw.reset()
	lw.start = append(lw.start, len(lw.tags))
	pl := &lw.plan
	pl.reset()
	if len(lw.numbers) > 0 {
		// The window's sentences by their place k in it (0, 1, …).
		for k := len(lw.places); k < len(lw.numbers); k++ {
			lw.places = append(lw.places, k)
		}
		lw.first = pl.addWindow(lw.places[:len(lw.numbers)], lw.length, p.e.corpus.MaxLen, lw.first)
	}
	pl.done()
	p.run(lw, pl)
}

// run runs the plan's batches: on the lanes, or a sentence at a time on
// the scalar chart where the batch's sentences are longer than the lanes
// take.
func (p *chunkPass) run(lw *laneWork, pl *lanePlan) {
	// The lane chart's tables at once for the longest, not again at
	// every length up to it (the lengths come in increasing order): a
	// one-shot estep touched 4 times the memory, 0.2–0.5 ms of page faults.
	lw.chart.grow(min(pl.longest, p.longest))
	longest := batchMaxLen // the longest sentence on the lanes
	if bound := p.opts.Bound; bound.On() {
		longest = boundedLaneLen(bound)
		lw.bounded.grow(bound, min(pl.longest, p.longest, longest))
	}
	for b := 0; b+1 < len(pl.batches); b++ {
		batch := pl.sents[pl.batches[b]:pl.batches[b+1]]
		n := lw.length(int(batch[0]))
		// A short batch is padded: a sentence on the scalar chart costs
		// more than several lanes (with only full batches on the lanes
		// and the rest on the scalar chart, an EM iteration on UD
		// English ≤10 / ≤15 took 1.16–1.23× / 1.33–1.41× the CPU time).
		if n > longest || n > p.longest {
			for _, k := range batch {
				p.sentence(lw.number(int(k)), lw.sent(int(k)), nil)
			}
		} else {
			var rows [][lanes]uint16 // the batch's tags laid out, a corpus in memory's
			if lw.inMemory {
				rows = pl.rows[pl.rowsAt[b]:pl.rowsAt[b+1]]
			}
			p.lanes(lw, batch, rows, n)
		}
	}
}

// number is the corpus's number of the plan's sentence k, sent its tags
// (valid until the next call), length their number.
func (lw *laneWork) number(k int) int {
	if lw.inMemory {
		return k
	}
	return lw.numbers[k]
}

func (lw *laneWork) sent(k int) []int {
	if lw.inMemory {
		lw.buf = lw.corpus.Sent(k, lw.buf)
		return lw.buf
	}
	return lw.tags[lw.start[k]:lw.start[k+1]]
}

func (lw *laneWork) length(k int) int {
	if lw.inMemory {
		return lw.corpus.SentLen(k)
	}
	return lw.start[k+1] - lw.start[k]
}

// lanes runs the chunk's sentences batch, all of length n, on the lane
// chart, the lanes beyond the batch repeating its last sentence (their
// results unread); rows, when not nil, are their tags laid out already. A lane whose Z or posteriors the scalar chart would
// not have taken as they are is redone there, from the same attachment
// factors.
func (p *chunkPass) lanes(lw *laneWork, batch []int32, rows [][lanes]uint16, n int) {
	b, opts := &lw.chart, p.opts
	stride := n*n + n
	if opts.Factors != nil && len(lw.factors) < lanes*stride {
		lw.factors = make([]float64, lanes*stride)
	}
	if rows != nil {
		b.setRows(rows)
	} else {
		b.setLength(n)
		for l, k := range batch {
			putLane(b.tags, l, lw.sent(int(k)))
		}
		padLanes(b.tags, len(batch))
	}
	var f [][]float64 // each lane's attachment factors, nil for none
	if opts.Factors != nil {
		for l, k := range batch {
			f = append(lw.laneFactors[:l], p.factors(lw.number(int(k)), n, lw.factors[l*stride:(l+1)*stride]))
			lw.laneFactors = f
		}
	}
	b.load(p.tables, p.w, p.dist, f)
	b.scale()
	switch {
	case opts.Bound.On():
		lw.bounded.setLength(n)
		lw.bounded.inside(b)
		if !opts.LogLikOnly {
			lw.bounded.outside(b)
		}
	default:
		b.inside()
		if !opts.LogLikOnly {
			b.outside()
		}
	}
	// The scalar code that follows (logarithms, counts, the next batch's
	// potentials) otherwise waits on the vector registers' upper halves.
	vec8.Settle()
	use := lw.use[:0] // the lanes whose counts are the lane chart's
	for l, k := range batch {
		logZ, ok := b.logZ(l)
		if !ok || !opts.LogLikOnly && !b.usable(l) {
			var fl []float64
			if f != nil {
				fl = f[l]
			}
			p.tally(p.soft(lw.number(int(k)), lw.sent(int(k)), fl))
			continue
		}
		use = append(use, l)
		p.tally(logZ)
	}
	lw.use = use
	if opts.LogLikOnly {
		return
	}
	b.addCounts(use, p.counts)
	if opts.Posteriors != nil {
		lw.edge, lw.root = slices.Grow(lw.edge[:0], n*n)[:n*n], slices.Grow(lw.root[:0], n)[:n]
		for _, l := range use {
			b.posteriors(l, lw.edge, lw.root)
			opts.Posteriors(lw.number(int(batch[l])), lw.edge, lw.root)
		}
	}
}
