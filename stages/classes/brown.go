package classes

import (
	"math"
	mathbits "math/bits"
	"slices"
	"sort"

	"github.com/grind-nlp/grind/pipeline"
)

// Brown clustering (Brown, deSouza, Mercer, Della Pietra & Lai 1992, "Class-based
// n-gram models of natural language"), with the window of Liang's
// brown-cluster (Liang 2005): the K most frequent words start as K
// clusters; each further word, in order of decreasing count, becomes a
// cluster of its own and then the two clusters whose merge loses the
// least average mutual information (AMI) are merged (stage 1); at the end
// the K clusters are merged the same way down to one (stage 2), and each
// class is named by its path from the root of stage 2's tree, 0 for the
// first child and 1 for the second, so that a prefix of a path is a
// coarser class.
//
// The text is each sentence followed by a sentence boundary, read as one
// cyclic stream: every token (boundaries included) is the left member of
// exactly one bigram and the right member of exactly one, so the unigram
// distribution p(c) = n(c)/T is both marginals of the bigram distribution
// p(c, d) = n(c, d)/T (T = tokens + sentences), and
//
//	AMI = Σ_{c,d} p(c, d) · ln( p(c, d) / (p(c) p(d)) ).
//
// The boundary is a cluster of its own that is never merged. As in
// brown-cluster, a bigram counts only once both its words have been
// added, while the marginals are always the whole text's (fixed), which
// is what keeps every update O(1).
//
// Each merge costs O(K²): L(a, b), the AMI lost by merging a and b, is
// kept for every pair and updated in O(1) per pair after a merge or an
// addition (Brown et al. §3; the same updates as brown-cluster), and
// computed afresh for the pairs of the new cluster, from the sums of its
// row and column and the cells where both clusters meet a third.

// BrownOptions choose the number of classes and the cores.
type BrownOptions struct {
	Classes int
	Workers int
	// Trace, when not nil, hears every merge (for tests).
	Trace func(Merge)
}

// Merge is one merge as Trace hears it: the clusters before
// it (word indices), which two were merged and the AMI lost (nats).
type Merge struct {
	Clusters [][]int32
	A, B     int
	Loss     float64
}

// BrownResult is each word type's class path and the AMI of the K
// classes (nats).
type BrownResult struct {
	Paths []string // by word type
	AMI   float64
}

// boundary is the slot of the sentence boundary.
const boundary = 0

type brown struct {
	k    int       // slots: the boundary, the window's clusters, one free
	n    []float64 // k×k bigram counts of (row cluster, column cluster), integers
	q, h []float64 // k×k: each cell's AMI term, and p·ln p of its probability
	tok  []float64 // tokens of each slot's cluster (an integer: exact under merges)
	lp1  []float64 // ln p(c) = ln(tok/T)
	loss []float64 // k×k, loss[v·k+w] for v < w: the AMI lost merging v and w
	rowq []float64 // the AMI terms that involve each slot
	// Sums over each slot's row and column: Σ p·ln p, Σ n, Σ n·ln p(other)
	hRow, nRow, lRow, hCol, nCol, lCol []float64
	// rowBits, colBits: which cells of each row and column are not 0
	// (words uint64s a slot); a pair's loss visits only the cells where
	// both clusters' rows (or columns) are not 0.
	rowBits, colBits []uint64
	words            int
	live             []bool
	act              []int   // the live slots that may merge, in slot order
	id               []int32 // each live slot's id: the rank of its most frequent word
	members          [][]int32
	slotOf           []int32 // word → slot; -1 before the word is added; the boundary word is in slot 0
	right            [][]neighbour
	left             [][]neighbour
	inv              float64 // 1/T
	counts           []int
	workers          int
	next             cand   // the best pair after the last add
	found            []cand // each chunk's best pair

	// scratch of a merge: the old rows and columns of the merged slots
	oldSRow, oldSCol, oldTRow, oldTCol, oldBQS, oldBQT, delta []float64
	oldHSRow, oldHSCol, oldHTRow, oldHTCol                    []float64
}

type neighbour struct {
	w int32 // word index; len(types) is the boundary
	n float64
}

