package dmv

import "math"

// LatticeChart is the split-head DMV program of Chart run over a lattice
// (Smith 2006, App. A.2): a word is an arc, a boundary between words is a
// state, and items are indexed by the head's arc and a state:
//
//	Rs[a][s], Rc[a][s]  a's right half, from a's end to state s
//	Ls[a][s], Lc[a][s]  a's left half, from state s to a's start
//	IR[a][c], IL[a][c]  a's half up to and including its new child arc c
//
// Every item sums over all the paths between its states, and a tree
// never mixes two paths, so Z is the total weight of every tree of every
// string of the lattice; on a chain lattice it is Chart's Z. The valence
// of a decision is again known from the span (a half that ends where its
// arc does has no child yet). Items are filled by increasing span in
// state numbers, which are topological, and every sum runs over the
// states on paths between the item's ends only (the runs of the
// lattice's shape). The potentials come from a weight table as in
// Chart.Load, and outside is again reverse-mode differentiation of
// inside, so counts fill the same tag-level tables.
//
// Scaling: a string of m arcs has 4m−1 factors per tree, so a factor
// pulled out of the potentials must be the same for every string of one
// length. The chart folds each arc's conts into its edges and its stops
// into its incoming attachments (exact, as in Chart), divides the edges
// into the arcs of each depth by their largest value, keeping the log
// per depth, and the roots by theirs (a tree has one root). Paths ending
// in final states of different depths are rescaled separately and summed
// in log space.
type LatticeChart struct {
	sh *latticeShape

	root, edge []float64 // [a], [a·A + c]
	stop, cont []float64 // [a·4 + dir·2 + valence]
	logScale   []float64 // [d]: log of the factor scaling removed from paths of d arcs
	finalZ     []float64 // scaled Z of the paths ending in each final state
	z, top     float64   // Z = z·e^top
	unusable   bool      // scaling met numbers out of range: no Z here

	// Scratch of scale, per arc.
	colMax, qLeft, qRight, logRoot, logF []float64

	rs, rc, ls, lc []float64 // [a·S + s]
	rsT, lsT       []float64 // [s·A + a]
	ir, il         []float64 // [a·A + c]

	// Adjoints of the items (∂Z/∂item, scaled by 1/Z), laid out as their
	// items, and the posteriors Outside leaves.
	brs, brc, bls, blc, brsT, blsT, bir, bil []float64
	edgePost, rootPost, stopPost, contPost   []float64

	capS, capA int
}

// NewLatticeChart makes an empty chart; it grows to the lattices loaded.
func NewLatticeChart() *LatticeChart { return &LatticeChart{} }

func (c *LatticeChart) grow(s, a int) {
	if s <= c.capS && a <= c.capA {
		return
	}
	s, a = max(s, c.capS), max(a, c.capA)
	f := func(n int) []float64 { return make([]float64, n) }
	c.rs, c.rc, c.ls, c.lc, c.rsT, c.lsT = f(a*s), f(a*s), f(a*s), f(a*s), f(a*s), f(a*s)
	c.brs, c.brc, c.bls, c.blc, c.brsT, c.blsT = f(a*s), f(a*s), f(a*s), f(a*s), f(a*s), f(a*s)
	c.edge, c.ir, c.il, c.bir, c.bil, c.edgePost = f(a*a), f(a*a), f(a*a), f(a*a), f(a*a), f(a*a)
	c.root, c.rootPost = f(a), f(a)
	c.colMax, c.qLeft, c.qRight, c.logRoot, c.logF = f(a), f(a), f(a), f(a), f(a)
	c.stop, c.cont, c.stopPost, c.contPost = f(4*a), f(4*a), f(4*a), f(4*a)
	c.capS, c.capA = s, a
}

// Bytes is the memory the chart's tables hold, for reports of its size
// (the lattice's shape, kept with the lattice, is not counted).
func (c *LatticeChart) Bytes() int {
	return 8 * (12*c.capA*c.capS + 6*c.capA*c.capA + 23*c.capA)
}

