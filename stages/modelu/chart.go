package modelu

import (
	"math"

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
// every state has one depth). Potentials are exp(score − c), c the
// largest score of an arc pair, and a string of m words has m − 1 edges,
// so Z = Σ_f R[r][f]·e^{(depth(f)−1)·c}, summed in log space. Outside is
// reverse-mode differentiation of inside: the marginal of the edge
// between arcs a and b is E[a][b]·∂log Z/∂E[a][b].
type Chart struct {
	l     *dmv.Lattice
	A, S  int
	reach []bool // [s·S + t]: a path leads from state s to state t (s = t included)
	// widths: items grouped by width, each an (a, b) or (a, s) pair
	eByW, rByW, lByW [][][2]int32

	c          float64
	pot        []float64 // [a·A + b]
	R, L, E    []float64
	oR, oL, oE []float64
	// Viterbi's back pointers: R and L the arc, E the state.
	bR, bL, bE []int32
}

// NewChart prepares a chart for lattice l. It does not read l.Dead:
// Model U's lattices are nbhd.Build's and chains, which have no dead
// arcs (only nbhd's templates do).
func NewChart(l *dmv.Lattice) *Chart {
	A, S := len(l.Arcs), l.States()
	ch := &Chart{l: l, A: A, S: S}
	// reach: states are numbered topologically (arcs go to higher numbers)
	ch.reach = make([]bool, S*S)
	for s := S - 1; s >= 0; s-- {
		ch.reach[s*S+s] = true
	}
	for s := S - 1; s >= 0; s-- {
		for _, a := range l.Arcs {
			if a.From == s {
				for t := 0; t < S; t++ {
					if ch.reach[a.To*S+t] {
						ch.reach[s*S+t] = true
					}
				}
			}
		}
	}
	maxW := 0
	for _, d := range l.Depth {
		maxW = max(maxW, d)
	}
	ch.eByW = make([][][2]int32, maxW+1)
	ch.rByW = make([][][2]int32, maxW+1)
	ch.lByW = make([][][2]int32, maxW+1)
	dep := l.Depth
	for a, x := range l.Arcs {
		for b, y := range l.Arcs {
			if ch.reach[x.To*S+y.From] {
				w := dep[y.To] - dep[x.From]
				ch.eByW[w] = append(ch.eByW[w], [2]int32{int32(a), int32(b)})
			}
		}
		for s := 0; s < S; s++ {
			if s != x.To && ch.reach[x.To*S+s] {
				w := dep[s] - dep[x.From]
				ch.rByW[w] = append(ch.rByW[w], [2]int32{int32(a), int32(s)})
			}
			if s != x.From && ch.reach[s*S+x.From] {
				w := dep[x.To] - dep[s]
				ch.lByW[w] = append(ch.lByW[w], [2]int32{int32(a), int32(s)})
			}
		}
	}
	return ch
}

// Release lets go of the chart's work tables (they are made again when
// needed), so that a corpus of charts holds only their shapes.
func (ch *Chart) Release() {
	ch.pot, ch.E, ch.R, ch.L, ch.oR, ch.oL, ch.oE, ch.bR, ch.bL, ch.bE = nil, nil, nil, nil, nil, nil, nil, nil, nil, nil
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
	return ch.reach[ch.l.Arcs[a].To*ch.S+ch.l.Arcs[b].From]
}

// Load sets the scores: score(a, b) is the log potential of an edge
// between arcs a and b, a before b (called only for such pairs).
func (ch *Chart) Load(score func(a, b int) float64) {
	A := ch.A
	c := math.Inf(-1)
	ch.pot = grow(ch.pot, A*A)
	for i := range ch.pot {
		ch.pot[i] = math.NaN()
	}
	for _, items := range ch.eByW {
		for _, it := range items {
			a, b := int(it[0]), int(it[1])
			s := score(a, b)
			ch.pot[a*A+b] = s
			c = max(c, s)
		}
	}
	if math.IsInf(c, -1) {
		c = 0
	}
	ch.c = c
	for _, items := range ch.eByW {
		for _, it := range items {
			i := int(it[0])*A + int(it[1])
			ch.pot[i] = math.Exp(ch.pot[i] - c)
		}
	}
}

// Inside fills the chart (sum with max false, Viterbi with max true) and
// returns log Z (or the log score of the best tree).
func (ch *Chart) Inside(maxProduct bool) float64 {
	A, S, l := ch.A, ch.S, ch.l
	ch.R, ch.L, ch.E = grow(ch.R, A*S), grow(ch.L, A*S), grow(ch.E, A*A)
	if maxProduct {
		ch.bR, ch.bL, ch.bE = fillInt(ch.bR, A*S), fillInt(ch.bL, A*S), fillInt(ch.bE, A*A)
	}
	for a, x := range l.Arcs {
		ch.R[a*S+x.To] = 1
		ch.L[a*S+x.From] = 1
	}
	dep := l.Depth
	for w := range ch.eByW {
		for _, it := range ch.eByW[w] {
			a, b := int(it[0]), int(it[1])
			x, y := l.Arcs[a], l.Arcs[b]
			sum, best, arg := 0.0, 0.0, int32(-1)
			ra, lb := ch.R[a*S:(a+1)*S], ch.L[b*S:(b+1)*S]
			for m := x.To; m <= y.From; m++ {
				v := ra[m] * lb[m]
				if v == 0 {
					continue
				}
				if maxProduct {
					if v > best {
						best, arg = v, int32(m)
					}
				} else {
					sum += v
				}
			}
			if maxProduct {
				sum = best
				ch.bE[a*A+b] = arg
			}
			ch.E[a*A+b] = ch.pot[a*A+b] * sum
		}
		for _, it := range ch.rByW[w] {
			a, s := int(it[0]), int(it[1])
			x := l.Arcs[a]
			sum, best, arg := 0.0, 0.0, int32(-1)
			for b, y := range l.Arcs {
				if dep[y.From] < dep[x.To] || dep[y.To] > dep[s] {
					continue
				}
				e := ch.E[a*A+b]
				if e == 0 {
					continue
				}
				v := e * ch.R[b*S+s]
				if maxProduct {
					if v > best {
						best, arg = v, int32(b)
					}
				} else {
					sum += v
				}
			}
			if maxProduct {
				sum = best
				ch.bR[a*S+s] = arg
			}
			ch.R[a*S+s] = sum
		}
		for _, it := range ch.lByW[w] {
			b, s := int(it[0]), int(it[1])
			y := l.Arcs[b]
			sum, best, arg := 0.0, 0.0, int32(-1)
			for a, x := range l.Arcs {
				if dep[x.From] < dep[s] || dep[x.To] > dep[y.From] {
					continue
				}
				e := ch.E[a*A+b]
				if e == 0 {
					continue
				}
				v := ch.L[a*S+s] * e
				if maxProduct {
					if v > best {
						best, arg = v, int32(a)
					}
				} else {
					sum += v
				}
			}
			if maxProduct {
				sum = best
				ch.bL[b*S+s] = arg
			}
			ch.L[b*S+s] = sum
		}
	}
	logZ := math.Inf(-1)
	for r, x := range l.Arcs {
		if x.From != 0 {
			continue
		}
		for f := 0; f < S; f++ {
			if !l.Final[f] || ch.R[r*S+f] == 0 {
				continue
			}
			v := math.Log(ch.R[r*S+f]) + float64(dep[f]-1)*ch.c
			if maxProduct {
				logZ = max(logZ, v)
			} else {
				logZ = logAdd(logZ, v)
			}
		}
	}
	return logZ
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
	A, S, l := ch.A, ch.S, ch.l
	if math.IsInf(logZ, 0) || math.IsNaN(logZ) {
		return
	}
	ch.oR = grow(ch.oR, A*S)
	ch.oL = grow(ch.oL, A*S)
	ch.oE = grow(ch.oE, A*A)
	dep := l.Depth
	for r, x := range l.Arcs {
		if x.From != 0 {
			continue
		}
		for f := 0; f < S; f++ {
			if l.Final[f] {
				ch.oR[r*S+f] = math.Exp(float64(dep[f]-1)*ch.c - logZ)
			}
		}
	}
	for w := len(ch.eByW) - 1; w >= 0; w-- {
		for _, it := range ch.lByW[w] {
			b, s := int(it[0]), int(it[1])
			o := ch.oL[b*S+s]
			if o == 0 {
				continue
			}
			y := l.Arcs[b]
			for a, x := range l.Arcs {
				if dep[x.From] < dep[s] || dep[x.To] > dep[y.From] {
					continue
				}
				e := ch.E[a*A+b]
				if e == 0 {
					continue
				}
				ch.oL[a*S+s] += o * e
				ch.oE[a*A+b] += o * ch.L[a*S+s]
			}
		}
		for _, it := range ch.rByW[w] {
			a, s := int(it[0]), int(it[1])
			o := ch.oR[a*S+s]
			if o == 0 {
				continue
			}
			x := l.Arcs[a]
			for b, y := range l.Arcs {
				if dep[y.From] < dep[x.To] || dep[y.To] > dep[s] {
					continue
				}
				e := ch.E[a*A+b]
				if e == 0 {
					continue
				}
				ch.oE[a*A+b] += o * ch.R[b*S+s]
				ch.oR[b*S+s] += o * e
			}
		}
		for _, it := range ch.eByW[w] {
			a, b := int(it[0]), int(it[1])
			o := ch.oE[a*A+b]
			if o == 0 || ch.E[a*A+b] == 0 {
				continue
			}
			edge(a, b, o*ch.E[a*A+b])
			x, y := l.Arcs[a], l.Arcs[b]
			p := o * ch.pot[a*A+b]
			for m := x.To; m <= y.From; m++ {
				ch.oR[a*S+m] += p * ch.L[b*S+m]
				ch.oL[b*S+m] += p * ch.R[a*S+m]
			}
		}
	}
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Best follows Viterbi's back pointers after Inside(true): the arcs of
// the best string in order and the head of each (an index into that
// list; −1 for the root, its first word).
func (ch *Chart) Best() (arcs []int, heads []int) {
	A, S, l := ch.A, ch.S, ch.l
	dep := l.Depth
	bestR, bestF, best := -1, -1, math.Inf(-1)
	for r, x := range l.Arcs {
		if x.From != 0 {
			continue
		}
		for f := 0; f < S; f++ {
			if !l.Final[f] || ch.R[r*S+f] == 0 {
				continue
			}
			if v := math.Log(ch.R[r*S+f]) + float64(dep[f]-1)*ch.c; v > best {
				best, bestR, bestF = v, r, f
			}
		}
	}
	if bestR < 0 {
		return nil, nil
	}
	head := map[int]int{bestR: -1}
	var right func(a, s int)
	var left func(b, s int)
	edge := func(a, b int) { // a before b: both halves between
		m := int(ch.bE[a*A+b])
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