// Brown clusters the corpus's word types into opts.Classes classes.
func Brown(c *Corpus, opts BrownOptions) (*BrownResult, error) {
	if err := checkClasses(c, opts.Classes); err != nil {
		return nil, err
	}
	v := len(c.Types)
	window := opts.Classes
	b := newBrown(c, window, opts.Workers)
	for w := 0; w < window; w++ {
		b.add(int32(w))
	}
	for w := window; w < v; w++ {
		b.add(int32(w))
		s, t := b.next.s, b.next.t
		if opts.Trace != nil {
			opts.Trace(b.traceMerge(s, t))
		}
		b.merge(s, t)
	}
	res := &BrownResult{Paths: make([]string, v), AMI: b.totalAMI()}

	// Stage 2: the tree over the K classes.
	type node struct{ kids [2]int }
	var nodes []node // leaves first (one per class), then merges
	nodeOf := make([]int, b.k)
	leafWords := [][]int32{}
	for _, s := range b.act {
		nodeOf[s] = len(nodes)
		nodes = append(nodes, node{kids: [2]int{-1, -1}})
		leafWords = append(leafWords, b.members[s])
	}
	for len(b.act) > 1 {
		s, t := b.best()
		if opts.Trace != nil {
			opts.Trace(b.traceMerge(s, t))
		}
		first, second := nodeOf[s], nodeOf[t]
		if b.id[t] < b.id[s] {
			first, second = second, first
		}
		nodes = append(nodes, node{kids: [2]int{first, second}})
		nodeOf[b.merge(s, t)] = len(nodes) - 1
	}
	var walk func(n int, path []byte)
	walk = func(n int, path []byte) {
		if nodes[n].kids[0] < 0 {
			for _, w := range leafWords[n] {
				res.Paths[w] = string(path)
			}
			return
		}
		walk(nodes[n].kids[0], append(path, '0'))
		walk(nodes[n].kids[1], append(path, '1'))
	}
	walk(len(nodes)-1, nil)
	return res, nil
}

func newBrown(c *Corpus, window, workers int) *brown {
	v := len(c.Types)
	k := window + 2
	b := &brown{
		k: k, n: make([]float64, k*k), q: make([]float64, k*k), h: make([]float64, k*k),
		tok: make([]float64, k), lp1: make([]float64, k), loss: make([]float64, k*k), rowq: make([]float64, k),
		live: make([]bool, k), id: make([]int32, k), members: make([][]int32, k),
		slotOf: make([]int32, v+1), counts: c.Counts, workers: pipeline.Workers(workers),
	}
	b.words = (k + 63) / 64
	b.rowBits, b.colBits = make([]uint64, k*b.words), make([]uint64, k*b.words)
	for _, s := range []*[]float64{&b.hRow, &b.nRow, &b.lRow, &b.hCol, &b.nCol, &b.lCol, &b.oldSRow, &b.oldSCol, &b.oldTRow, &b.oldTCol, &b.oldBQS, &b.oldBQT, &b.delta, &b.oldHSRow, &b.oldHSCol, &b.oldHTRow, &b.oldHTCol} {
		*s = make([]float64, k)
	}
	for i := range b.slotOf {
		b.slotOf[i] = -1
	}
	// Bigrams of the cyclic stream: (boundary, first word), the words'
	// pairs, (last word, boundary), for every sentence.
	bnd := int32(v)
	var keys []uint64
	for _, s := range c.Sents {
		prev := bnd
		for _, w := range s {
			keys = append(keys, uint64(prev)<<32|uint64(w))
			prev = w
		}
		keys = append(keys, uint64(prev)<<32|uint64(bnd))
	}
	slices.Sort(keys)
	b.right, b.left = make([][]neighbour, v+1), make([][]neighbour, v+1)
	for i := 0; i < len(keys); {
		j := i
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		x, y := int32(keys[i]>>32), int32(uint32(keys[i]))
		b.right[x] = append(b.right[x], neighbour{y, float64(j - i)})
		b.left[y] = append(b.left[y], neighbour{x, float64(j - i)})
		i = j
	}
	total := float64(len(keys)) // tokens + sentences
	b.inv = 1 / total
	b.live[boundary] = true
	b.slotOf[v] = boundary
	b.tok[boundary] = float64(len(c.Sents))
	b.lp1[boundary] = math.Log(b.tok[boundary] * b.inv)
	b.id[boundary] = -1
	// The boundary's bigrams with itself never occur (no empty sentences).
	return b
}

// at indexes a k×k matrix.
func (b *brown) at(r, c int) int { return r*b.k + c }

