package hmm

import (
	"math"

	"github.com/grind-nlp/grind/pipeline"
)

// chunks is how many pieces the corpus is cut into for the E-step. It is
// fixed so that sums, taken chunk by chunk in order, do not depend on the
// number of workers.
const chunks = 32

// chunk is a run of sentences with its own count tables. Emission counts
// are kept over the chunk's own vocabulary (rows), so that 32 chunks of a
// 56,000-word corpus do not each hold a V × K table.
type chunk struct {
	lo, hi int     // sentences [lo, hi)
	vocab  []int32 // local row → word
	rows   [][]int32
	acc    Accum
	logZ   float64
	zero   int
}

// EStepper runs E-steps over one corpus, keeping its workspaces between
// iterations.
type EStepper struct {
	corpus *Corpus
	space  *Space
	chunks []*chunk
	fbs    []*FB // one per worker
	dense  denseModel
}

// EStepResult is one pass over the corpus.
type EStepResult struct {
	Counts *Params
	// LogLik is Σ log Z(x) under the weights given (natural log); −Inf
	// when some sentence has weight 0.
	LogLik float64
	// ZeroWeight counts the sentences whose every tagging has weight 0
	// (left out of the counts).
	ZeroWeight int
}

// NewEStepper prepares E-steps over c for models of shape s, run by
// workers goroutines (≤ 0: every core); the results do not depend on it.
func NewEStepper(c *Corpus, s *Space, workers int) *EStepper {
	e := &EStepper{corpus: c, space: s}
	n := len(c.Sents)
	for i := 0; i < chunks; i++ {
		lo, hi := i*n/chunks, (i+1)*n/chunks
		ch := &chunk{lo: lo, hi: hi}
		local := map[int32]int32{}
		for _, sent := range c.Sents[lo:hi] {
			rows := make([]int32, len(sent))
			for j, w := range sent {
				r, ok := local[w]
				if !ok {
					r = int32(len(ch.vocab))
					local[w] = r
					ch.vocab = append(ch.vocab, w)
				}
				rows[j] = r
			}
			ch.rows = append(ch.rows, rows)
		}
		ch.acc = Accum{Trans: make([]float64, s.Contexts()*(s.K+1)), Emit: make([]float64, len(ch.vocab)*s.K)}
		e.chunks = append(e.chunks, ch)
	}
	e.fbs = make([]*FB, pipeline.Workers(workers))
	for i := range e.fbs {
		e.fbs[i] = new(FB)
	}
	return e
}

// Run computes the expected counts and Σ log Z under the weights p.
func (e *EStepper) Run(p *Params) EStepResult {
	k := e.space.K
	d := denseFor(p, &e.dense)
	pipeline.ForEachChunk(len(e.chunks), len(e.fbs), func(worker, ci int) {
		ch := e.chunks[ci]
		fb := e.fbs[worker]
		clear(ch.acc.Trans)
		clear(ch.acc.Emit)
		ch.logZ, ch.zero = 0, 0
		for i := ch.lo; i < ch.hi; i++ {
			lz := fb.sentence(p, d, e.corpus.Sents[i], &ch.acc, ch.rows[i-ch.lo], nil)
			if math.IsInf(lz, -1) {
				ch.zero++
			}
			ch.logZ += lz
		}
		ch.acc.FinishTrans(p)
	})
	res := EStepResult{Counts: NewParams(e.space)}
	for _, ch := range e.chunks {
		for i, v := range ch.acc.Trans {
			res.Counts.Trans[i] += v
		}
		for r, w := range ch.vocab {
			dst := res.Counts.Emit[int(w)*k : int(w)*k+k]
			src := ch.acc.Emit[r*k : r*k+k]
			for t, v := range src {
				dst[t] += v
			}
		}
		res.LogLik += ch.logZ
		res.ZeroWeight += ch.zero
	}
	return res
}

// Decode tags every sentence: by maximum marginal (posterior true) or
// Viterbi. A sentence of weight 0 is tagged by the fallback (Decoder);
// fellBack counts them.
func (e *EStepper) Decode(p *Params, posterior bool) (tags [][]int, fellBack int) {
	out := make([][]int, len(e.corpus.Sents))
	gammas := make([][]float64, len(e.fbs))
	fell := make([]int, len(e.chunks))
	dec := NewDecoder(p)
	pipeline.ForEachChunk(len(e.chunks), len(e.fbs), func(worker, ci int) {
		ch := e.chunks[ci]
		fb := e.fbs[worker]
		for i := ch.lo; i < ch.hi; i++ {
			words := e.corpus.Sents[i]
			tags := make([]int, len(words))
			if need := len(words) * e.space.K; posterior && cap(gammas[worker]) < need {
				gammas[worker] = make([]float64, need)
			}
			if dec.Tag(fb, words, tags, posterior, gammas[worker]) {
				fell[ci]++
			}
			out[i] = tags
		}
	})
	for _, n := range fell {
		fellBack += n
	}
	return out, fellBack
}
