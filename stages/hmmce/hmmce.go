// Package hmmce trains a log-linear bitag HMM by contrastive estimation
// (Smith 2006 §4.7; Smith & Eisner 2005): each sentence x is made more
// probable than the other word strings of its neighbourhood N(x) — its
// adjacent transpositions (trans1), those and its one-word deletions
// (del1ortrans1), or every string of its length (length). The model
// scores a tagged string by transition, emission and (optional) spelling
// features of each tag; the objective is Σₓ log Z(x) − log Z(N(x)), where
// Z sums exp(score) over every tagging of x, or over every tagging of
// every string of N(x), minus a Gaussian prior. The neighbourhoods are
// nbhd's lattices, built over word ids instead of tags.
//
// It does not read files or write records; a trainer does.
package hmmce

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode"

	"gonum.org/v1/gonum/floats"

	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// chunks is the number of parts the sentences are cut into for Objective:
// a fixed number, so that sums are added in one order for any number of
// workers; few, since each holds a gradient of the whole weight vector.
const chunks = 8

// Model is the feature layout: K tags plus one boundary (start and stop),
// V word types, F spelling features. The weight vector holds transitions
// ((K+1)·(K+1), from the boundary at index K), then emissions (K·V), then
// spelling features (K·F).
type Model struct {
	K, V, F int
	// Spell lists the spelling features of each word type (nil: none).
	Spell [][]int
	// Workers is the number of goroutines of Objective (≤ 1: one).
	Workers int
	// Allowed, V × K word-major, is a tag dictionary: tag t may label
	// word w only when Allowed[w·K+t] (nil: any tag).
	Allowed []bool
}

// Dim is the length of the weight vector.
func (m *Model) Dim() int { return (m.K+1)*(m.K+1) + m.K*m.V + m.K*m.F }

func (m *Model) trans(from, to int) int { return from*(m.K+1) + to }
func (m *Model) emit(t, w int) int      { return (m.K+1)*(m.K+1) + t*m.V + w }
func (m *Model) spell(t, f int) int     { return (m.K+1)*(m.K+1) + m.K*m.V + t*m.F + f }

// local is the score of tag t on word w, without the transition.
func (m *Model) local(theta []float64, t, w int) float64 {
	if m.Allowed != nil && !m.Allowed[w*m.K+t] {
		return math.Inf(-1)
	}
	s := theta[m.emit(t, w)]
	if m.Spell != nil {
		for _, f := range m.Spell[w] {
			s += theta[m.spell(t, f)]
		}
	}
	return s
}

// addLocal adds c to the gradient of local(t, w).
func (m *Model) addLocal(grad []float64, t, w int, c float64) {
	grad[m.emit(t, w)] += c
	if m.Spell != nil {
		for _, f := range m.Spell[w] {
			grad[m.spell(t, f)] += c
		}
	}
}

// SpellingFeatures gives each word type its features: every suffix of 1
// to 3 characters, an initial capital, a hyphen, a digit (Smith §4.7.1).
// It returns the feature lists and the number of distinct features.
func SpellingFeatures(words []string) ([][]int, int) {
	ids := map[string]int{}
	id := func(name string) int {
		if i, ok := ids[name]; ok {
			return i
		}
		ids[name] = len(ids)
		return len(ids) - 1
	}
	out := make([][]int, len(words))
	for i, w := range words {
		r := []rune(w)
		for n := 1; n <= 3 && n <= len(r); n++ {
			out[i] = append(out[i], id("suffix:"+string(r[len(r)-n:])))
		}
		if len(r) > 0 && unicode.IsUpper(r[0]) {
			out[i] = append(out[i], id("cap"))
		}
		if strings.ContainsRune(w, '-') {
			out[i] = append(out[i], id("hyphen"))
		}
		if strings.ContainsFunc(w, unicode.IsDigit) {
			out[i] = append(out[i], id("digit"))
		}
	}
	return out, len(ids)
}

// Neighbourhood is the lattice of kind (nbhd.Trans1, nbhd.Del1OrTrans1 or
// nbhd.Length) over the word ids x, each string once; v is the vocabulary
// size, which only length uses.
func Neighbourhood(kind string, x []int, v int) (*dmv.Lattice, error) {
	switch kind {
	case nbhd.Trans1, nbhd.Del1OrTrans1, nbhd.Length:
		return nbhd.Build(kind, x, v)
	}
	return nil, fmt.Errorf("hmmce: neighbourhood %q not supported (want trans1, del1ortrans1 or length)", kind)
}

