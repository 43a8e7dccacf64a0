package hmm

import (
	"math"
	"slices"
	"sync"

	"github.com/grind-nlp/grind/stages/dmv"
)

// Viterbi writes the best tagging of words under p into tags and returns
// its log weight (−Inf when every tagging has weight 0, tags then all 0).
// Max-product vectors are rescaled by their maximum at every position, so
// long sentences do not underflow; ties go to the lowest state number.
func (fb *FB) Viterbi(p *Params, words []int32, tags []int) float64 {
	n := len(words)
	fb.grow(n, width(p.Space))
	if p.Order == 1 {
		return fb.viterbi1(p, words, tags)
	}
	return fb.viterbi2(p, words, tags)
}

func (fb *FB) viterbi1(p *Params, words []int32, tags []int) float64 {
	k, k1 := p.K, p.K+1
	n := len(words)
	sc := p.StartContext() * k1
	d := fb.alpha[:k]
	e := p.emitRow(words[0])
	for t := range d {
		d[t] = p.Trans[sc+t] * e[t]
	}
	logW := 0.0
	for i := 0; i < n; i++ {
		cur := fb.alpha[i*k : (i+1)*k]
		if i > 0 {
			prev := fb.alpha[(i-1)*k : i*k]
			back := fb.back[i*k : (i+1)*k]
			e := p.emitRow(words[i])
			for t := range cur {
				best, arg := -1.0, int32(0)
				for q, v := range prev {
					if x := v * p.Trans[q*k1+t]; x > best {
						best, arg = x, int32(q)
					}
				}
				cur[t], back[t] = best*e[t], arg
			}
		}
		m := 0.0
		for _, v := range cur {
			m = max(m, v)
		}
		if !(m > 0) || math.IsInf(m, 1) {
			clear(tags[:n])
			return math.Inf(-1)
		}
		for t := range cur {
			cur[t] /= m
		}
		logW += math.Log(m)
	}
	last := fb.alpha[(n-1)*k : n*k]
	best, arg := -1.0, 0
	for q, v := range last {
		if x := v * p.Trans[q*k1+k]; x > best {
			best, arg = x, q
		}
	}
	if !(best > 0) {
		clear(tags[:n])
		return math.Inf(-1)
	}
	tags[n-1] = arg
	for i := n - 1; i > 0; i-- {
		tags[i-1] = int(fb.back[i*k+tags[i]])
	}
	return logW + math.Log(best)
}

func (fb *FB) viterbi2(p *Params, words []int32, tags []int) float64 {
	k, k1 := p.K, p.K+1
	wd := k1 * k
	n := len(words)
	sc := p.StartContext() * k1
	d := fb.alpha[:wd]
	for j := range d {
		d[j] = -1 // pairs that cannot occur
	}
	e := p.emitRow(words[0])
	for b := 0; b < k; b++ {
		d[k*k+b] = p.Trans[sc+b] * e[b]
	}
	logW := 0.0
	for i := 0; i < n; i++ {
		cur := fb.alpha[i*wd : (i+1)*wd]
		if i > 0 {
			prev := fb.alpha[(i-1)*wd : i*wd]
			back := fb.back[i*wd : (i+1)*wd]
			e := p.emitRow(words[i])
			for j := k * k; j < wd; j++ {
				cur[j] = -1 // the boundary is never the previous state inside
			}
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					best, arg := -1.0, int32(0)
					for c := 0; c <= k; c++ {
						v := prev[c*k+a]
						if v < 0 {
							continue
						}
						if x := v * p.Trans[(c*k1+a)*k1+b]; x > best {
							best, arg = x, int32(c)
						}
					}
					if best >= 0 {
						best *= e[b]
					}
					cur[a*k+b], back[a*k+b] = best, arg
				}
			}
		}
		m := 0.0
		for _, v := range cur {
			m = max(m, v)
		}
		if !(m > 0) || math.IsInf(m, 1) {
			clear(tags[:n])
			return math.Inf(-1)
		}
		for j, v := range cur {
			if v > 0 {
				cur[j] = v / m
			}
		}
		logW += math.Log(m)
	}
	last := fb.alpha[(n-1)*wd : n*wd]
	best, bc, ba := -1.0, 0, 0
	for c := 0; c <= k; c++ {
		for a := 0; a < k; a++ {
			if v := last[c*k+a]; v >= 0 {
				if x := v * p.Trans[(c*k1+a)*k1+k]; x > best {
					best, bc, ba = x, c, a
				}
			}
		}
	}
	if !(best > 0) {
		clear(tags[:n])
		return math.Inf(-1)
	}
	// Walk back through the pairs: at position i the pair is (t[i-1], t[i]).
	tags[n-1] = ba
	if n > 1 {
		tags[n-2] = bc
	}
	for i := n - 1; i > 1; i-- {
		tags[i-2] = int(fb.back[i*wd+tags[i-1]*k+tags[i]])
	}
	return logW + math.Log(best)
}

// Posterior writes each token's most probable state (maximum marginal
// decoding; ties to the lowest number) into tags and returns log Z.
func (fb *FB) Posterior(p *Params, words []int32, tags []int, gamma []float64) float64 {
	n, k := len(words), p.K
	logZ := fb.Sentence(p, words, nil, nil, gamma[:n*k])
	if math.IsInf(logZ, -1) {
		clear(tags[:n])
		return logZ
	}
	for i := 0; i < n; i++ {
		g := gamma[i*k : (i+1)*k]
		best := 0
		for t, v := range g {
			if v > g[best] {
				best = t
			}
		}
		tags[i] = best
	}
	return logZ
}

// Floored is p for sentences p gives probability 0, decoded by the DMV's
// rule (dmv.Floor): every weight of 0 — a transition or an emission,
// those a tag dictionary forbids included — raised to dmv.Floor, so that
// the best tagging uses as few impossible events as it can. Forward–
// backward over it stays in range: each position's vector is rescaled,
// and every step keeps a weight of at least dmv.Floor/K².
func Floored(p *Params) *Params {
	s, _ := NewSpace(p.Order, p.K, p.V, nil) // the shape of p, which was checked
	q := &Params{Space: s, Trans: slices.Clone(p.Trans), Emit: slices.Clone(p.Emit)}
	for ctx := 0; ctx < s.Contexts(); ctx++ {
		for next := 0; next <= s.K; next++ {
			if i := ctx*(s.K+1) + next; s.transSupported(ctx, next) {
				q.Trans[i] = max(q.Trans[i], dmv.Floor)
			}
		}
	}
	for i, v := range q.Emit {
		q.Emit[i] = max(v, dmv.Floor)
	}
	return q
}

// Decoder tags sentences with p, falling back to Floored(p) (made once,
// when first needed) for a sentence p gives probability 0. Safe for
// concurrent use, each goroutine with its own FB.
type Decoder struct {
	p       *Params
	once    sync.Once
	floored *Params
}

// NewDecoder decodes with p.
func NewDecoder(p *Params) *Decoder { return &Decoder{p: p} }

// Tag writes words' tagging to tags — each token's most probable state
// with posterior (gamma: len(words)·K of scratch), else the Viterbi
// tagging — and says whether the sentence had probability 0 under p.
func (d *Decoder) Tag(fb *FB, words []int32, tags []int, posterior bool, gamma []float64) (fellBack bool) {
	run := func(p *Params) float64 {
		if posterior {
			return fb.Posterior(p, words, tags, gamma)
		}
		return fb.Viterbi(p, words, tags)
	}
	if !math.IsInf(run(d.p), -1) {
		return false
	}
	d.once.Do(func() { d.floored = Floored(d.p) })
	run(d.floored)
	return true
}
