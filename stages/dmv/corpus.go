package dmv

import (
	"fmt"
	"math"
	"sync"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Corpus is a training or test set held in memory, its tags interned:
// training loops read their data once and run every iteration over it.
type Corpus struct {
	Tags   *TagSet
	Sents  [][]int            // tag numbers
	Gold   [][]int            // gold heads per sentence, nil where absent
	Source []*format.Sentence // the records as read, for decoding output
	Tokens int
	MaxLen int
}

// NewCorpus interns the sentences' tags in ts; when ts is nil, a sorted
// tag set of the sentences' own tags is made. A tag missing from a given
// ts is an error naming the sentence.
func NewCorpus(sents []*format.Sentence, ts *TagSet) (*Corpus, error) {
	if ts == nil {
		seen := map[string]bool{}
		var names []string
		for _, s := range sents {
			for _, t := range s.Tags {
				if !seen[t] {
					seen[t] = true
					names = append(names, t)
				}
			}
		}
		ts = SortedTagSet(names)
	}
	c := &Corpus{Tags: ts, Source: sents, Sents: make([][]int, 0, len(sents)), Gold: make([][]int, 0, len(sents))}
	tokens := 0
	for _, s := range sents {
		tokens += len(s.Tags)
	}
	flat := make([]int, tokens) // every sentence's tag numbers, in one piece
	for i, s := range sents {
		n := len(s.Tags)
		tags, err := ts.Encode(s.Tags, flat[:0:n])
		if err != nil {
			return nil, fmt.Errorf("sentence %d (%s): %w", i+1, s.ID, err)
		}
		flat = flat[n:]
		c.Sents = append(c.Sents, tags)
		c.Gold = append(c.Gold, s.Heads)
		c.Tokens += len(tags)
		c.MaxLen = max(c.MaxLen, len(tags))
	}
	return c, nil
}

// HasGold says whether every sentence carries gold heads.
func (c *Corpus) HasGold() bool {
	for _, g := range c.Gold {
		if g == nil {
			return false
		}
	}
	return len(c.Gold) > 0
}

// EStepOptions choose the E-step's variant.
type EStepOptions struct {
	// Hard takes counts from each sentence's Viterbi tree instead of the
	// posterior over all trees (Viterbi EM); LogLik is then the sum of the
	// best trees' log weights.
	Hard bool
	// Gold takes counts from the gold trees (supervised estimation).
	Gold bool
	// Dist, when not nil, multiplies every edge of length d by Dist(d)
	// (the km and local initializers, Model L).
	Dist func(d int) float64
	// Segment makes every sentence a sequence of trees with weight
	// e^SegBeta per tree beyond the first (Model S, segment.go).
	Segment bool
	SegBeta float64
	// LogLikOnly computes Σ log Z alone, without outside pass or counts
	// (the plain likelihood of a model trained under a bias).
	LogLikOnly bool
	// Workers is the number of goroutines (≤ 0: every core).
	Workers int
}

// EStepResult is what one pass over the corpus gives.
type EStepResult struct {
	Counts *Params
	// LogLik is Σ log Z(x) under the weights given (natural log), −Inf
	// when some sentence has weight 0.
	LogLik float64
	// ZeroWeight counts the sentences whose every tree has weight 0.
	ZeroWeight int
	// Unusable counts the sentences left out of LogLik and Counts because
	// their weights span more than floating point holds at any scale
	// (extreme log-linear weights, a large positive δ on long sentences:
	// a sentence with a distance whose factor Dist(d) overflows).
	Unusable int
}

// chunks is how many pieces the corpus is cut into for the E-step. It is
// fixed so that sums, taken piece by piece in order, do not depend on the
// number of workers: any --workers gives the same bytes.
const chunks = 64

// EStepper runs E-steps over one corpus, keeping its workspaces between
// iterations.
type EStepper struct {
	corpus    *Corpus
	charts    []*Chart
	heads     [][]int
	free      []*Params // count tables of chunks, for reuse
	chunkLL   []float64
	chunkZero []int
	chunkBad  []int
	dist      []float64
}

// NewEStepper prepares E-steps over c.
func NewEStepper(c *Corpus) *EStepper {
	return &EStepper{corpus: c}
}

func (e *EStepper) chunkBounds(k int) (lo, hi int) {
	n := len(e.corpus.Sents)
	return k * n / chunks, (k + 1) * n / chunks
}

// Run computes expected counts (or Viterbi or gold counts) of the corpus
// under weight table w.
func (e *EStepper) Run(w *Params, opts EStepOptions) EStepResult {
	c := e.corpus
	workers := min(pipeline.Workers(opts.Workers), chunks)
	for len(e.charts) < workers {
		e.charts = append(e.charts, NewChart(c.MaxLen))
		e.heads = append(e.heads, make([]int, c.MaxLen))
	}
	if len(e.free) > 0 && e.free[0].T != w.T {
		e.free = nil
	}
	if len(e.chunkLL) != chunks {
		e.chunkLL, e.chunkZero, e.chunkBad = make([]float64, chunks), make([]int, chunks), make([]int, chunks)
	}
	// Each chunk's counts are added to the total in chunk order, whatever
	// order the workers finish them in, and their table goes back to a
	// free list: a few tables live at a time, not one per chunk (a
	// one-shot estep would touch 64 of them).
	res := EStepResult{Counts: NewParams(w.T)}
	var mu sync.Mutex
	pending := make([]*Params, chunks)
	folded := 0
	table := func() *Params {
		mu.Lock()
		defer mu.Unlock()
		if n := len(e.free); n > 0 {
			p := e.free[n-1]
			e.free = e.free[:n-1]
			return p
		}
		return NewParams(w.T)
	}
	done := func(k int, counts *Params) {
		mu.Lock()
		defer mu.Unlock()
		pending[k] = counts
		for folded < chunks && pending[folded] != nil {
			res.Counts.Add(pending[folded])
			e.free = append(e.free, pending[folded])
			pending[folded] = nil
			folded++
		}
	}
	e.dist = e.dist[:0]
	if opts.Dist != nil {
		for d := 0; d <= c.MaxLen; d++ {
			e.dist = append(e.dist, opts.Dist(d))
		}
	}
	var dist []float64
	longest := c.MaxLen // sentences longer than this are unusable
	if opts.Dist != nil {
		dist = e.dist
		for d, v := range dist {
			if math.IsNaN(v) || math.IsInf(v, 0) { // e^{δ·d} beyond floating point
				longest = min(longest, d)
				break
			}
		}
	}
	pipeline.ForEachChunk(chunks, workers, func(worker, k int) {
		counts, ll, zero, bad := table(), 0.0, 0, 0
		counts.Zero()
		chart, heads := e.charts[worker], e.heads[worker]
		lo, hi := e.chunkBounds(k)
		for i := lo; i < hi; i++ {
			tags := c.Sents[i]
			var logZ float64
			switch {
			case len(tags) > longest && !opts.Gold: // some edge's distance factor is not a number
				logZ = math.NaN()
			case opts.Gold:
				AddTreeCounts(tags, c.Gold[i], counts, 1)
				logZ = TreeLogWeight(tags, c.Gold[i], w)
			case opts.Hard:
				chart.Load(tags, w, dist)
				if opts.Segment {
					chart.Segment(opts.SegBeta)
				}
				logZ = chart.Viterbi(heads)
				if !math.IsInf(logZ, -1) && !math.IsNaN(logZ) {
					AddTreeCounts(tags, heads[:len(tags)], counts, 1)
				}
			default:
				chart.Load(tags, w, dist)
				if opts.Segment {
					chart.Segment(opts.SegBeta)
				}
				logZ = chart.Inside()
				if !opts.LogLikOnly && !math.IsInf(logZ, -1) && !math.IsNaN(logZ) {
					if chart.Outside() {
						chart.AddCounts(tags, counts, 1)
					} else {
						logZ = math.NaN() // no usable posteriors
					}
				}
			}
			switch {
			case math.IsNaN(logZ):
				bad++
				continue
			case math.IsInf(logZ, -1):
				zero++
			}
			ll += logZ
		}
		e.chunkLL[k], e.chunkZero[k], e.chunkBad[k] = ll, zero, bad
		done(k, counts)
	})
	for k := 0; k < chunks; k++ {
		res.LogLik += e.chunkLL[k]
		res.ZeroWeight += e.chunkZero[k]
		res.Unusable += e.chunkBad[k]
	}
	return res
}

// Decode parses every sentence of the corpus with its Viterbi tree under
// w (heads 1-based, 0 = root), in parallel. Sentences of weight 0 get
// the fallback of Decoder.
func (e *EStepper) Decode(tags *TagSet, w *Params, workers int) [][]int {
	c := e.corpus
	dec := NewDecoder(tags, w)
	workers = min(pipeline.Workers(workers), chunks)
	for len(e.charts) < workers {
		e.charts = append(e.charts, NewChart(c.MaxLen))
	}
	out := make([][]int, len(c.Sents))
	pipeline.ForEachChunk(chunks, workers, func(worker, k int) {
		lo, hi := e.chunkBounds(k)
		for i := lo; i < hi; i++ {
			out[i] = make([]int, len(c.Sents[i]))
			dec.Decode(e.charts[worker], c.Sents[i], out[i], false)
		}
	})
	return out
}
