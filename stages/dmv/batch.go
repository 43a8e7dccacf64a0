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

// kernel is the lane kernel in use: laneKernel's, or "" for the scalar
// chart alone (tests and benchmarks set it to compare the two).
var kernel = laneKernel()

// laneKernel is the lane kernel the E-step uses on this machine: the
// AVX-512 lanes where there are some, else none. The plain-Go lanes of a
// build without GOEXPERIMENT=simd are slower than the scalar chart
// (BenchmarkEMIterationKernels: 3–4×, the [8]float64 of each operation
// going through memory), so they run only in tests, which check the
// lanes' arithmetic in every build.
func laneKernel() string {
	if vecKernel == "avx512" && vecRuns() {
		return vecKernel
	}
	return ""
}

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
	index       []int // the window's sentences: their numbers in the corpus,
	start       []int // where their tags start in tags (and one past the last)
	tags        []int
	order       []int       // the sentences by length
	first       []int       // where each length starts in order (while sorting)
	factors     []float64   // each lane's attachment factors (Factors)
	laneFactors [][]float64 // the lanes' slices of factors
	use         []int       // the lanes whose counts the lane chart gives
	edge        []float64   // a lane's posteriors, for Posteriors
	root        []float64
}

// window is how many tokens (or sentences) of a piece are sorted by
// length at a time: a bound on what a worker copies of a large corpus (a
// piece is 1/16 of it), large enough that a window of short sentences
// fills its lanes.
const window = 1 << 14

// byLength is the soft E-step of sentences lo..hi−1 (a piece of
// laneChunks) in order of length, window by window.
func (p *chunkPass) byLength(lo, hi int) error {
	lw := p.e.lanes[p.worker]
	lw.reset()
	err := p.e.corpus.Each(lo, hi, func(i int, tags, _ []int) {
		lw.index = append(lw.index, i)
		lw.start = append(lw.start, len(lw.tags))
		lw.tags = append(lw.tags, tags...)
		if len(lw.tags) >= window || len(lw.index) >= window {
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
	lw.index, lw.start, lw.tags = lw.index[:0], lw.start[:0], lw.tags[:0]
}

// window runs the sentences held in lw by length, and lets them go.
func (p *chunkPass) window(lw *laneWork) {
	defer lw.reset()
	lw.start = append(lw.start, len(lw.tags))
	length := func(k int) int { return lw.start[k+1] - lw.start[k] }
	// By length, by index within a length: a counting sort.
	lw.first = slices.Grow(lw.first[:0], p.e.corpus.MaxLen+2)[:p.e.corpus.MaxLen+2]
	clear(lw.first)
	longest := 0 // of the window's sentences that go on the lanes
	for k := range lw.index {
		n := length(k)
		lw.first[n+1]++
		if n <= batchMaxLen && n <= p.longest {
			longest = max(longest, n)
		}
	}
	// The lane chart's tables at once for the longest, not again at
	// every length up to it (the lengths come in increasing order): a
	// one-shot estep touched 4 times the memory, 0.2–0.5 ms of page faults.
	lw.chart.grow(longest)
	for n := 1; n < len(lw.first); n++ {
		lw.first[n] += lw.first[n-1]
	}
	lw.order = slices.Grow(lw.order[:0], len(lw.index))[:len(lw.index)]
	for k := range lw.index {
		n := length(k)
		lw.order[lw.first[n]] = k
		lw.first[n]++
	}
	for g := 0; g < len(lw.order); {
		n := length(lw.order[g])
		same := g + 1
		for same < len(lw.order) && length(lw.order[same]) == n {
			same++
		}
		for g < same {
			batch := lw.order[g:min(g+lanes, same)]
			// A short batch is padded: a sentence on the scalar chart costs
			// more than several lanes (with only full batches on the lanes
			// and the rest on the scalar chart, an EM iteration on UD
			// English ≤10 / ≤15 took 1.16–1.23× / 1.33–1.41× the CPU time).
			if n > batchMaxLen || n > p.longest {
				for _, k := range batch {
					p.sentence(lw.index[k], lw.sent(k), nil)
				}
			} else {
				p.lanes(lw, batch, n)
			}
			g += len(batch)
		}
	}
}

// sent is the tags of the chunk's k-th sentence.
func (lw *laneWork) sent(k int) []int { return lw.tags[lw.start[k]:lw.start[k+1]] }

// lanes runs the chunk's sentences batch, all of length n, on the lane
// chart, the lanes beyond the batch repeating its last sentence (their
// results unread). A lane whose Z or posteriors the scalar chart would
// not have taken as they are is redone there, from the same attachment
// factors.
func (p *chunkPass) lanes(lw *laneWork, batch []int, n int) {
	b, opts := &lw.chart, p.opts
	stride := n*n + n
	if opts.Factors != nil && len(lw.factors) < lanes*stride {
		lw.factors = make([]float64, lanes*stride)
	}
	var f [][]float64 // each lane's attachment factors, nil for none
	b.setLength(n)
	for l, k := range batch {
		if opts.Factors != nil {
			f = append(lw.laneFactors[:l], p.factors(lw.index[k], n, lw.factors[l*stride:(l+1)*stride]))
			lw.laneFactors = f
		}
		b.setTags(l, lw.sent(k))
	}
	b.padTags(len(batch))
	b.load(p.tables, p.w, p.dist, f)
	b.scale()
	b.inside()
	if !opts.LogLikOnly {
		b.outside()
	}
	// The scalar code that follows (logarithms, counts, the next batch's
	// potentials) otherwise waits on the vector registers' upper halves.
	vec8.Settle()
	use := lw.use[:0] // the lanes whose counts are the lane chart's
	for l, k := range batch {
		i, tags := lw.index[k], lw.sent(k)
		logZ, ok := b.logZ(l)
		if !ok || !opts.LogLikOnly && !b.usable(l) {
			var fl []float64
			if f != nil {
				fl = f[l]
			}
			p.tally(p.soft(i, tags, fl))
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
			opts.Posteriors(lw.index[batch[l]], lw.edge, lw.root)
		}
	}
}