// setCell sets a cell's count and derives its q and h.
func (b *brown) setCell(r, c int, n float64) {
	i := b.at(r, c)
	b.n[i] = n
	rw, rbit := r*b.words+c/64, uint64(1)<<(c%64)
	cw, cbit := c*b.words+r/64, uint64(1)<<(r%64)
	if n == 0 {
		b.q[i], b.h[i] = 0, 0
		b.rowBits[rw] &^= rbit
		b.colBits[cw] &^= cbit
		return
	}
	b.rowBits[rw] |= rbit
	b.colBits[cw] |= cbit
	p := n * b.inv
	lp := math.Log(p)
	b.h[i] = p * lp
	b.q[i] = p * (lp - b.lp1[r] - b.lp1[c])
}

// hyp is the AMI term of a hypothetical cell of count a+b (the sum of
// two cells whose p·ln p are ha, hb), with log marginals lr and lc.
func (b *brown) hyp(a, bb, ha, hb, lr, lc float64) float64 {
	n := a + bb
	if n == 0 {
		return 0
	}
	var h float64
	switch {
	case a == 0:
		h = hb
	case bb == 0:
		h = ha
	default:
		p := n * b.inv
		h = p * math.Log(p)
	}
	return h - n*b.inv*(lr+lc)
}

func (b *brown) freeSlot() int {
	for s := 1; s < b.k; s++ {
		if !b.live[s] {
			return s
		}
	}
	panic("classes: no free slot")
}

func (b *brown) setAct() {
	b.act = b.act[:0]
	for s := 1; s < b.k; s++ {
		if b.live[s] {
			b.act = append(b.act, s)
		}
	}
}

// add makes word w a cluster of its own, with its bigrams with the words
// already added, and brings every loss up to date.
func (b *brown) add(w int32) {
	f := b.freeSlot()
	b.live[f], b.id[f], b.members[f] = true, w, []int32{w}
	b.slotOf[w] = int32(f)
	b.tok[f] = float64(b.counts[w])
	b.lp1[f] = math.Log(b.tok[f] * b.inv)
	for _, nb := range b.right[w] {
		if s := b.slotOf[nb.w]; s >= 0 {
			b.setCell(f, int(s), b.n[b.at(f, int(s))]+nb.n)
		}
	}
	for _, nb := range b.left[w] {
		if s := b.slotOf[nb.w]; s >= 0 && nb.w != w {
			b.setCell(int(s), f, b.n[b.at(int(s), f)]+nb.n)
		}
	}
	b.setAct()
	// Every pair (v, x) gains the terms of the new cluster: L(v,x) +=
	// q(v,f)+q(f,v) + q(x,f)+q(f,x) − q(vx,f) − q(f,vx). Only pairs with a
	// member that meets f change.
	touch := b.delta
	lf := b.lp1[f]
	for _, v := range b.act {
		touch[v] = b.q[b.at(v, f)] + b.q[b.at(f, v)]
	}
	// The best pair is found on the way (best() would read every loss
	// again).
	n := len(b.act)
	found := b.foundFor(n)
	pipeline.ForEachChunk(chunks(n), b.workers, func(_, ch int) {
		best := cand{s: -1}
		lo, hi := chunk(ch, n)
		for i := lo; i < hi; i++ {
			v := b.act[i]
			if v == f {
				continue
			}
			for _, x := range b.act[i+1:] {
				if x == f {
					continue
				}
				vf, fv, xf, fx := b.at(v, f), b.at(f, v), b.at(x, f), b.at(f, x)
				vx := b.at(v, x)
				if b.n[vf] != 0 || b.n[fv] != 0 || b.n[xf] != 0 || b.n[fx] != 0 {
					lvx := math.Log((b.tok[v] + b.tok[x]) * b.inv)
					b.loss[vx] += touch[v] + touch[x] -
						b.hyp(b.n[vf], b.n[xf], b.h[vf], b.h[xf], lvx, lf) -
						b.hyp(b.n[fv], b.n[fx], b.h[fv], b.h[fx], lf, lvx)
				}
				if best.s < 0 || b.loss[vx] <= best.l {
					best = b.better(best, v, x)
				}
			}
		}
		found[ch] = best
	})
	b.addSums(f)
	b.lossesOf(f)
	best := cand{s: -1}
	for _, c := range found {
		if c.s >= 0 && (best.s < 0 || c.less(best)) {
			best = c
		}
	}
	for _, x := range b.act {
		if x != f {
			best = b.better(best, min(f, x), max(f, x))
		}
	}
	b.next = best
}

