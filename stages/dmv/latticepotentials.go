package dmv

import "math"

// tagPotentials are what lanes' potentials are made of, tag by tag, for
// the tags of the lattices of one chart under one weight table: every
// arc of a tag has the same stops and conts, and takes the same factors
// out of them. The conts of each side are divided by their largest (q,
// which moves into the side's edges: an attachment comes with one cont),
// the stops by theirs (f, which moves into the arc's incoming
// attachments and its root: a half takes one stop). The factors are
// taken in logs, so that huge potentials (a line search's wild steps) do
// not overflow on the way.
type tagPotentials struct {
	stop, cont    []float64 // [t·4 + dir·2 + valence], divided as above
	qLeft, qRight []float64 // [t]
	logF          []float64 // [t]: log f
	logRoot       []float64 // [t]: log root·f
	eF, eRoot     []float64 // [t]: f, root·f
	// logIn bounds the log of every edge into an arc of tag t (stops
	// folded in): the largest over the lattices' tags as heads, on either
	// side, at the largest distance factor.
	logIn []float64
	ok    []bool // [t]: every potential of t finite and in range after division
	tags  []int  // the lattices' tags, each once
	seen  []int  // [t]: the load that last listed t
	loads int
}

func (p *tagPotentials) grow(t int) {
	if len(p.qLeft) >= t {
		return
	}
	f := func(n int) []float64 { return make([]float64, n) }
	p.stop, p.cont = f(4*t), f(4*t)
	p.qLeft, p.qRight, p.logF, p.logRoot, p.logIn, p.eF, p.eRoot = f(t), f(t), f(t), f(t), f(t), f(t), f(t)
	p.ok, p.seen = make([]bool, t), make([]int, t)
}

// load works out the tables of the tags of ls under w; maxDist is the
// largest factor a distance puts on an edge (1 without one).
func (p *tagPotentials) load(ls []*Lattice, w *Params, maxDist float64) {
	p.grow(w.T)
	p.loads++
	p.tags = p.tags[:0]
	for _, l := range ls {
		for _, arc := range l.Arcs {
			t := arc.Tag
			if p.seen[t] == p.loads {
				continue
			}
			p.seen[t] = p.loads
			p.tags = append(p.tags, t)
			copy(p.stop[t*4:t*4+4], w.Stop[t*4:t*4+4])
			copy(p.cont[t*4:t*4+4], w.Cont[t*4:t*4+4])
			p.qLeft[t], p.qRight[t] = takeLargest(p.cont, t*4+Left*2), takeLargest(p.cont, t*4+Right*2)
			f, ok := 0.0, true
			for _, d := range [2]int{t*4 + Left*2, t*4 + Right*2} {
				if m := takeLargest(p.stop, d); m != 1 {
					f += math.Log(m)
				}
				ok = ok && atMost1(p.stop[d+Adj]) && atMost1(p.stop[d+NonAdj]) &&
					atMost1(p.cont[d+Adj]) && atMost1(p.cont[d+NonAdj])
			}
			p.ok[t] = ok
			p.logF[t], p.logRoot[t] = f, math.Log(w.Root[t])+f
			p.eF[t], p.eRoot[t] = math.Exp(p.logF[t]), math.Exp(p.logRoot[t])
		}
	}
	T := w.T
	for _, t := range p.tags {
		in := 0.0
		for _, h := range p.tags {
			in = larger(in, w.Child[(h*2+Left)*T+t]*p.qLeft[h])
			in = larger(in, w.Child[(h*2+Right)*T+t]*p.qRight[h])
		}
		in *= maxDist
		p.ok[t] = p.ok[t] && !math.IsNaN(in) && !math.IsInf(in, 1)
		p.logIn[t] = math.Log(in) + p.logF[t]
	}
}

// takeLargest divides the pair x[d], x[d+1] by its larger value and
// returns that value (1 when it is 0 or already 1).
func takeLargest(x []float64, d int) float64 {
	m := larger(x[d], x[d+1])
	if m == 0 || m == 1 {
		return 1
	}
	x[d] /= m
	x[d+1] /= m
	return m
}

