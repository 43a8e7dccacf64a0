package modelu

import (
	"math"
	"sync"

	"github.com/grind-nlp/grind/stages/dmv"
)

// Chart is Model U's dynamic program over a lattice (Smith 2006, App.
// A.3, run over lattice arcs as A.2 runs Model A): the sum, or the
// maximum, over every string of the lattice and every undirected
// projective tree of it, a tree scored by the product of its edges'
// potentials. As in Smith's program, the root is fixed at the first word
// (the arc leaving the start state), which orients every undirected tree
// one way: an undirected tree with no crossing edges is then exactly one
// projective tree rooted at the first word, and the split-head items are
//
//	R[a][s]  arc a's right half, from a's end to state s
//	L[a][s]  arc a's left half, from state s to a's start
//	E[a][b]  the edge between arcs a and b (a before b) with a's right
//	         half up to some state m and b's left half from m:
//	         pot(a,b) · Σ_m R[a][m]·L[b][m]
//
// E serves as both of Eisner's incomplete items (a → b and b → a): an
// undirected edge has one potential, so the two are equal. Then
//
//	R[a][s] = Σ_b E[a][b]·R[b][s]    (b a's last right child)
//	L[b][s] = Σ_a L[a][s]·E[a][b]    (a b's first left child)
//	Z       = Σ_{r from state 0} Σ_{f final} R[r][f]
//
// Items are filled by increasing width in depth (a lattice is layered:
// every state has one depth), each summing only the terms its lattice's
// shape lists (shape.go: the lattices of one shape share it). Potentials
// are exp(score − c), c the largest score of an arc pair (Load) or of a
// pair of symbols in the chart's table (loadPairs: its lattice's and
// those of the lattices sharing the table), and a string of m words has
// m − 1 edges,
// so Z = Σ_f R[r][f]·e^{(depth(f)−1)·c}, summed in log space. Outside is
// reverse-mode differentiation of inside: the marginal of the edge
// between arcs a and b is E[a][b]·∂log Z/∂E[a][b].
type Chart struct {
	l       *dmv.Lattice
	sh      *shape
	A, S    int
	c       float64
	*tables // while in use: nil after Release
}

// tables are a chart's work tables, kept in a pool between uses: a
// training's evaluations reuse them instead of making them anew.
type tables struct {
	pot, E, oE   []float64 // by E item
	R, L, oR, oL []float64 // [a·S + s]
	// Viterbi's back pointers: R and L the arc ([a·S + s]), E the state
	// (by E item).
	bR, bL, bE []int32
}

var tablePool = sync.Pool{New: func() any { return new(tables) }}

// NewChart prepares a chart for lattice l, of its own shape.
func NewChart(l *dmv.Lattice) *Chart {
	sh, _ := newShape(l, 0) // no limit, no error
	return chartOf(l, sh)
}

// chartOf is a chart for lattice l of shape sh.
func chartOf(l *dmv.Lattice, sh *shape) *Chart {
	return &Chart{l: l, sh: sh, A: sh.A, S: sh.S}
}

// acquire gives the chart work tables (those of its last use when it has
// not released them).
func (ch *Chart) acquire() {
	if ch.tables == nil {
		ch.tables = tablePool.Get().(*tables)
	}
}

// Release hands the chart's work tables back to the pool (they are taken
// again when needed), so that a corpus of charts holds only their shapes.
func (ch *Chart) Release() {
	if ch.tables != nil {
		tablePool.Put(ch.tables)
		ch.tables = nil
	}
}

// ShapeBytes estimates the bytes a chart keeps between uses (its shape),
// WorkBytes those of its work tables while in use: for the memory check
// of Model U's training.
func ShapeBytes(arcs, states int) int64 {
	return int64(arcs)*int64(arcs)*8 + 2*int64(arcs)*int64(states)*8 + int64(states)*int64(states)
}

// WorkBytes: see ShapeBytes.
func WorkBytes(arcs, states int) int64 {
	return 3*int64(arcs)*int64(arcs)*8 + 4*int64(arcs)*int64(states)*8
}