// Load sets the potentials of lattice l (which must pass Check) under
// weight table w, each edge also multiplied by dist[d] when dist is not
// nil, d the distance of head and child in their string (Model L);
// len(dist) must exceed the lattice's longest string.
func (c *LatticeChart) Load(l *Lattice, w *Params, dist []float64) {
	sh := l.shapeOf()
	c.sh = sh
	S, A := sh.S, sh.A
	c.grow(S, A)
	// Each arc's potentials, its conts divided by their largest per side
	// (that factor moves into the side's edges: an attachment comes with
	// one cont).
	qL, qR := c.qLeft[:A], c.qRight[:A]
	for a := 0; a < A; a++ {
		ta := sh.tag[a]
		c.root[a] = w.Root[ta]
		copy(c.stop[a*4:a*4+4], w.Stop[ta*4:ta*4+4])
		copy(c.cont[a*4:a*4+4], w.Cont[ta*4:ta*4+4])
		qL[a], qR[a] = c.takeLargestCont(a*4+Left*2), c.takeLargestCont(a*4+Right*2)
	}
	// Edges between arcs that share a string (the only ones read), and
	// the largest edge into each arc.
	colMax := c.colMax[:A]
	clear(colMax)
	t := w.T
	for k := 0; k < len(sh.pairs); k += 2 {
		a, b := int(sh.pairs[k]), int(sh.pairs[k+1])
		ta, tb := sh.tag[a], sh.tag[b]
		r, l := w.Child[(ta*2+Right)*t+tb]*qR[a], w.Child[(tb*2+Left)*t+ta]*qL[b]
		if dist != nil {
			d := dist[sh.pos[b]-sh.pos[a]]
			r, l = r*d, l*d
		}
		c.edge[a*A+b], c.edge[b*A+a] = r, l
		colMax[b], colMax[a] = larger(colMax[b], r), larger(colMax[a], l)
	}
	c.scale()
}

// takeLargestCont divides the cont pair at d by its larger value and
// returns that value (1 when it is 0 or already 1).
func (c *LatticeChart) takeLargestCont(d int) float64 {
	m := larger(c.cont[d+Adj], c.cont[d+NonAdj])
	if m == 0 || m == 1 {
		return 1
	}
	c.cont[d+Adj] /= m
	c.cont[d+NonAdj] /= m
	return m
}