// addSums brings the row and column sums up to date after adding the
// cluster of slot f, whose few cells are the only ones new.
func (b *brown) addSums(f int) {
	lf := b.lp1[f]
	for _, x := range b.act {
		fx, xf := b.at(f, x), b.at(x, f)
		if x == f || b.n[fx] == 0 && b.n[xf] == 0 {
			continue
		}
		b.rowq[x] += b.q[xf] + b.q[fx]
		b.hRow[x] += b.h[xf]
		b.nRow[x] += b.n[xf]
		b.lRow[x] += b.n[xf] * lf
		b.hCol[x] += b.h[fx]
		b.nCol[x] += b.n[fx]
		b.lCol[x] += b.n[fx] * lf
	}
	b.sumsOf(f)
}

// sumsOf computes slot f's row and column sums afresh.
func (b *brown) sumsOf(f int) {
	var rq, hr, nr, lr, hc, nc, lc float64
	for x := 0; x < b.k; x++ {
		fx, xf := b.at(f, x), b.at(x, f)
		if n := b.n[fx]; n != 0 {
			rq += b.q[fx]
			hr += b.h[fx]
			nr += n
			lr += n * b.lp1[x]
		}
		if n := b.n[xf]; n != 0 {
			rq += b.q[xf]
			hc += b.h[xf]
			nc += n
			lc += n * b.lp1[x]
		}
	}
	b.rowq[f] = rq - b.q[b.at(f, f)]
	b.hRow[f], b.nRow[f], b.lRow[f] = hr, nr, lr
	b.hCol[f], b.nCol[f], b.lCol[f] = hc, nc, lc
}

// lossesOf computes L(f, x) afresh for every other slot x that may merge.
func (b *brown) lossesOf(f int) {
	b.eachRow(b.act, func(i int) {
		x := b.act[i]
		if x == f {
			return
		}
		s, t := min(f, x), max(f, x)
		b.loss[b.at(s, t)] = b.fullLoss(s, t)
	})
}

// fullLoss is L(s, t): the terms that involve s or t, less the terms of
// their merge st. The terms q(st, u) = H(n_su + n_tu) − p·(ln p(st) + ln
// p(u)), with H(n) = p·ln p for p = n/T, are summed from the row sums of
// s and t, corrected at the cells where both rows are not 0 (only there
// is a logarithm taken); the same for the columns.
func (b *brown) fullLoss(s, t int) float64 {
	ss, st, ts, tt := b.at(s, s), b.at(s, t), b.at(t, s), b.at(t, t)
	l := b.rowq[s] + b.rowq[t] - b.q[st] - b.q[ts]
	lst := math.Log((b.tok[s] + b.tok[t]) * b.inv)
	inner := b.n[ss] + b.n[st] + b.n[ts] + b.n[tt]
	hInner := b.h[ss] + b.h[st] + b.h[ts] + b.h[tt]

	row := b.hRow[s] + b.hRow[t] - hInner + b.common(b.rowBits, s, t, false)
	nr := b.nRow[s] + b.nRow[t] - inner
	lr := b.lRow[s] + b.lRow[t] - (b.n[ss]+b.n[ts])*b.lp1[s] - (b.n[st]+b.n[tt])*b.lp1[t]
	l -= row - b.inv*(lst*nr+lr)

	col := b.hCol[s] + b.hCol[t] - hInner + b.common(b.colBits, s, t, true)
	nc := b.nCol[s] + b.nCol[t] - inner
	lc := b.lCol[s] + b.lCol[t] - (b.n[ss]+b.n[st])*b.lp1[s] - (b.n[ts]+b.n[tt])*b.lp1[t]
	l -= col - b.inv*(lst*nc+lc)

	if inner > 0 {
		p := inner * b.inv
		l -= p * (math.Log(p) - 2*lst)
	}
	return l
}