// LogZ is log Σ exp(score) over every path of l and every tagging of its
// words, with the expected feature counts added to grad (times scale)
// when grad is not nil. l's states are numbered so that every arc goes
// forward (nbhd's lattices are).
func (m *Model) LogZ(theta []float64, l *dmv.Lattice, grad []float64, scale float64) float64 {
	K, S := m.K, l.States()
	B := K // the boundary
	inf := math.Inf(-1)
	// alpha[s][t]: log weight of reaching state s with last tag t (B at the start).
	alpha := make([][]float64, S)
	beta := make([][]float64, S)
	for s := range alpha {
		alpha[s] = fill(K+1, inf)
		beta[s] = fill(K+1, inf)
	}
	alpha[0][B] = 0
	byFrom := make([][]int, S)
	byTo := make([][]int, S)
	for i, a := range l.Arcs {
		if l.Dead != nil && l.Dead[i] {
			continue
		}
		byFrom[a.From] = append(byFrom[a.From], i)
		byTo[a.To] = append(byTo[a.To], i)
	}
	// loc[i·K+t]: the local score of tag t on arc i's word, once per arc.
	loc := make([]float64, len(l.Arcs)*K)
	for i, a := range l.Arcs {
		for t := 0; t < K; t++ {
			loc[i*K+t] = m.local(theta, t, a.Tag)
		}
	}
	terms := make([]float64, 0, K+1)
	for s := 1; s < S; s++ {
		for t := 0; t < K; t++ {
			terms = terms[:0]
			for _, i := range byTo[s] {
				a := l.Arcs[i]
				loc := loc[i*K+t]
				if loc == inf {
					continue // the dictionary forbids t here
				}
				for p := 0; p <= K; p++ {
					if alpha[a.From][p] > inf {
						terms = append(terms, alpha[a.From][p]+theta[m.trans(p, t)]+loc)
					}
				}
			}
			alpha[s][t] = logSum(terms)
		}
	}
	for s := S - 1; s >= 0; s-- {
		for p := 0; p <= K; p++ {
			terms = terms[:0]
			if l.Final[s] && p != B {
				terms = append(terms, theta[m.trans(p, B)])
			}
			for _, i := range byFrom[s] {
				a := l.Arcs[i]
				for t := 0; t < K; t++ {
					if loc[i*K+t] > inf {
						terms = append(terms, theta[m.trans(p, t)]+loc[i*K+t]+beta[a.To][t])
					}
				}
			}
			beta[s][p] = logSum(terms)
		}
	}
	logZ := beta[0][B]
	if grad == nil || math.IsInf(logZ, -1) {
		return logZ
	}
	for i, a := range l.Arcs {
		if l.Dead != nil && l.Dead[i] {
			continue
		}
		for t := 0; t < K; t++ {
			loc := loc[i*K+t]
			if loc == inf {
				continue
			}
			tot := 0.0
			for p := 0; p <= K; p++ {
				if alpha[a.From][p] == inf {
					continue
				}
				post := math.Exp(alpha[a.From][p] + theta[m.trans(p, t)] + loc + beta[a.To][t] - logZ)
				grad[m.trans(p, t)] += scale * post
				tot += post
			}
			m.addLocal(grad, t, a.Tag, scale*tot)
		}
	}
	for s := range l.Final {
		if !l.Final[s] {
			continue
		}
		for p := 0; p < K; p++ {
			if alpha[s][p] > inf {
				grad[m.trans(p, B)] += scale * math.Exp(alpha[s][p]+theta[m.trans(p, B)]-logZ)
			}
		}
	}
	return logZ
}

// Objective is Σₓ log Z(x) − log Z(N(x)) − ‖θ‖²/(2σ²) (no prior when
// sigma2 is 0 or +Inf) over the sentences and their neighbourhoods, with its
// gradient written into grad when grad is not nil.
//
// The sentences are cut into a fixed number of chunks whose sums are
// added in order, so the value does not depend on m.Workers.
func (m *Model) Objective(theta []float64, sents [][]int, nbhds []*dmv.Lattice, sigma2 float64, grad []float64) float64 {
	if grad != nil {
		clear(grad)
	}
	nc := min(chunks, len(sents))
	fs := make([]float64, nc)
	grads := make([][]float64, nc)
	work := func(c int) {
		var g []float64
		if grad != nil {
			g = make([]float64, len(grad))
			grads[c] = g
		}
		for i := c * len(sents) / nc; i < (c+1)*len(sents)/nc; i++ {
			fs[c] += m.LogZ(theta, dmv.ChainLattice(sents[i]), g, 1)
			fs[c] -= m.LogZ(theta, nbhds[i], g, -1)
		}
	}
	next := make(chan int, nc)
	for c := 0; c < nc; c++ {
		next <- c
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < max(1, min(m.Workers, nc)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				work(c)
			}
		}()
	}
	wg.Wait()
	f := 0.0
	for c := 0; c < nc; c++ {
		f += fs[c]
		if grad != nil {
			floats.Add(grad, grads[c])
		}
	}
	if sigma2 > 0 && !math.IsInf(sigma2, 1) {
		for j, v := range theta {
			f -= v * v / (2 * sigma2)
			if grad != nil {
				grad[j] -= v / sigma2
			}
		}
	}
	return f
}

// Viterbi is the best tagging of x.
func (m *Model) Viterbi(theta []float64, x []int) []int {
	K, n := m.K, len(x)
	B := K
	score := make([][]float64, n)
	back := make([][]int, n)
	for i := range score {
		score[i] = fill(K, math.Inf(-1))
		back[i] = make([]int, K)
	}
	for t := 0; t < K; t++ {
		score[0][t] = theta[m.trans(B, t)] + m.local(theta, t, x[0])
		back[0][t] = B
	}
	for i := 1; i < n; i++ {
		for t := 0; t < K; t++ {
			loc := m.local(theta, t, x[i])
			for p := 0; p < K; p++ {
				if v := score[i-1][p] + theta[m.trans(p, t)] + loc; v > score[i][t] {
					score[i][t], back[i][t] = v, p
				}
			}
		}
	}
	best, bt := math.Inf(-1), 0
	for t := 0; t < K; t++ {
		if v := score[n-1][t] + theta[m.trans(t, B)]; v > best {
			best, bt = v, t
		}
	}
	tags := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		tags[i] = bt
		bt = back[i][bt]
	}
	return tags
}

func fill(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func logSum(xs []float64) float64 {
	max := math.Inf(-1)
	for _, x := range xs {
		if x > max {
			max = x
		}
	}
	if math.IsInf(max, -1) {
		return max
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - max)
	}
	return max + math.Log(s)
}
