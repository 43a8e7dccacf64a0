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
	for a := 0; a < A; a++ {
		ta := sh.tag[a]
		c.root[a] = w.Root[ta]
		for k := 0; k < 4; k++ {
			c.stop[a*4+k] = w.Stop[ta*4+k]
			c.cont[a*4+k] = w.Cont[ta*4+k]
		}
	}
	// Edges between arcs that share a string (the only ones read).
	for _, st := range sh.connected {
		a, b := int(st.a), int(st.b)
		ta, tb := sh.tag[a], sh.tag[b]
		r, l := w.Child[w.ChildIndex(ta, Right, tb)], w.Child[w.ChildIndex(tb, Left, ta)]
		if dist != nil {
			d := dist[sh.pos[b]-sh.pos[a]]
			r, l = r*d, l*d
		}
		c.edge[a*A+b], c.edge[b*A+a] = r, l
	}
	c.scale()
}

func resizeFloats(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

// scale divides the potentials as the type's comment explains. Only the
// edges between arcs that share a string are ever read, so only those are
// scaled.
func (c *LatticeChart) scale() {
	sh, A := c.sh, c.sh.A
	colMax, qL, qR := c.colMax[:A], c.qLeft[:A], c.qRight[:A]
	clear(colMax)
	// Conts into the edges of their head and side.
	for a := 0; a < A; a++ {
		for dir, q := range [2][]float64{qL, qR} {
			d := a*4 + dir*2
			q[a] = 1
			if m := larger(c.cont[d+Adj], c.cont[d+NonAdj]); m > 0 && m != 1 {
				c.cont[d+Adj] /= m
				c.cont[d+NonAdj] /= m
				q[a] = m
			}
		}
	}
	for _, st := range sh.connected {
		a, b := int(st.a), int(st.b)
		c.edge[a*A+b] *= qR[a]
		c.edge[b*A+a] *= qL[b]
		colMax[b] = larger(colMax[b], c.edge[a*A+b])
		colMax[a] = larger(colMax[a], c.edge[b*A+a])
	}
	// Stops into the incoming attachments of their arc (factor f_b); the
	// edges into the arcs of each depth divided by their largest, the
	// roots following their depth; then the roots share one more factor,
	// as a tree has one root. The factors are taken in logs, so that huge
	// potentials (a line search's wild steps) do not overflow on the way;
	// potentials that are not finite, or overflow anyway, leave the chart
	// unusable (Inside returns NaN).
	c.logScale = resizeFloats(c.logScale, sh.depth+1)
	c.logScale[0] = 0
	logRoot, logF := c.logRoot[:A], c.logF[:A]
	top := math.Inf(-1)
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
	ok := true
	for _, st := range sh.connected {
		a, b := int(st.a), int(st.b)
		c.edge[a*A+b] *= colMax[b]
		c.edge[b*A+a] *= colMax[a]
		ok = ok && atMost1(c.edge[a*A+b]) && atMost1(c.edge[b*A+a])
	}
	if math.IsInf(top, -1) {
		top = 0
	}
	for b := range c.root[:A] {
		c.root[b] = math.Exp(logRoot[b] - top)
	}
	for d := range c.logScale {
		c.logScale[d] += top
	}
	// Whatever overflowed on the way shows in the scaled tables, which
	// are all at most 1 otherwise.
	for _, t := range [...][]float64{c.root[:A], c.stop[:4*A], c.cont[:4*A]} {
		for _, v := range t {
			ok = ok && atMost1(v)
		}
	}
	c.unusable = !ok || math.IsNaN(top) || math.IsInf(top, 1)
}

// atMost1 says whether v is a number in [0, 1] (up to rounding).
func atMost1(v float64) bool { return v >= 0 && v <= 1+1e-9 }

// rescaleAttachments multiplies every attachment by f, for when the
// scaled Z still leaves the floating-point range: a path of d arcs gains
// f^d, which logScale takes back.
func (c *LatticeChart) rescaleAttachments(f float64) {
	A := c.sh.A
	for _, st := range c.sh.connected {
		a, b := int(st.a), int(st.b)
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
	for span := 1; span < S; span++ {
		// IR[a][b] = edge · Σ_k Rc[a][k]·Ls[b][k]: a takes b;
		// IL[b][a] = edge · Σ_k Rs[a][k]·Lc[b][k]: b takes a;
		// k the states between a's end and b's start.
		for _, st := range sh.attach[sh.attachAt[span]:sh.attachAt[span+1]] {
			a, b := int(st.a), int(st.b)
			ir, il := 0.0, 0.0
			if st.lo < st.hi {
				rc, rs, ls, lc := c.rc[a*S:a*S+S], c.rs[a*S:a*S+S], c.ls[b*S:b*S+S], c.lc[b*S:b*S+S]
				for r := sh.runs[st.lo:st.hi]; len(r) > 1; r = r[2:] {
					x, y := dot2(rc[r[0]:r[1]], ls[r[0]:], rs[r[0]:], lc[r[0]:])
					ir, il = ir+x, il+y
				}
				ir, il = ir*c.edge[a*A+b], il*c.edge[b*A+a]
			}
			c.ir[a*A+b], c.il[b*A+a] = ir, il
		}
		// R[a][j] = Σ_c IR[a][c]·Rs[c][j], c leaving the states between
		// a's end and j.
		for _, st := range sh.right[sh.rightAt[span]:sh.rightAt[span+1]] {
			a, j := int(st.a), int(st.b)
			r := 0.0
			for run := sh.runs[st.lo:st.hi]; len(run) > 1; run = run[2:] {
				r += dot(c.ir[a*A+int(run[0]):a*A+int(run[1])], c.rsT[j*A+int(run[0]):])
			}
			d := a*4 + Right*2 + NonAdj
			c.rs[a*S+j], c.rc[a*S+j] = r*c.stop[d], r*c.cont[d]
			c.rsT[j*A+a] = c.rs[a*S+j]
		}
		// L[a][i] = Σ_c IL[a][c]·Ls[c][i], c leaving the states between i
		// and a's start.
		for _, st := range sh.left[sh.leftAt[span]:sh.leftAt[span+1]] {
			a, i := int(st.a), int(st.b)
			l := 0.0
			for run := sh.runs[st.lo:st.hi]; len(run) > 1; run = run[2:] {
				l += dot(c.il[a*A+int(run[0]):a*A+int(run[1])], c.lsT[i*A+int(run[0]):])
			}
			d := a*4 + Left*2 + NonAdj
			c.ls[a*S+i], c.lc[a*S+i] = l*c.stop[d], l*c.cont[d]
			c.lsT[i*A+a] = c.ls[a*S+i]
		}
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
	for _, st := range sh.connected { // the only attachments with adjoints
		a, b := int(st.a), int(st.b)
		c.bir[a*A+b], c.bil[b*A+a] = 0, 0
	}
	clear(c.rootPost[:A])
	clear(c.stopPost[:4*A])
	clear(c.contPost[:4*A])
	if !normal(c.z) {
		for _, st := range sh.connected {
			a, b := int(st.a), int(st.b)
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
		// Reverse the halves.
		for _, st := range sh.right[sh.rightAt[span]:sh.rightAt[span+1]] {
			a, j := int(st.a), int(st.b)
			d := a*4 + Right*2 + NonAdj
			grs, grc := c.brs[a*S+j]+c.brsT[j*A+a], c.brc[a*S+j]
			c.stopPost[d] += c.rs[a*S+j] * grs
			c.contPost[d] += c.rc[a*S+j] * grc
			if g := grs*c.stop[d] + grc*c.cont[d]; g != 0 {
				for run := sh.runs[st.lo:st.hi]; len(run) > 1; run = run[2:] {
					lo, hi := int(run[0]), int(run[1])
					axpy(g, c.rsT[j*A+lo:], c.bir[a*A+lo:a*A+hi])
					axpy(g, c.ir[a*A+lo:], c.brsT[j*A+lo:j*A+hi])
				}
			}
		}
		for _, st := range sh.left[sh.leftAt[span]:sh.leftAt[span+1]] {
			a, i := int(st.a), int(st.b)
			d := a*4 + Left*2 + NonAdj
			gls, glc := c.bls[a*S+i]+c.blsT[i*A+a], c.blc[a*S+i]
			c.stopPost[d] += c.ls[a*S+i] * gls
			c.contPost[d] += c.lc[a*S+i] * glc
			if g := gls*c.stop[d] + glc*c.cont[d]; g != 0 {
				for run := sh.runs[st.lo:st.hi]; len(run) > 1; run = run[2:] {
					lo, hi := int(run[0]), int(run[1])
					axpy(g, c.lsT[i*A+lo:], c.bil[a*A+lo:a*A+hi])
					axpy(g, c.il[a*A+lo:], c.blsT[i*A+lo:i*A+hi])
				}
			}
		}
		// Reverse the attachments.
		for _, st := range sh.attach[sh.attachAt[span]:sh.attachAt[span+1]] {
			if st.lo == st.hi {
				continue
			}
			a, b := int(st.a), int(st.b)
			gr, gl := c.bir[a*A+b], c.bil[b*A+a]
			c.edgePost[a*A+b] = c.ir[a*A+b] * gr
			c.edgePost[b*A+a] = c.il[b*A+a] * gl
			gr *= c.edge[a*A+b]
			gl *= c.edge[b*A+a]
			if gr == 0 && gl == 0 {
				continue
			}
			for r := sh.runs[st.lo:st.hi]; len(r) > 1; r = r[2:] {
				lo, hi := int(r[0]), int(r[1])
				axpy4(gr, gl, c.ls[b*S+lo:], c.rc[a*S+lo:], c.lc[b*S+lo:], c.rs[a*S+lo:],
					c.brc[a*S+lo:a*S+hi], c.bls[b*S+lo:], c.brs[a*S+lo:], c.blc[b*S+lo:])
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
	for _, st := range sh.connected {
		a, b := int(st.a), int(st.b)
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
