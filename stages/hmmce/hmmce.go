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
// V word types, F spelling features. The weight vector holds transitions,
// then emissions (K·V), then spelling features (K·F). A bitag model's
// transitions are (K+1)·(K+1), from the previous tag (the boundary at
// index K) to the next; a trigram model's (K+1)³, from the context of the
// two previous tags, a·(K+1) + b, to the next.
type Model struct {
	K, V, F int
	// Order is 2 for the trigram model (Smith 2006 §4.7's); else bitag.
	Order int
	// Spell lists the spelling features of each word type (nil: none).
	Spell [][]int
	// Workers is the number of goroutines of Objective (≤ 1: one).
	Workers int
	// Allowed, V × K word-major, is a tag dictionary: tag t may label
	// word w only when Allowed[w·K+t] (nil: any tag).
	Allowed []bool
}

// Dim is the length of the weight vector.
func (m *Model) Dim() int { return m.transLen() + m.K*m.V + m.K*m.F }

// Trigram says whether the model is the trigram one.
func (m *Model) Trigram() bool { return m.Order == 2 }

// contexts is the number of transition contexts: K+1 previous tags, or
// (K+1)² pairs of them.
func (m *Model) contexts() int {
	if m.Trigram() {
		return (m.K + 1) * (m.K + 1)
	}
	return m.K + 1
}

func (m *Model) transLen() int { return m.contexts() * (m.K + 1) }

// isTrans says whether weight i (< transLen) is a transition's: not the
// empty string's (boundary to boundary), not from a context that never
// occurs (a tag, then the boundary).
func (m *Model) isTrans(i int) bool {
	k, k1 := m.K, m.K+1
	ctx, next := i/k1, i%k1
	if !m.Trigram() {
		return ctx != k || next != k
	}
	if ctx%k1 == k && ctx/k1 != k {
		return false
	}
	return ctx != k*k1+k || next != k
}

// trans is the index of the transition from context from (a previous tag,
// or a pair of them a·(K+1) + b) to tag to (K: stop).
func (m *Model) trans(from, to int) int { return from*(m.K+1) + to }
func (m *Model) emit(t, w int) int      { return m.transLen() + t*m.V + w }
func (m *Model) spell(t, f int) int     { return m.transLen() + m.K*m.V + t*m.F + f }

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

// SpellingFeatures gives each word type its features: every suffix of 1
// to 3 characters, an initial capital, a hyphen, a digit (Smith §4.7.1).
// It returns the feature lists and the features' names, numbered in
// order of first appearance.
func SpellingFeatures(words []string) ([][]int, []string) {
	ids := map[string]int{}
	var names []string
	out := make([][]int, len(words))
	for i, w := range words {
		for _, name := range Spelling(w) {
			id, ok := ids[name]
			if !ok {
				id = len(names)
				ids[name] = id
				names = append(names, name)
			}
			out[i] = append(out[i], id)
		}
	}
	return out, names
}