// common is Σ H(a+c) − H(a) − H(c) over the cells u ∉ {s, t} where rows
// (columns, when col) s and t both are not 0, a and c their counts.
func (b *brown) common(bits []uint64, s, t int, col bool) float64 {
	var sum float64
	bs, bt := bits[s*b.words:(s+1)*b.words], bits[t*b.words:(t+1)*b.words]
	for i := range bs {
		for m := bs[i] & bt[i]; m != 0; m &= m - 1 {
			u := i*64 + mathbits.TrailingZeros64(m)
			if u == s || u == t {
				continue
			}
			su, tu := b.at(s, u), b.at(t, u)
			if col {
				su, tu = b.at(u, s), b.at(u, t)
			}
			p := (b.n[su] + b.n[tu]) * b.inv
			sum += p*math.Log(p) - b.h[su] - b.h[tu]
		}
	}
	return sum
}

// cand is a pair of slots that may merge, with its loss and the ids
// that break ties.
type cand struct {
	l      float64
	lo, hi int32
	s, t   int
}

// less orders pairs by loss, ties by the pair of smaller ids (the ranks
// of the clusters' most frequent words), whatever the slots.
func (a cand) less(c cand) bool {
	if a.l != c.l {
		return a.l < c.l
	}
	if a.lo != c.lo {
		return a.lo < c.lo
	}
	return a.hi < c.hi
}

// better is the better of best and the pair (v, x), v < x.
func (b *brown) better(best cand, v, x int) cand {
	lo, hi := b.id[v], b.id[x]
	if lo > hi {
		lo, hi = hi, lo
	}
	c := cand{b.loss[b.at(v, x)], lo, hi, v, x}
	if best.s < 0 || c.less(best) {
		return c
	}
	return best
}

// foundFor is room for each chunk's best pair among n slots.
func (b *brown) foundFor(n int) []cand {
	if cap(b.found) < chunks(n) {
		b.found = make([]cand, chunks(n))
	}
	return b.found[:chunks(n)]
}

// best is the pair of slots whose merge loses the least AMI.
func (b *brown) best() (int, int) {
	n := len(b.act)
	found := b.foundFor(n)
	pipeline.ForEachChunk(chunks(n), b.workers, func(_, ch int) {
		best := cand{s: -1}
		lo, hi := chunk(ch, n)
		for i := lo; i < hi; i++ {
			v := b.act[i]
			for _, x := range b.act[i+1:] {
				if best.s < 0 || b.loss[b.at(v, x)] <= best.l {
					best = b.better(best, v, x)
				}
			}
		}
		found[ch] = best
	})
	best := cand{s: -1}
	for _, c := range found {
		if c.s >= 0 && (best.s < 0 || c.less(best)) {
			best = c
		}
	}
	return best.s, best.t
}