// Precedes says whether arc a can come before arc b in one string.
func (ch *Chart) Precedes(a, b int) bool {
	return ch.sh.item[a*ch.A+b] >= 0
}

// Load sets the scores: score(a, b) is the log potential of an edge
// between arcs a and b, a before b (called only for such pairs).
func (ch *Chart) Load(score func(a, b int) float64) {
	ch.acquire()
	pot := resize(ch.pot, len(ch.sh.pairs))
	for i, p := range ch.sh.pairs {
		pot[i] = score(int(p[0]), int(p[1]))
	}
	ch.pot = pot
	ch.c = maxScore(pot)
	for i := range pot {
		pot[i] = math.Exp(pot[i] - ch.c)
	}
}

// loadPairs sets the potentials of E items by pair of symbols: item i's
// is pt's potential of pair[i], c pt's.
func (ch *Chart) loadPairs(pair []int32, pt *pairTable) {
	ch.acquire()
	ch.c = pt.c
	pot := resize(ch.pot, len(pair))
	for i, k := range pair {
		pot[i] = pt.pot[k]
	}
	ch.pot = pot
}

// maxScore is c, the largest score (0 when there is none).
func maxScore(scores []float64) float64 {
	c := math.Inf(-1)
	for _, s := range scores {
		c = max(c, s)
	}
	if math.IsInf(c, -1) {
		c = 0
	}
	return c
}

// Inside fills the chart (sum with max false, Viterbi with max true) and
// returns log Z (or the log score of the best tree). Every cell it reads
// is one it has written (an item of smaller width, or a half of no
// width), so its tables need no clearing.
func (ch *Chart) Inside(maxProduct bool) float64 {
	sh, S := ch.sh, ch.S
	ch.acquire()
	t := ch.tables
	t.R, t.L, t.E = resize(t.R, ch.A*S), resize(t.L, ch.A*S), resize(t.E, len(sh.pairs))
	if maxProduct {
		t.bR, t.bL, t.bE = fillInt(t.bR, ch.A*S), fillInt(t.bL, ch.A*S), fillInt(t.bE, len(sh.pairs))
	}
	R, L, E := t.R, t.L, t.E
	for a, x := range ch.l.Arcs {
		R[a*S+x.To] = 1
		L[a*S+x.From] = 1
	}
	for w := range sh.widths() {
		for i := sh.eAt[w]; i < sh.eAt[w+1]; i++ {
			ra, lb := R[int(sh.pairs[i][0])*S:], L[int(sh.pairs[i][1])*S:]
			ms := sh.eM[sh.eOff[i]:sh.eOff[i+1]]
			sum := 0.0
			if maxProduct {
				best, arg := 0.0, int32(-1)
				for _, m := range ms {
					if v := ra[m] * lb[m]; v > best {
						best, arg = v, m
					}
				}
				sum, t.bE[i] = best, arg
			} else {
				for _, m := range ms {
					sum += ra[m] * lb[m]
				}
			}
			E[i] = t.pot[i] * sum
		}
		for j := sh.rAt[w]; j < sh.rAt[w+1]; j++ {
			terms := sh.rTerm[2*sh.rOff[j] : 2*sh.rOff[j+1]]
			if maxProduct {
				R[sh.rCell[j]], t.bR[sh.rCell[j]] = bestTerm(terms, E, R, S)
			} else {
				R[sh.rCell[j]] = sumTerms(terms, E, R)
			}
		}
		for j := sh.lAt[w]; j < sh.lAt[w+1]; j++ {
			terms := sh.lTerm[2*sh.lOff[j] : 2*sh.lOff[j+1]]
			if maxProduct {
				L[sh.lCell[j]], t.bL[sh.lCell[j]] = bestTerm(terms, E, L, S)
			} else {
				L[sh.lCell[j]] = sumTerms(terms, E, L)
			}
		}
	}
	return sh.logZ(R, 1, ch.c, maxProduct)
}