func resizeFloats(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

// scale finishes what Load began, as the type's comment explains: stops
// into the incoming attachments of their arc (factor f_b), the edges into
// the arcs of each depth divided by their largest, the roots following
// their depth; then the roots share one more factor, as a tree has one
// root. The factors are taken in logs, so that huge potentials (a line
// search's wild steps) do not overflow on the way; potentials that are
// not finite, or overflow anyway, leave the chart unusable (Inside
// returns NaN). Only the edges between arcs that share a string are ever
// read, so only those are scaled.
func (c *LatticeChart) scale() {
	sh, A := c.sh, c.sh.A
	colMax := c.colMax[:A]
	c.logScale = resizeFloats(c.logScale, sh.depth+1)
	c.logScale[0] = 0
	logRoot, logF := c.logRoot[:A], c.logF[:A]
	top := math.Inf(-1)
	ok := true
	for d := 0; d < sh.depth; d++ {
		arcs := sh.byDepth[sh.depthAt[d]:sh.depthAt[d+1]]
		m := math.Inf(-1)
		for _, b := range arcs {
			f := 0.0
			for dir := Left; dir <= Right; dir++ {
				s := b*4 + dir*2
				if t := larger(c.stop[s+Adj], c.stop[s+NonAdj]); t > 0 && t != 1 {
					c.stop[s+Adj] /= t
					c.stop[s+NonAdj] /= t
					f += math.Log(t)
				}
				ok = ok && atMost1(c.stop[s+Adj]) && atMost1(c.stop[s+NonAdj]) &&
					atMost1(c.cont[s+Adj]) && atMost1(c.cont[s+NonAdj])
			}
			logF[b] = f
			logRoot[b] = math.Log(c.root[b]) + f
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
		c.logScale[d+1] = c.logScale[d] + m
	}
	for k := 0; k < len(sh.pairs); k += 2 {
		a, b := int(sh.pairs[k]), int(sh.pairs[k+1])
		r, l := c.edge[a*A+b]*colMax[b], c.edge[b*A+a]*colMax[a]
		c.edge[a*A+b], c.edge[b*A+a] = r, l
		ok = ok && atMost1(r) && atMost1(l)
	}
	if math.IsInf(top, -1) {
		top = 0
	}
	for b, v := range logRoot {
		c.root[b] = math.Exp(v - top)
		ok = ok && atMost1(c.root[b])
	}
	for d := range c.logScale {
		c.logScale[d] += top
	}
	// Whatever overflowed on the way shows in the scaled tables, which
	// are all at most 1 otherwise.
	c.unusable = !ok || math.IsNaN(top) || math.IsInf(top, 1)
}

// atMost1 says whether v is a number in [0, 1] (up to rounding).
func atMost1(v float64) bool { return v >= 0 && v <= 1+1e-9 }

// rescaleAttachments multiplies every attachment by f, for when the
// scaled Z still leaves the floating-point range: a path of d arcs gains
// f^d, which logScale takes back.
func (c *LatticeChart) rescaleAttachments(f float64) {
	A := c.sh.A
	for k := 0; k < len(c.sh.pairs); k += 2 {
		a, b := int(c.sh.pairs[k]), int(c.sh.pairs[k+1])
		c.edge[a*A+b] *= f
		c.edge[b*A+a] *= f
	}
	for a := range c.root[:A] {
		c.root[a] *= f
	}
	lf := math.Log(f)
	for d := range c.logScale {
		c.logScale[d] -= float64(d) * lf
	}
}

// Inside runs the inside pass and returns log Z, the log of the total
// weight of every tree of every string of the lattice: −Inf when it is 0,
// NaN when scaling could not bring it into the floating-point range
// (weights so extreme that trees differ by more than e^±1400 or so).
func (c *LatticeChart) Inside() float64 {
	if c.unusable {
		c.z = math.NaN()
		return math.NaN()
	}
	c.inside()
	depth := float64(max(c.sh.depth, 1))
	for try := 0; try < 30 && !normal(c.z) && c.sh.depth > 0; try++ {
		// Every attachment times step moves a path of d arcs by step^d:
		// aim for z ≈ 1 when its size is known, else take big steps.
		var logStep float64
		switch {
		case c.z == 0:
			logStep = 600 / depth
		case math.IsInf(c.z, 1):
			logStep = -600 / depth
		default:
			logStep = -math.Log(c.z) / depth
		}
		c.rescaleAttachments(math.Exp(math.Max(-600, math.Min(600, logStep))))
		c.inside()
	}
	if c.z != 0 && !normal(c.z) {
		return math.NaN()
	}
	return c.LogZ()
}

// normal says whether z is far enough from 0 and +Inf for outside's 1/z
// and the scaled posteriors.
func normal(z float64) bool { return z > 1e-280 && z < 1e280 }

// LogZ is log Z of the last inside pass.
func (c *LatticeChart) LogZ() float64 {
	if !(c.z > 0) {
		return math.Inf(-1)
	}
	return math.Log(c.z) + c.top
}

// inside fills the chart by increasing span (j − i, in state numbers),
// as the lattice's program lays the items out.
func (c *LatticeChart) inside() {
	sh := c.sh
	S, A := sh.S, sh.A
	for a := 0; a < A; a++ {
		p, q, d := sh.from[a], sh.to[a], a*4
		c.rs[a*S+q], c.rc[a*S+q] = c.stop[d+Right*2+Adj], c.cont[d+Right*2+Adj]
		c.ls[a*S+p], c.lc[a*S+p] = c.stop[d+Left*2+Adj], c.cont[d+Left*2+Adj]
		c.rsT[q*A+a], c.lsT[p*A+a] = c.rs[a*S+q], c.ls[a*S+p]
	}
	for k := 0; k < len(sh.zero); k += 2 {
		c.ir[sh.zero[k]], c.il[sh.zero[k+1]] = 0, 0
	}
	for span := 1; span < S; span++ {
		// IR[a][b] = edge · Σ_k Rc[a][k]·Ls[b][k]: a takes b;
		// IL[b][a] = edge · Σ_k Rs[a][k]·Lc[b][k]: b takes a;
		// k the states between a's end and b's start.
		for p := sh.prog[sh.at[3*span]:sh.at[3*span+1]]; len(p) > 0; {
			r, l, runs := p[0], p[1], p[2]
			p = p[3:]
			ir, il := 0.0, 0.0
			for ; runs > 0; runs-- {
				x, y, n := p[0], p[1], p[2]
				p = p[3:]
				s, t := dot2(c.rc[x:x+n], c.ls[y:], c.rs[x:], c.lc[y:])
				ir, il = ir+s, il+t
			}
			c.ir[r], c.il[l] = ir*c.edge[r], il*c.edge[l]
		}
		// R[a][j] = Σ_c IR[a][c]·Rs[c][j], c leaving the states between
		// a's end and j; L[a][i] = Σ_c IL[a][c]·Ls[c][i], c leaving the
		// states between i and a's start.
		c.halves(sh.prog[sh.at[3*span+1]:sh.at[3*span+2]], c.ir, c.rsT, c.rs, c.rc)
		c.halves(sh.prog[sh.at[3*span+2]:sh.at[3*span+3]], c.il, c.lsT, c.ls, c.lc)
	}
	// The wall takes one root, whose halves span a whole path.
	c.finalZ = resizeFloats(c.finalZ, len(sh.finals))
	c.top = math.Inf(-1)
	for k, f := range sh.finals {
		z := 0.0
		for _, a := range sh.rootArcs[sh.rootAt[k]:sh.rootAt[k+1]] {
			z += c.root[a] * c.ls[a*S] * c.rs[a*S+f]
		}
		c.finalZ[k] = z
		if z > 0 {
			c.top = math.Max(c.top, c.logScale[sh.stateDepth[f]])
		}
	}
	c.z = 0
	if math.IsInf(c.top, -1) {
		c.top = 0
		return
	}
	for k, f := range sh.finals {
		if c.finalZ[k] > 0 {
			c.z += c.finalZ[k] * math.Exp(c.logScale[sh.stateDepth[f]]-c.top)
		}
	}
}

// halves runs the half items of program part p over the attachments
// att and the finished halves' transpose sT, filling the halves s and c
// (and sT).
func (c *LatticeChart) halves(p []int32, att, sT, s, cont []float64) {
	for len(p) > 0 {
		o, t, d, runs := p[0], p[1], p[2], p[3]
		p = p[4:]
		v := 0.0
		for ; runs > 0; runs-- {
			x, y, n := p[0], p[1], p[2]
			p = p[3:]
			v += dot(att[x:x+n], sT[y:])
		}
		s[o], cont[o] = v*c.stop[d], v*c.cont[d]
		sT[t] = s[o]
	}
}

// Outside runs after Inside: reverse-mode differentiation of log Z, as
// Chart.Outside, giving the posterior of every attachment, root and
// stop/cont decision over the strings of the lattice. It returns false
// when Z is 0 (or Inside returned NaN), leaving every posterior at 0.
func (c *LatticeChart) Outside() bool {
	sh := c.sh
	S, A := sh.S, sh.A
	// Clear the adjoints the program touches: a right half's states lie
	// at and after its arc's end, a left half's at and before its start.
	for a := 0; a < A; a++ {
		clear(c.brs[a*S+sh.to[a] : a*S+S])
		clear(c.brc[a*S+sh.to[a] : a*S+S])
		clear(c.bls[a*S : a*S+sh.from[a]+1])
		clear(c.blc[a*S : a*S+sh.from[a]+1])
	}
	for s := 0; s < S; s++ {
		clear(c.brsT[s*A : s*A+sh.arcFrom[s]])
		clear(c.blsT[s*A+sh.arcFrom[s] : s*A+A])
	}
	for k := 0; k < len(sh.pairs); k += 2 { // the only attachments with adjoints
		a, b := int(sh.pairs[k]), int(sh.pairs[k+1])
		c.bir[a*A+b], c.bil[b*A+a] = 0, 0
	}
	clear(c.rootPost[:A])
	clear(c.stopPost[:4*A])
	clear(c.contPost[:4*A])
	if !normal(c.z) {
		for k := 0; k < len(sh.pairs); k += 2 {
			a, b := int(sh.pairs[k]), int(sh.pairs[k+1])
			c.edgePost[a*A+b], c.edgePost[b*A+a] = 0, 0
		}
		return false
	}
	for k, f := range sh.finals {
		if c.finalZ[k] == 0 {
			continue
		}
		g := math.Exp(c.logScale[sh.stateDepth[f]]-c.top) / c.z
		for _, a := range sh.rootArcs[sh.rootAt[k]:sh.rootAt[k+1]] {
			l0, r := c.ls[a*S], c.rs[a*S+f]
			c.rootPost[a] += c.root[a] * l0 * r * g
			c.bls[a*S] += c.root[a] * r * g
			c.brs[a*S+f] += c.root[a] * l0 * g
		}
	}
	for span := S - 1; span >= 1; span-- {
		// Reverse the halves, then the attachments.
		c.halvesBack(sh.prog[sh.at[3*span+1]:sh.at[3*span+2]], c.ir, c.rsT, c.rs, c.rc, c.bir, c.brsT, c.brs, c.brc)
		c.halvesBack(sh.prog[sh.at[3*span+2]:sh.at[3*span+3]], c.il, c.lsT, c.ls, c.lc, c.bil, c.blsT, c.bls, c.blc)
		for p := sh.prog[sh.at[3*span]:sh.at[3*span+1]]; len(p) > 0; {
			r, l, runs := p[0], p[1], p[2]
			p = p[3:]
			gr, gl := c.bir[r], c.bil[l]
			c.edgePost[r], c.edgePost[l] = c.ir[r]*gr, c.il[l]*gl
			gr *= c.edge[r]
			gl *= c.edge[l]
			if gr == 0 && gl == 0 {
				p = p[3*runs:]
				continue
			}
			for ; runs > 0; runs-- {
				x, y, n := p[0], p[1], p[2]
				p = p[3:]
				axpy4(gr, gl, c.ls[y:], c.rc[x:], c.lc[y:], c.rs[x:],
					c.brc[x:x+n], c.bls[y:], c.brs[x:], c.blc[y:])
			}
		}
	}
	for a := 0; a < A; a++ {
		p, q, d := sh.from[a], sh.to[a], a*4
		c.stopPost[d+Right*2+Adj] = c.rs[a*S+q] * (c.brs[a*S+q] + c.brsT[q*A+a])
		c.contPost[d+Right*2+Adj] = c.rc[a*S+q] * c.brc[a*S+q]
		c.stopPost[d+Left*2+Adj] = c.ls[a*S+p] * (c.bls[a*S+p] + c.blsT[p*A+a])
		c.contPost[d+Left*2+Adj] = c.lc[a*S+p] * c.blc[a*S+p]
	}
	return true
}

// halvesBack reverses halves: the adjoints bs, bsT and bc of the halves
// of program part p (the stop and cont posteriors of their decisions
// taken here) flow into the adjoints bAtt of the attachments and bsT of
// the finished halves they were summed from.
func (c *LatticeChart) halvesBack(p []int32, att, sT, s, cont, bAtt, bsT, bs, bc []float64) {
	for len(p) > 0 {
		o, t, d, runs := p[0], p[1], p[2], p[3]
		p = p[4:]
		gs, gc := bs[o]+bsT[t], bc[o]
		c.stopPost[d] += s[o] * gs
		c.contPost[d] += cont[o] * gc
		g := gs*c.stop[d] + gc*c.cont[d]
		if g == 0 {
			p = p[3*runs:]
			continue
		}
		for ; runs > 0; runs-- {
			x, y, n := p[0], p[1], p[2]
			p = p[3:]
			axpy(g, sT[y:], bAtt[x:x+n])
			axpy(g, att[x:], bsT[y:y+n])
		}
	}
}

// AddCounts adds the posteriors of the last Outside, times weight, to the
// tag-level table counts.
func (c *LatticeChart) AddCounts(counts *Params, weight float64) {
	sh := c.sh
	A, t := sh.A, counts.T
	for a := 0; a < A; a++ {
		ta := sh.tag[a]
		counts.Root[ta] += weight * c.rootPost[a]
		for k := 0; k < 4; k++ {
			counts.Stop[ta*4+k] += weight * c.stopPost[a*4+k]
			counts.Cont[ta*4+k] += weight * c.contPost[a*4+k]
		}
	}
	for k := 0; k < len(sh.pairs); k += 2 {
		a, b := int(sh.pairs[k]), int(sh.pairs[k+1])
		ta, tb := sh.tag[a], sh.tag[b]
		counts.Child[(ta*2+Right)*t+tb] += weight * c.edgePost[a*A+b]
		counts.Child[(tb*2+Left)*t+ta] += weight * c.edgePost[b*A+a]
	}
}

// dot2 is Σ a[i]·b[i] and Σ c[i]·d[i] in one loop; len(a) bounds all.
func dot2(a, b, c, d []float64) (float64, float64) {
	b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
	s, t := 0.0, 0.0
	for i, x := range a {
		s += x * b[i]
		t += c[i] * d[i]
	}
	return s, t
}

// axpy4 is the reverse of dot2 twice over: y1 += f·x1, y2 += f·x2,
// y3 += g·x3, y4 += g·x4 in one loop; len(y1) bounds all.
func axpy4(f, g float64, x1, x2, x3, x4, y1, y2, y3, y4 []float64) {
	n := len(y1)
	x1, x2, x3, x4, y2, y3, y4 = x1[:n], x2[:n], x3[:n], x4[:n], y2[:n], y3[:n], y4[:n]
	for i := range y1 {
		y1[i] += f * x1[i]
		y2[i] += f * x2[i]
		y3[i] += g * x3[i]
		y4[i] += g * x4[i]
	}
}