// loadLane sets lane k's potentials but its edges (loadEdges), after
// c.tags has loaded the lanes' tags: lattice l under c.tags' weight
// table. Dead arcs get no root and no incoming edge, so no path through
// them has weight.
//
// Scaling, as the type's comment explains: the edges into the arcs of
// each depth, stops folded in, divided by a bound on the largest of them
// (tagPotentials.logIn), the roots following their depth; then the roots
// share one more factor, as a tree has one root. A lane whose potentials
// are not finite, or overflow anyway, is unusable.
func (c *LatticeChart) loadLane(k int, l *Lattice) {
	sh, W, p := c.sh, c.lanes, &c.tags
	D := sh.depth + 1
	ok := true
	// The factor of each depth: a bound on its largest incoming edge.
	logScale, em, erm := c.logScale[k*D:k*D+D], c.expDepth[:D], c.expDepth[D:2*D]
	logScale[0] = 0
	top := math.Inf(-1)
	for d := 0; d < sh.depth; d++ {
		arcs := sh.byDepth[sh.depthAt[d]:sh.depthAt[d+1]]
		m := math.Inf(-1)
		for _, b := range arcs {
			m = math.Max(m, p.logIn[l.Arcs[b].Tag])
		}
		if math.IsInf(m, -1) {
			m = 0 // no edge into this depth
		}
		for _, b := range arcs {
			if l.Dead == nil || !l.Dead[b] {
				top = math.Max(top, p.logRoot[l.Arcs[b].Tag]-m)
			}
		}
		logScale[d+1] = logScale[d] + m
	}
	if math.IsInf(top, -1) {
		top = 0
	}
	for d := 0; d < sh.depth; d++ {
		m := logScale[d+1] - logScale[d]
		em[d], erm[d] = math.Exp(-m), math.Exp(-m-top)
	}
	for a, arc := range l.Arcs {
		t, d := arc.Tag, sh.pos[a]
		m := logScale[d+1] - logScale[d]
		c.arcTags[a*W+k] = t
		ok = ok && p.ok[t]
		c.inFactor[a*W+k] = expSum(p.logF[t], p.eF[t], -m, em[d])
		c.root[a*W+k] = expSum(p.logRoot[t], p.eRoot[t], -m-top, erm[d])
		if math.IsInf(p.logIn[t], -1) {
			c.inFactor[a*W+k] = 0 // every edge into a is 0 anyway
		}
		if l.Dead != nil && l.Dead[a] {
			c.inFactor[a*W+k], c.root[a*W+k] = 0, 0
		}
		for j := 0; j < 4; j++ {
			c.stop[(a*4+j)*W+k], c.cont[(a*4+j)*W+k] = p.stop[t*4+j], p.cont[t*4+j]
		}
	}
	for d := range logScale {
		logScale[d] += top
	}
	c.unusable[k] = !ok || math.IsNaN(top) || math.IsInf(top, 1)
}

// loadEdges sets every lane's edges, after loadLane has set the lanes'
// tags and factors: those between arcs that share a string (the only
// ones read), each also multiplied by dist[d] (when dist is not nil), d
// the distance of head and child in their string.
func (c *LatticeChart) loadEdges(w *Params, dist []float64) {
	sh, W, p, T := c.sh, c.lanes, &c.tags, w.T
	for i := 0; i < len(sh.pairs); i += 4 {
		a, b, ro, lo := int(sh.pairs[i]), int(sh.pairs[i+1]), int(sh.pairs[i+2])*W, int(sh.pairs[i+3])*W
		d := 1.0
		if dist != nil {
			d = dist[sh.pos[b]-sh.pos[a]]
		}
		ta, tb := c.arcTags[a*W:a*W+W], c.arcTags[b*W:b*W+W]
		fa, fb := c.inFactor[a*W:a*W+W], c.inFactor[b*W:b*W+W]
		r, l := c.edge[ro:ro+W], c.edge[lo:lo+W]
		for k := range r {
			r[k] = w.Child[(ta[k]*2+Right)*T+tb[k]] * p.qRight[ta[k]] * fb[k] * d
			l[k] = w.Child[(tb[k]*2+Left)*T+ta[k]] * p.qLeft[tb[k]] * fa[k] * d
		}
	}
}

// expSum is e^{x+y} from ex = e^x and ey = e^y, multiplied when both are
// in range.
func expSum(x, ex, y, ey float64) float64 {
	if math.Abs(x) < 700 && math.Abs(y) < 700 {
		return ex * ey
	}
	return math.Exp(x + y)
}

// atMost1 says whether v is a number in [0, 1] (up to rounding).
func atMost1(v float64) bool { return v >= 0 && v <= 1+1e-9 }

func resizeFloats(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}
