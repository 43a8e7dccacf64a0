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

	// Scratch, per arc.
	colMax, qLeft, qRight, logRoot, logF []float64
}

func (p *latticePotentials) grow(a int) {
	if len(p.root) >= a {
		return
	}
	f := func(n int) []float64 { return make([]float64, n) }
	p.root, p.edge, p.stop, p.cont = f(a), f(a*a), f(4*a), f(4*a)
	p.colMax, p.qLeft, p.qRight, p.logRoot, p.logF = f(a), f(a), f(a), f(a), f(a)
}

// load sets the potentials of lattice l under weight table w, each edge
// also multiplied by dist[d] (when dist is not nil), d the distance of
// head and child in their string. Dead arcs get no root and no incoming
// edge, so no path through them has weight.
func (p *latticePotentials) load(l *Lattice, sh *latticeShape, w *Params, dist []float64) {
	A := sh.A
	p.grow(A)
	// Each arc's potentials, its conts divided by their largest per side
	// (that factor moves into the side's edges: an attachment comes with
	// one cont).
	qL, qR := p.qLeft[:A], p.qRight[:A]
	for a, arc := range l.Arcs {
		ta := arc.Tag
		p.root[a] = w.Root[ta]
		if l.Dead != nil && l.Dead[a] {
			p.root[a] = 0
		}
		copy(p.stop[a*4:a*4+4], w.Stop[ta*4:ta*4+4])
		copy(p.cont[a*4:a*4+4], w.Cont[ta*4:ta*4+4])
		qL[a], qR[a] = p.takeLargestCont(a*4+Left*2), p.takeLargestCont(a*4+Right*2)
	}
	// Edges between arcs that share a string (the only ones read), and
	// the largest edge into each arc.
	colMax := p.colMax[:A]
	clear(colMax)
	t := w.T
	for k := 0; k < len(sh.pairs); k += 2 {
		a, b := int(sh.pairs[k]), int(sh.pairs[k+1])
		ta, tb := l.Arcs[a].Tag, l.Arcs[b].Tag
		r, lt := w.Child[(ta*2+Right)*t+tb]*qR[a], w.Child[(tb*2+Left)*t+ta]*qL[b]
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

// takeLargestCont divides the cont pair at d by its larger value and
// returns that value (1 when it is 0 or already 1).
func (p *latticePotentials) takeLargestCont(d int) float64 {
	m := larger(p.cont[d+Adj], p.cont[d+NonAdj])
	if m == 0 || m == 1 {
		return 1
	}
	p.cont[d+Adj] /= m
	p.cont[d+NonAdj] /= m
	return m
}

func resizeFloats(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

// scale finishes what load began, as LatticeChart's comment explains:
// stops into the incoming attachments of their arc (factor f_b), the
// edges into the arcs of each depth divided by their largest, the roots
// following their depth; then the roots share one more factor, as a tree
// has one root. The factors are taken in logs, so that huge potentials (a
// line search's wild steps) do not overflow on the way; potentials that
// are not finite, or overflow anyway, leave the lattice unusable. Only
// the edges between arcs that share a string are ever read, so only
// those are scaled.
func (p *latticePotentials) scale(sh *latticeShape) {
	A := sh.A
	colMax := p.colMax[:A]
	p.logScale = resizeFloats(p.logScale, sh.depth+1)
	p.logScale[0] = 0
	logRoot, logF := p.logRoot[:A], p.logF[:A]
	top := math.Inf(-1)
	ok := true
	for d := 0; d < sh.depth; d++ {
		arcs := sh.byDepth[sh.depthAt[d]:sh.depthAt[d+1]]
		m := math.Inf(-1)
		for _, b := range arcs {
			f := 0.0
			for dir := Left; dir <= Right; dir++ {
				s := b*4 + dir*2
				if t := larger(p.stop[s+Adj], p.stop[s+NonAdj]); t > 0 && t != 1 {
					p.stop[s+Adj] /= t
					p.stop[s+NonAdj] /= t
					f += math.Log(t)
				}
				ok = ok && atMost1(p.stop[s+Adj]) && atMost1(p.stop[s+NonAdj]) &&
					atMost1(p.cont[s+Adj]) && atMost1(p.cont[s+NonAdj])
			}
			logF[b] = f
			logRoot[b] = math.Log(p.root[b]) + f
			m = math.Max(m, math.Log(colMax[b])+f) // the largest incoming edge, stops folded in
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