// merge merges slots s and t and brings every loss up to date: O(1) for
// each pair that involves neither, afresh (fullLoss) for the pairs of the
// merged cluster. The merged cluster takes the slot of the one with more words,
// so that the other's words are the ones moved.
func (b *brown) merge(s, t int) int {
	if len(b.members[s]) < len(b.members[t]) {
		s, t = t, s
	}
	k := b.k
	lps, lpt := b.lp1[s], b.lp1[t]
	for x := 0; x < k; x++ {
		b.oldSRow[x], b.oldSCol[x] = b.n[b.at(s, x)], b.n[b.at(x, s)]
		b.oldTRow[x], b.oldTCol[x] = b.n[b.at(t, x)], b.n[b.at(x, t)]
		b.oldHSRow[x], b.oldHSCol[x] = b.h[b.at(s, x)], b.h[b.at(x, s)]
		b.oldHTRow[x], b.oldHTCol[x] = b.h[b.at(t, x)], b.h[b.at(x, t)]
		b.oldBQS[x] = b.q[b.at(s, x)] + b.q[b.at(x, s)]
		b.oldBQT[x] = b.q[b.at(t, x)] + b.q[b.at(x, t)]
	}
	// The merged cluster u takes slot s.
	u := s
	self := b.oldSRow[s] + b.oldSRow[t] + b.oldTRow[s] + b.oldTRow[t]
	b.tok[u] += b.tok[t]
	b.lp1[u] = math.Log(b.tok[u] * b.inv)
	for x := 0; x < k; x++ {
		b.setCell(t, x, 0)
		b.setCell(x, t, 0)
	}
	b.live[t] = false
	for x := 0; x < k; x++ {
		if x == s || x == t || !b.live[x] {
			continue
		}
		b.setCell(u, x, b.oldSRow[x]+b.oldTRow[x])
		b.setCell(x, u, b.oldSCol[x]+b.oldTCol[x])
	}
	b.setCell(u, u, self)
	for _, w := range b.members[t] {
		b.slotOf[w] = int32(u)
	}
	b.members[u], b.members[t] = append(b.members[s], b.members[t]...), nil
	b.id[u] = min(b.id[s], b.id[t])
	b.setAct()

	// L(v,w) += [q(v,u)+q(u,v) − q(v,s)−q(s,v) − q(v,t)−q(t,v)] (and the
	// same for w) + [q(vw,s) + q(vw,t) − q(vw,u)] + [q(s,vw) + q(t,vw) −
	// q(u,vw)], where in each bracket the merged pair's own marginal
	// cancels.
	lpu := b.lp1[u]
	for _, v := range b.act {
		if v != u {
			b.delta[v] = b.q[b.at(v, u)] + b.q[b.at(u, v)] - b.oldBQS[v] - b.oldBQT[v]
		}
	}
	mix := func(a, c, la, lc, lu float64) float64 {
		var r float64
		if a > 0 && c > 0 {
			pa, pc := a*b.inv, c*b.inv
			pac := pa + pc
			r = pa*math.Log(pa) + pc*math.Log(pc) - pac*math.Log(pac)
		}
		return r - a*b.inv*la - c*b.inv*lc + (a+c)*b.inv*lu
	}
	b.eachRow(b.act, func(i int) {
		v := b.act[i]
		if v == u {
			return
		}
		for _, w := range b.act[i+1:] {
			if w == u {
				continue
			}
			d := b.delta[v] + b.delta[w] +
				mix(b.oldSCol[v]+b.oldSCol[w], b.oldTCol[v]+b.oldTCol[w], lps, lpt, lpu) +
				mix(b.oldSRow[v]+b.oldSRow[w], b.oldTRow[v]+b.oldTRow[w], lps, lpt, lpu)
			b.loss[b.at(v, w)] += d
		}
	})
	// The sums of the other slots: the cells of s and t became u's (the
	// counts' sums do not change).
	for _, x := range b.act {
		if x == u {
			continue
		}
		xu, ux := b.at(x, u), b.at(u, x)
		b.rowq[x] += b.delta[x]
		b.hRow[x] += b.h[xu] - b.oldHSCol[x] - b.oldHTCol[x]
		b.lRow[x] += b.n[xu]*lpu - b.oldSCol[x]*lps - b.oldTCol[x]*lpt
		b.hCol[x] += b.h[ux] - b.oldHSRow[x] - b.oldHTRow[x]
		b.lCol[x] += b.n[ux]*lpu - b.oldSRow[x]*lps - b.oldTRow[x]*lpt
	}
	b.sumsOf(u)
	b.lossesOf(u)
	return u
}

// totalAMI is Σ q over the live clusters (nats).
func (b *brown) totalAMI() float64 {
	var sum float64
	for r := 0; r < b.k; r++ {
		if !b.live[r] {
			continue
		}
		for c := 0; c < b.k; c++ {
			if b.live[c] {
				sum += b.q[b.at(r, c)]
			}
		}
	}
	return sum
}

func (b *brown) traceMerge(s, t int) Merge {
	m := Merge{Loss: b.loss[b.at(s, t)]}
	for i, x := range b.act {
		words := slices.Clone(b.members[x])
		sort.Slice(words, func(a, c int) bool { return words[a] < words[c] })
		m.Clusters = append(m.Clusters, words)
		switch x {
		case s:
			m.A = i
		case t:
			m.B = i
		}
	}
	return m
}

// eachRow runs fn(i) for every index of rows, spread over the workers in
// chunks that do not depend on their number.
func (b *brown) eachRow(rows []int, fn func(i int)) {
	n := len(rows)
	pipeline.ForEachChunk(chunks(n), b.workers, func(_, ch int) {
		lo, hi := chunk(ch, n)
		for i := lo; i < hi; i++ {
			fn(i)
		}
	})
}

// chunkRows is the rows of a chunk of work.
const chunkRows = 8

// chunks is how many ranges of chunkRows split 0..n−1, a split that
// does not depend on the number of workers; chunk is the ch-th range.
func chunks(n int) int { return (n + chunkRows - 1) / chunkRows }

func chunk(ch, n int) (int, int) { return ch * chunkRows, min((ch+1)*chunkRows, n) }