// Spelling names the spelling features of a word: "suffix:" and each of
// its last 1 to 3 characters, "cap", "hyphen", "digit".
func Spelling(w string) []string {
	var out []string
	r := []rune(w)
	for n := 1; n <= 3 && n <= len(r); n++ {
		out = append(out, "suffix:"+string(r[len(r)-n:]))
	}
	if len(r) > 0 && unicode.IsUpper(r[0]) {
		out = append(out, "cap")
	}
	if strings.ContainsRune(w, '-') {
		out = append(out, "hyphen")
	}
	if strings.ContainsFunc(w, unicode.IsDigit) {
		out = append(out, "digit")
	}
	return out
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

// potentials are one evaluation's weights, exponentiated once: the
// lattice passes then multiply and add, with no exp or log per term.
// Transitions are exp(θ − maxT) and a word's local scores exp(local −
// maxLoc[w]); the two maxima return as each arc's log factor, so no
// potential overflows. (A transition more than ~700 nats below the
// largest one underflows to 0; CE's weights stay far from that.)
type potentials struct {
	K       int
	trigram bool
	// trans is (K+1)×(K+1), row = previous tag, column K = stop, or for
	// the trigram model (K+1)²×(K+1), row = the context of two tags;
	// 0 where there is no transition (the empty string's, from a context
	// that never occurs).
	trans  []float64
	maxT   float64
	emit   []float64 // V×K word-major; 0 where the dictionary forbids the tag
	maxLoc []float64 // per word; −Inf when every tag is forbidden
}

func (m *Model) potentials(theta []float64) *potentials {
	K := m.K
	p := &potentials{K: K, trigram: m.Trigram(), trans: make([]float64, m.transLen()), maxT: math.Inf(-1),
		emit: make([]float64, m.V*K), maxLoc: make([]float64, m.V)}
	tr := theta[:m.transLen()]
	for i, v := range tr {
		if m.isTrans(i) {
			p.maxT = math.Max(p.maxT, v)
		}
	}
	for i, v := range tr {
		if m.isTrans(i) {
			p.trans[i] = math.Exp(v - p.maxT)
		}
	}
	loc := make([]float64, K)
	for w := 0; w < m.V; w++ {
		mx := math.Inf(-1)
		for t := range loc {
			loc[t] = m.local(theta, t, w)
			mx = math.Max(mx, loc[t])
		}
		p.maxLoc[w] = mx
		if math.IsInf(mx, -1) {
			continue
		}
		row := p.emit[w*K : (w+1)*K]
		for t, v := range loc {
			row[t] = math.Exp(v - mx) // exp(−Inf) = 0: forbidden
		}
	}
	return p
}

// counts are expected feature counts before they are mapped onto the
// weights: transitions without their potential (the outer products of
// forward and backward vectors; multiplied by the potential once per
// evaluation), and emissions by (word, tag).
type counts struct {
	trans []float64 // (K+1)×(K+1)
	emit  []float64 // V×K
}

func newCounts(m *Model) *counts {
	return &counts{trans: make([]float64, m.transLen()), emit: make([]float64, m.V*m.K)}
}

// addTo adds the counts to the gradient: transitions times their
// potentials, emissions to their weights and their words' spelling features.
func (c *counts) addTo(m *Model, p *potentials, grad []float64) {
	for i, v := range c.trans {
		grad[i] += v * p.trans[i]
	}
	K := m.K
	for w := 0; w < m.V; w++ {
		row := c.emit[w*K : (w+1)*K]
		for t, v := range row {
			if v == 0 {
				continue
			}
			grad[m.emit(t, w)] += v
			if m.Spell != nil {
				for _, f := range m.Spell[w] {
					grad[m.spell(t, f)] += v
				}
			}
		}
	}
}

// lattice is the scratch space of the lattice passes, reused from sentence
// to sentence.
type lattice struct {
	outStart, inStart []int // CSR offsets by state into outArcs, inArcs
	outArcs, inArcs   []int
	alpha, beta       []float64 // S×C over contexts (logZ), each state's vector scaled to sum 1
	la, lb            []float64 // their log scales
	u                 []float64 // S×C: alpha·T, the weight of each next tag (column K: stop)
	nz                []int     // S×C: the contexts with alpha > 0, nnz[s] of them
	nnz               []int
	g                 []float64 // C
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func growInt(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// index builds the arcs' CSR lists by source and by target, dead arcs left out.
func (w *lattice) index(l *dmv.Lattice) {
	S := l.States()
	w.outStart, w.inStart = growInt(w.outStart, S+1), growInt(w.inStart, S+1)
	live := 0
	for i, a := range l.Arcs {
		if l.Dead != nil && l.Dead[i] {
			continue
		}
		w.outStart[a.From+1]++
		w.inStart[a.To+1]++
		live++
	}
	for s := 0; s < S; s++ {
		w.outStart[s+1] += w.outStart[s]
		w.inStart[s+1] += w.inStart[s]
	}
	w.outArcs, w.inArcs = growInt(w.outArcs, live), growInt(w.inArcs, live)
	o, in := growInt(nil, S), growInt(nil, S)
	for i, a := range l.Arcs {
		if l.Dead != nil && l.Dead[i] {
			continue
		}
		w.outArcs[w.outStart[a.From]+o[a.From]] = i
		o[a.From]++
		w.inArcs[w.inStart[a.To]+in[a.To]] = i
		in[a.To]++
	}
}

// LogZ is log Σ exp(score) over every path of l and every tagging of its
// words, with the expected feature counts added to grad (times scale)
// when grad is not nil. l's states are numbered so that every arc goes
// forward (nbhd's lattices are).
func (m *Model) LogZ(theta []float64, l *dmv.Lattice, grad []float64, scale float64) float64 {
	p := m.potentials(theta)
	var c *counts
	if grad != nil {
		c = newCounts(m)
	}
	var w lattice
	logZ := w.logZ(p, l, c, scale)
	if c != nil {
		c.addTo(m, p, grad)
	}
	return logZ
}

// logZ is LogZ on the potentials, counting into c (nil: no counts).
//
// Forward–backward over the lattice's states in probability space: each
// state's vector is rescaled to sum 1 and its log scale kept, as in
// stages/hmm. The vector runs over contexts: the previous tag for the
// bitag model, the last two tags (a, b) = a·(K+1) + b for the trigram
// (the boundary before the first word and after the last is tag K). The
// transition product is taken once per state, not per arc (u = alpha·T
// serves every arc leaving the state, and backward's T·g every arc
// leaving it likewise), so the cost is O(states·C·(K+1) + arcs·C) for C
// contexts; contexts of weight 0 (a dictionary's) are skipped.
//
// u and g are laid out as blocks of K+1 by the context's last tag b —
// u[(b, t)], the weight of a step to t from contexts ending in b; one
// block for the bitag model, whose contexts are that tag alone.
func (w *lattice) logZ(p *potentials, l *dmv.Lattice, c *counts, scale float64) float64 {
	K, S := p.K, l.States()
	B, K1 := K, K+1
	blocks, start := 1, B // the bitag model: context = previous tag
	if p.trigram {
		blocks, start = K1, B*K1+B
	}
	C := blocks * K1
	// block is the block of u and g a context's step reads: its last tag.
	block := func(ctx int) int { return ctx % blocks }
	// The bitag model's forward vector sums over the K tags (its boundary
	// slot is never reached after the start); the trigram's over every
	// context.
	summed := C
	if !p.trigram {
		summed = K
	}
	inf := math.Inf(-1)
	w.index(l)
	w.alpha, w.beta = grow(w.alpha, S*C), grow(w.beta, S*C)
	w.u = grow(w.u, S*C)
	w.la, w.lb = grow(w.la, S), grow(w.lb, S)
	w.nz, w.nnz = growInt(w.nz, S*C), growInt(w.nnz, S)
	w.g = grow(w.g, C)
	T := p.trans

	// Forward.
	finish := func(s int) { // the nonzero contexts of s, and u = alpha·T
		a, u, nz := w.alpha[s*C:(s+1)*C], w.u[s*C:(s+1)*C], w.nz[s*C:(s+1)*C]
		n := 0
		for ctx, v := range a {
			if v != 0 {
				nz[n] = ctx
				n++
				b := block(ctx)
				floats.AddScaled(u[b*K1:(b+1)*K1], v, T[ctx*K1:(ctx+1)*K1])
			}
		}
		w.nnz[s] = n
	}
	w.alpha[start] = 1
	w.la[0] = 0
	finish(0)
	for s := 1; s < S; s++ {
		ref := inf
		for _, i := range w.inArcs[w.inStart[s]:w.inStart[s+1]] {
			a := l.Arcs[i]
			ref = math.Max(ref, w.la[a.From]+p.maxLoc[a.Tag])
		}
		if ref == inf {
			w.la[s] = inf
			continue
		}
		a := w.alpha[s*C : s*C+summed]
		for _, i := range w.inArcs[w.inStart[s]:w.inStart[s+1]] {
			arc := l.Arcs[i]
			f := math.Exp(w.la[arc.From] + p.maxLoc[arc.Tag] - ref)
			if f == 0 {
				continue
			}
			u, e := w.u[arc.From*C:(arc.From+1)*C], p.emit[arc.Tag*K:(arc.Tag+1)*K]
			for b := 0; b < blocks; b++ {
				ub, ab := u[b*K1:b*K1+K], a[b*K1:b*K1+K]
				for t := range ab {
					ab[t] += f * ub[t] * e[t]
				}
			}
		}
		z := floats.Sum(a)
		if z == 0 {
			w.la[s] = inf
			continue
		}
		floats.Scale(1/z, a)
		w.la[s] = ref + p.maxT + math.Log(z)
		finish(s)
	}
	ref := inf
	for s := 0; s < S; s++ {
		if l.Final[s] {
			ref = math.Max(ref, w.la[s])
		}
	}
	if ref == inf {
		return inf
	}
	z := 0.0
	for s := 0; s < S; s++ {
		if l.Final[s] && w.la[s] > inf {
			stop := 0.0
			for b := 0; b < blocks; b++ {
				stop += w.u[s*C+b*K1+B]
			}
			z += math.Exp(w.la[s]-ref) * stop
		}
	}
	if z == 0 {
		return inf
	}
	logZ := ref + p.maxT + math.Log(z)
	if c == nil {
		return logZ
	}

	// Backward, with the counts of each state's outgoing arcs.
	for s := S - 1; s >= 0; s-- {
		if w.la[s] == inf {
			w.lb[s] = inf
			continue
		}
		ref := inf
		if l.Final[s] {
			ref = 0
		}
		for _, i := range w.outArcs[w.outStart[s]:w.outStart[s+1]] {
			a := l.Arcs[i]
			ref = math.Max(ref, w.lb[a.To]+p.maxLoc[a.Tag])
		}
		if ref == inf {
			w.lb[s] = inf
			continue
		}
		// g[(b, t)]: what follows a step to tag t from a context ending in
		// b, over exp(ref): the stop, or an arc's emission and its target's
		// backward vector at the context the step makes.
		g := w.g
		clear(g)
		if l.Final[s] {
			for b := 0; b < blocks; b++ {
				g[b*K1+B] = math.Exp(-ref)
			}
		}
		for _, i := range w.outArcs[w.outStart[s]:w.outStart[s+1]] {
			a := l.Arcs[i]
			f := math.Exp(w.lb[a.To] + p.maxLoc[a.Tag] - ref)
			if f == 0 {
				continue
			}
			bt, e := w.beta[a.To*C:(a.To+1)*C], p.emit[a.Tag*K:(a.Tag+1)*K]
			for b := 0; b < blocks; b++ {
				gb, bb := g[b*K1:b*K1+K], bt[b*K1:b*K1+K]
				for t := range gb {
					gb[t] += f * e[t] * bb[t]
				}
			}
		}
		b := w.beta[s*C : (s+1)*C]
		nz := w.nz[s*C : s*C+w.nnz[s]]
		sum := 0.0
		for _, ctx := range nz {
			k := block(ctx)
			b[ctx] = floats.Dot(T[ctx*K1:(ctx+1)*K1], g[k*K1:(k+1)*K1])
			sum += b[ctx]
		}
		if sum == 0 {
			w.lb[s] = inf
			continue
		}
		floats.Scale(1/sum, b)
		w.lb[s] = ref + p.maxT + math.Log(sum)

		// Transitions out of s: alpha[ctx]·T[ctx → t]·g[(b, t)], T applied
		// later.
		a := w.alpha[s*C : (s+1)*C]
		if f := scale * math.Exp(w.la[s]+ref+p.maxT-logZ); f != 0 {
			for _, ctx := range nz {
				k := block(ctx)
				floats.AddScaled(c.trans[ctx*K1:(ctx+1)*K1], f*a[ctx], g[k*K1:(k+1)*K1])
			}
		}
		// Emissions on each arc out of s: Σ_b u[(b, t)]·E[t]·beta[to][(b, t)].
		u := w.u[s*C : (s+1)*C]
		for _, i := range w.outArcs[w.outStart[s]:w.outStart[s+1]] {
			arc := l.Arcs[i]
			f := scale * math.Exp(w.la[s]+p.maxT+p.maxLoc[arc.Tag]+w.lb[arc.To]-logZ)
			if f == 0 {
				continue
			}
			bt, e := w.beta[arc.To*C:(arc.To+1)*C], p.emit[arc.Tag*K:(arc.Tag+1)*K]
			ec := c.emit[arc.Tag*K : (arc.Tag+1)*K]
			for b := 0; b < blocks; b++ {
				ub, bb := u[b*K1:b*K1+K], bt[b*K1:b*K1+K]
				for t := range ec {
					ec[t] += f * ub[t] * e[t] * bb[t]
				}
			}
		}
	}
	return logZ
}

// Objective is Σₓ log Z(x) − log Z(N(x)) − ‖θ‖²/(2σ²) (no prior when
// sigma2 is 0 or +Inf) over the sentences and their neighbourhoods, with its
// gradient written into grad when grad is not nil.
//
// The potentials are exponentiated once per call. The sentences are cut
// into a fixed number of chunks whose sums are added in order, so the
// value does not depend on m.Workers.
func (m *Model) Objective(theta []float64, sents [][]int, nbhds []*dmv.Lattice, sigma2 float64, grad []float64) float64 {
	if grad != nil {
		clear(grad)
	}
	f := 0.0
	if nc := min(chunks, len(sents)); nc > 0 {
		pot := m.potentials(theta)
		fs := make([]float64, nc)
		cs := make([]*counts, nc)
		work := func(c int) {
			var cc *counts
			if grad != nil {
				cc = newCounts(m)
				cs[c] = cc
			}
			var w lattice
			for i := c * len(sents) / nc; i < (c+1)*len(sents)/nc; i++ {
				fs[c] += w.logZ(pot, dmv.ChainLattice(sents[i]), cc, 1)
				fs[c] -= w.logZ(pot, nbhds[i], cc, -1)
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
		for c := 0; c < nc; c++ {
			f += fs[c]
		}
		if grad != nil {
			for c := 1; c < nc; c++ {
				floats.Add(cs[0].trans, cs[c].trans)
				floats.Add(cs[0].emit, cs[c].emit)
			}
			cs[0].addTo(m, pot, grad)
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

// Viterbi is the best tagging of x (ties to the lowest tags).
func (m *Model) Viterbi(theta []float64, x []int) []int {
	if m.Trigram() {
		return m.viterbi2(theta, x)
	}
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
