package dmv

import "math"

// latticePotentials are one lattice's potentials under one weight table,
// scaled as LatticeChart's comment explains, in the layout of one lane:
// LatticeChart.LoadLanes works each lane's out here and copies it into
// its lane.
type latticePotentials struct {
	root, edge []float64 // [a], [a·A + c]
	stop, cont []float64 // [a·4 + dir·2 + valence]
	logScale   []float64 // [d]: log of the factor scaling removed from paths of d arcs
	unusable   bool      // scaling met numbers out of range: no Z here

	// Scratch, per arc: the factors load takes out of each arc's conts
	// (qLeft, qRight) and stops (log f), log root·f, the largest edge
	// into the arc, and the first arc of each tag (whose potentials the
	// others of that tag copy).
	qLeft, qRight, logF, logRoot, colMax []float64
	firstOfTag                           []int
	ok                                   bool
}

func (p *latticePotentials) grow(a, t int) {
	if len(p.root) < a {
		f := func(n int) []float64 { return make([]float64, n) }
		p.root, p.edge, p.stop, p.cont = f(a), f(a*a), f(4*a), f(4*a)
		p.qLeft, p.qRight, p.logF, p.logRoot, p.colMax = f(a), f(a), f(a), f(a), f(a)
	}
	if len(p.firstOfTag) < t {
		p.firstOfTag = make([]int, t)
	}
}

// load sets the potentials of lattice l under weight table w, each edge
// also multiplied by dist[d] (when dist is not nil), d the distance of
// head and child in their string. Dead arcs get no root and no incoming
// edge, so no path through them has weight.
func (p *latticePotentials) load(l *Lattice, sh *latticeShape, w *Params, dist []float64) {
	A := sh.A
	p.grow(A, w.T)
	p.ok = true
	// Each arc's potentials, the same for every arc of one tag: its conts
	// divided by their largest per side (that factor moves into the
	// side's edges: an attachment comes with one cont), its stops by
	// theirs (factor f, which moves into its incoming attachments: a
	// half takes one stop). The factors are taken in logs, so that huge
	// potentials (a line search's wild steps) do not overflow on the way.
	first := p.firstOfTag[:w.T]
	for i := range first {
		first[i] = -1
	}
	for a, arc := range l.Arcs {
		ta := arc.Tag
		if b := first[ta]; b >= 0 {
			copy(p.stop[a*4:a*4+4], p.stop[b*4:b*4+4])
			copy(p.cont[a*4:a*4+4], p.cont[b*4:b*4+4])
			p.qLeft[a], p.qRight[a], p.logF[a], p.logRoot[a] = p.qLeft[b], p.qRight[b], p.logF[b], p.logRoot[b]
		} else {
			first[ta] = a
			copy(p.stop[a*4:a*4+4], w.Stop[ta*4:ta*4+4])
			copy(p.cont[a*4:a*4+4], w.Cont[ta*4:ta*4+4])
			p.qLeft[a], p.qRight[a] = p.takeLargest(p.cont, a*4+Left*2), p.takeLargest(p.cont, a*4+Right*2)
			f := 0.0
			for _, d := range [2]int{a*4 + Left*2, a*4 + Right*2} {
				if t := p.takeLargest(p.stop, d); t != 1 {
					f += math.Log(t)
				}
				p.ok = p.ok && atMost1(p.stop[d+Adj]) && atMost1(p.stop[d+NonAdj]) &&
					atMost1(p.cont[d+Adj]) && atMost1(p.cont[d+NonAdj])
			}
			p.logF[a], p.logRoot[a] = f, math.Log(w.Root[ta])+f
		}
		if l.Dead != nil && l.Dead[a] {
			p.logRoot[a] = math.Inf(-1)
		}
	}
	// Edges between arcs that share a string (the only ones read), and
	// the largest edge into each arc.
	colMax := p.colMax[:A]
	clear(colMax)
	t := w.T
	for k := 0; k < len(sh.pairs); k += 2 {
		a, b := int(sh.pairs[k]), int(sh.pairs[k+1])
		ta, tb := l.Arcs[a].Tag, l.Arcs[b].Tag
		r, lt := w.Child[(ta*2+Right)*t+tb]*p.qRight[a], w.Child[(tb*2+Left)*t+ta]*p.qLeft[b]
		if dist != nil {
			d := dist[sh.pos[b]-sh.pos[a]]
			r, lt = r*d, lt*d
		}
		if l.Dead != nil {
			if l.Dead[b] {
				r = 0
			}
			if l.Dead[a] {
				lt = 0
			}
		}
		p.edge[a*A+b], p.edge[b*A+a] = r, lt
		colMax[b], colMax[a] = larger(colMax[b], r), larger(colMax[a], lt)
	}
	p.scale(sh)
}

// takeLargest divides the pair at x[d], x[d+1] by its larger value and
// returns that value (1 when it is 0 or already 1).
func (p *latticePotentials) takeLargest(x []float64, d int) float64 {
	m := larger(x[d], x[d+1])
	if m == 0 || m == 1 {
		return 1
	}
	x[d] /= m
	x[d+1] /= m
	return m
}

func resizeFloats(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

// scale finishes what load began, as LatticeChart's comment explains:
// the edges into the arcs of each depth, stops folded in, divided by
// their largest, the roots following their depth; then the roots share
// one more factor, as a tree has one root. Potentials that are not
// finite, or overflow anyway, leave the lattice unusable. Only the edges
// between arcs that share a string are ever read, so only those are
// scaled.
func (p *latticePotentials) scale(sh *latticeShape) {
	A := sh.A
	colMax, logF, logRoot := p.colMax[:A], p.logF[:A], p.logRoot[:A]
	p.logScale = resizeFloats(p.logScale, sh.depth+1)
	p.logScale[0] = 0
	top := math.Inf(-1)
	for d := 0; d < sh.depth; d++ {
		arcs := sh.byDepth[sh.depthAt[d]:sh.depthAt[d+1]]
		m := math.Inf(-1)
		for _, b := range arcs {
			if colMax[b] > 0 {
				m = math.Max(m, math.Log(colMax[b])+logF[b]) // the largest incoming edge, stops folded in
			}
		}
		if math.IsInf(m, -1) {
			m = 0 // no edge into this depth (one-word strings)
		}
		for _, b := range arcs {
			if colMax[b] > 0 {
				colMax[b] = math.Exp(logF[b] - m) // the column's factor
			} else {
				colMax[b] = 1 // no edge comes in
			}
			logRoot[b] -= m
			top = math.Max(top, logRoot[b])
		}
		p.logScale[d+1] = p.logScale[d] + m
	}
	ok := p.ok
	for k := 0; k < len(sh.pairs); k += 2 {
		a, b := int(sh.pairs[k]), int(sh.pairs[k+1])
		r, l := p.edge[a*A+b]*colMax[b], p.edge[b*A+a]*colMax[a]
		p.edge[a*A+b], p.edge[b*A+a] = r, l
		ok = ok && atMost1(r) && atMost1(l)
	}
	if math.IsInf(top, -1) {
		top = 0
	}
	for b, v := range logRoot {
		p.root[b] = math.Exp(v - top)
		ok = ok && atMost1(p.root[b])
	}
	for d := range p.logScale {
		p.logScale[d] += top
	}
	// Whatever overflowed on the way shows in the scaled tables, which
	// are all at most 1 otherwise.
	p.unusable = !ok || math.IsNaN(top) || math.IsInf(top, 1)
}

// atMost1 says whether v is a number in [0, 1] (up to rounding).
func atMost1(v float64) bool { return v >= 0 && v <= 1+1e-9 }