// logZ is log Z from the R table of an Inside (maxProduct: the best
// tree's log score), its cell x at R[x·stride] (a lane's, of a
// laneChart's table), c the chart's potentials' scale.
func (sh *shape) logZ(R []float64, stride int, c float64, maxProduct bool) float64 {
	logZ := math.Inf(-1)
	for _, root := range sh.roots {
		r := R[int(root[0])*stride]
		if r == 0 {
			continue
		}
		v := math.Log(r) + float64(root[1])*c
		if maxProduct {
			logZ = max(logZ, v)
		} else {
			logZ = logAdd(logZ, v)
		}
	}
	return logZ
}

// sumTerms is an R or L item's sum: Σ E[e]·X[cell] over its terms (e,
// cell), the terms of an edge of potential 0 left out.
func sumTerms(terms []int32, E, X []float64) float64 {
	sum := 0.0
	for k := 0; k+1 < len(terms); k += 2 {
		e := E[terms[k]]
		if e == 0 {
			continue
		}
		sum += e * X[terms[k+1]]
	}
	return sum
}

// bestTerm is sumTerms's maximum and the arc of its term (cell / S).
func bestTerm(terms []int32, E, X []float64, S int) (float64, int32) {
	best, arg := 0.0, int32(-1)
	for k := 0; k+1 < len(terms); k += 2 {
		if v := E[terms[k]] * X[terms[k+1]]; v > best {
			best, arg = v, terms[k+1]/int32(S)
		}
	}
	return best, arg
}

func logAdd(x, y float64) float64 {
	if math.IsInf(x, -1) {
		return y
	}
	if math.IsInf(y, -1) {
		return x
	}
	if x < y {
		x, y = y, x
	}
	return x + math.Log1p(math.Exp(y-x))
}

// Outside runs after Inside (sum) with its log Z and calls edge(a, b, μ)
// for every arc pair with a posterior μ > 0: the expected number of trees
// (over the lattice's strings) with an edge between a and b, the
// probability that one is there under p(string, tree) ∝ its score.
func (ch *Chart) Outside(logZ float64, edge func(a, b int, mu float64)) {
	if !ch.outside(logZ) {
		return
	}
	sh, mu := ch.sh, ch.posteriors()
	for w := sh.widths() - 1; w >= 0; w-- {
		for i := sh.eAt[w]; i < sh.eAt[w+1]; i++ {
			if mu[i] != 0 {
				edge(int(sh.pairs[i][0]), int(sh.pairs[i][1]), mu[i])
			}
		}
	}
}

// posteriors turns oE, after outside, into the E items' posteriors
// oE[i]·E[i] (0 where either is 0) and returns them.
func (ch *Chart) posteriors() []float64 {
	oE, E := ch.oE, ch.E
	for i, o := range oE {
		if o != 0 && E[i] != 0 {
			oE[i] = o * E[i]
		} else {
			oE[i] = 0
		}
	}
	return oE
}

// outside fills the outside tables (oE[i]·E[i] is E item i's posterior),
// false when log Z is out of range (then it has not).
func (ch *Chart) outside(logZ float64) bool {
	sh, S, t := ch.sh, ch.S, ch.tables
	if math.IsInf(logZ, 0) || math.IsNaN(logZ) {
		return false
	}
	t.oR, t.oL, t.oE = grow(t.oR, ch.A*S), grow(t.oL, ch.A*S), grow(t.oE, len(sh.pairs))
	R, L, E, oR, oL, oE := t.R, t.L, t.E, t.oR, t.oL, t.oE
	for _, root := range sh.roots {
		oR[root[0]] = math.Exp(float64(root[1])*ch.c - logZ)
	}
	for w := sh.widths() - 1; w >= 0; w-- {
		outsideTerms(sh.lAt[w], sh.lAt[w+1], sh.lCell, sh.lOff, sh.lTerm, E, L, oE, oL)
		outsideTerms(sh.rAt[w], sh.rAt[w+1], sh.rCell, sh.rOff, sh.rTerm, E, R, oE, oR)
		for i := sh.eAt[w]; i < sh.eAt[w+1]; i++ {
			o := oE[i]
			if o == 0 || E[i] == 0 {
				continue
			}
			a, b := int(sh.pairs[i][0])*S, int(sh.pairs[i][1])*S
			p := o * t.pot[i]
			for _, m := range sh.eM[sh.eOff[i]:sh.eOff[i+1]] {
				oR[a+int(m)] += p * L[b+int(m)]
				oL[b+int(m)] += p * R[a+int(m)]
			}
		}
	}
	return true
}

// outsideTerms passes the outside weights of one side's items j to end
// (X its inside table, oX its outside one) to their terms: to each term's
// E item and to the cell it extends. A term of an edge of potential 0
// adds nothing.
func outsideTerms(j, end int32, cells, off, term []int32, E, X, oE, oX []float64) {
	for ; j < end; j++ {
		o := oX[cells[j]]
		if o == 0 {
			continue
		}
		terms := term[2*off[j] : 2*off[j+1]]
		for k := 0; k+1 < len(terms); k += 2 {
			e, cell := terms[k], terms[k+1]
			if E[e] == 0 {
				continue
			}
			oX[cell] += o * E[e]
			oE[e] += o * X[cell]
		}
	}
}

// grow is s resized to n and cleared, resize s resized to n (its old
// numbers left in place).
func grow(s []float64, n int) []float64 {
	s = resize(s, n)
	clear(s)
	return s
}

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// Best follows Viterbi's back pointers after Inside(true): the arcs of
// the best string in order and the head of each (an index into that
// list; −1 for the root, its first word).
func (ch *Chart) Best() (arcs []int, heads []int) {
	A, S, l := ch.A, ch.S, ch.l
	bestR, bestF, best := -1, -1, math.Inf(-1)
	for _, root := range ch.sh.roots {
		r := ch.R[root[0]]
		if r == 0 {
			continue
		}
		if v := math.Log(r) + float64(root[1])*ch.c; v > best {
			best, bestR, bestF = v, int(root[0])/S, int(root[0])%S
		}
	}
	if bestR < 0 {
		return nil, nil
	}
	head := map[int]int{bestR: -1}
	var right func(a, s int)
	var left func(b, s int)
	edge := func(a, b int) { // a before b: both halves between
		m := int(ch.bE[ch.sh.item[a*A+b]])
		right(a, m)
		left(b, m)
	}
	right = func(a, s int) {
		if s == l.Arcs[a].To {
			return
		}
		b := int(ch.bR[a*S+s])
		head[b] = a
		edge(a, b)
		right(b, s)
	}
	left = func(b, s int) {
		if s == l.Arcs[b].From {
			return
		}
		a := int(ch.bL[b*S+s])
		head[a] = b
		left(a, s)
		edge(a, b)
	}
	right(bestR, bestF)
	for a := range head {
		arcs = append(arcs, a)
	}
	// arcs of one path: sort by depth
	sortByDepth(arcs, l)
	pos := map[int]int{}
	for i, a := range arcs {
		pos[a] = i
	}
	heads = make([]int, len(arcs))
	for i, a := range arcs {
		if h := head[a]; h < 0 {
			heads[i] = -1
		} else {
			heads[i] = pos[h]
		}
	}
	return arcs, heads
}

func sortByDepth(arcs []int, l *dmv.Lattice) {
	for i := 1; i < len(arcs); i++ {
		for j := i; j > 0 && l.Depth[l.Arcs[arcs[j]].From] < l.Depth[l.Arcs[arcs[j-1]].From]; j-- {
			arcs[j], arcs[j-1] = arcs[j-1], arcs[j]
		}
	}
}

func fillInt(s []int32, n int) []int32 {
	if cap(s) < n {
		s = make([]int32, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = -1
	}
	return s
}
