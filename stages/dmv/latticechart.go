package dmv

import (
	"math"
	"slices"

	"github.com/grind-nlp/grind/internal/vec8"
)

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
// into the arcs of each depth by a bound on the largest of them (the
// largest that any head among the lattice's tags could give), keeping
// the log per depth, and the roots by their largest (a tree has one
// root). Paths ending in final states of different depths are rescaled
// separately and summed in log space.
//
// Lanes: a chart runs one lattice at a time, or several lattices with
// the same states and arcs (instances of one template, see
// Lattice.WithTags) side by side, one per lane: every table keeps the
// lanes of an item next to each other, so the program is walked once
// for all of them and its innermost loops run over the lanes. Each lane
// has its own potentials, scaling and Z. With one lane the hot loops are
// plain dot products and axpys instead (lane loops of width one cost a
// single lattice 25–40% more).
type LatticeChart struct {
	sh    *latticeShape
	lanes int

	// Potentials, lane by lane, and each lane's scaling.
	root, edge []float64 // [a·lanes + k], [attachment·lanes + k]
	stop, cont []float64 // [(a·4 + dir·2 + valence)·lanes + k]
	logScale   []float64 // [k·(depth+1) + d]: log of the factor scaling removed from lane k's paths of d arcs
	arcTags    []int     // [a·lanes + k]: the tag arc a reads in lane k
	unusable   []bool    // scaling met numbers out of range: no Z in this lane

	// What loading works with: the lanes' tags, per arc and lane the
	// factor on its incoming edges ([a·lanes + k]), per depth e^−m and
	// e^−m−top.
	tags               tagPotentials
	inFactor, expDepth []float64

	finalZ []float64 // [k·finals + f]: lane k's scaled Z of the paths ending in final f
	z, top []float64 // lane k's Z = z[k]·e^top[k]

	// Items, [index·lanes + k], the index in the compact tables the
	// lattice's shape lays out (latticeShape): right halves and their
	// transposes, left halves and theirs, and attachments, IR and IL in
	// one table (ir and il are the same slice, as are bir and bil).
	rs, rc, rsT []float64
	ls, lc, lsT []float64
	ir, il      []float64

	// Adjoints of the items (∂Z/∂item, scaled by 1/Z), laid out as their
	// items, and the posteriors Outside leaves.
	brs, brc, bls, blc, brsT, blsT, bir, bil []float64
	edgePost, rootPost, stopPost, contPost   []float64

	acc, acc2 []float64 // a vector over the lanes, twice
	single    [1]*Lattice

	capR, capL, capAtt, capA int // table sizes, lanes included
}

// NewLatticeChart makes an empty chart; it grows to the lattices loaded.
func NewLatticeChart() *LatticeChart { return &LatticeChart{} }

func (c *LatticeChart) grow(sh *latticeShape, lanes int) {
	nr, nl, na, a1 := sh.nR*lanes, sh.nL*lanes, sh.nAtt*lanes, sh.A*lanes
	if nr <= c.capR && nl <= c.capL && na <= c.capAtt && a1 <= c.capA {
		return
	}
	nr, nl, na, a1 = max(nr, c.capR), max(nl, c.capL), max(na, c.capAtt), max(a1, c.capA)
	// Drop the old tables first, so that growing does not hold both.
	c.rs, c.rc, c.rsT, c.brs, c.brc, c.brsT = nil, nil, nil, nil, nil, nil
	c.ls, c.lc, c.lsT, c.bls, c.blc, c.blsT = nil, nil, nil, nil, nil, nil
	c.edge, c.ir, c.il, c.bir, c.bil, c.edgePost = nil, nil, nil, nil, nil, nil
	f := func(n int) []float64 { return make([]float64, n) }
	c.rs, c.rc, c.rsT, c.brs, c.brc, c.brsT = f(nr), f(nr), f(nr), f(nr), f(nr), f(nr)
	c.ls, c.lc, c.lsT, c.bls, c.blc, c.blsT = f(nl), f(nl), f(nl), f(nl), f(nl), f(nl)
	c.edge, c.ir, c.bir, c.edgePost = f(na), f(na), f(na), f(na)
	c.il, c.bil = c.ir, c.bir
	c.root, c.rootPost = f(a1), f(a1)
	c.stop, c.cont, c.stopPost, c.contPost = f(4*a1), f(4*a1), f(4*a1), f(4*a1)
	c.arcTags = make([]int, a1)
	c.capR, c.capL, c.capAtt, c.capA = nr, nl, na, a1
}

// Bytes is the memory the chart's tables hold, for reports of its size
// (the lattice's shape, kept with the lattice, is not counted).
func (c *LatticeChart) Bytes() int {
	return 8 * (6*c.capR + 6*c.capL + 4*c.capAtt + 20*c.capA + len(c.inFactor) + len(c.expDepth) + 15*len(c.tags.qLeft))
}

// Load sets the potentials of lattice l (in the form Check verifies, but
// for determinism where dead arcs keep each string to one path) under
// weight table w, each edge also multiplied by dist[d] when dist is not nil, d
// the distance of head and child in their string (Model L); len(dist)
// must exceed the lattice's longest string. The chart then has one lane.
func (c *LatticeChart) Load(l *Lattice, w *Params, dist []float64) {
	c.single[0] = l
	c.LoadLanes(c.single[:], w, dist)
}

// LoadLanes loads one lattice per lane, as Load does; they must all have
// the same states and arcs, which instances of one template have.
func (c *LatticeChart) LoadLanes(ls []*Lattice, w *Params, dist []float64) {
	sh := ls[0].shapeOf()
	c.sh, c.lanes = sh, len(ls)
	A, W, D := sh.A, len(ls), sh.depth+1
	c.grow(sh, W)
	c.logScale = resizeFloats(c.logScale, W*D)
	c.finalZ = resizeFloats(c.finalZ, W*len(sh.finals))
	c.z, c.top = resizeFloats(c.z, W), resizeFloats(c.top, W)
	c.acc, c.acc2 = resizeFloats(c.acc, W), resizeFloats(c.acc2, W)
	c.inFactor, c.expDepth = resizeFloats(c.inFactor, A*W), resizeFloats(c.expDepth, 2*D)
	if cap(c.unusable) < W {
		c.unusable = make([]bool, W)
	}
	c.unusable = c.unusable[:W]
	maxDist := 1.0 // over the distances within the lattice's strings only
	for _, d := range dist[:min(len(dist), sh.depth)] {
		maxDist = math.Max(maxDist, d)
	}
	c.tags.load(ls, w, maxDist)
	for k, l := range ls {
		if l.shapeOf() != sh {
			panic("dmv: lanes of a lattice chart with different lattice shapes")
		}
		c.loadLane(k, l)
	}
	c.loadEdges(w, dist)
}

// rescaleAttachments multiplies every attachment of lane k by f, for when
// its scaled Z still leaves the floating-point range: a path of d arcs
// gains f^d, which the lane's logScale takes back.
func (c *LatticeChart) rescaleAttachments(k int, f float64) {
	sh, W := c.sh, c.lanes
	for i := 0; i < len(sh.pairs); i += 4 {
		r, l := int(sh.pairs[i+2]), int(sh.pairs[i+3])
		c.edge[r*W+k] *= f
		c.edge[l*W+k] *= f
	}
	for a := 0; a < sh.A; a++ {
		c.root[a*W+k] *= f
	}
	lf, D := math.Log(f), sh.depth+1
	for d := 0; d < D; d++ {
		c.logScale[k*D+d] -= float64(d) * lf
	}
}

// Inside runs the inside pass and returns the sum over the lanes of log
// Z, the log of the total weight of every tree of every string of the
// lane's lattice: −Inf when some Z is 0, NaN when scaling could not bring
// one into the floating-point range (weights so extreme that trees
// differ by more than e^±1400 or so).
func (c *LatticeChart) Inside() float64 {
	c.inside()
	depth := float64(max(c.sh.depth, 1))
	for try := 0; try < 30 && c.sh.depth > 0; try++ {
		again := false
		for k, z := range c.z[:c.lanes] {
			if c.unusable[k] || z > 1e-100 && z < 1e100 {
				continue
			}
			// Every attachment times step moves a path of d arcs by
			// step^d: aim for z ≈ 1 when its size is known, else take
			// big steps. Paths of other lengths move by other powers, and
			// those z is far from may have left the range: z is aimed at
			// 1, not merely brought into range.
			var logStep float64
			switch {
			case z == 0:
				logStep = 600 / depth
			case math.IsInf(z, 1):
				logStep = -600 / depth
			default:
				logStep = -math.Log(z) / depth
			}
			c.rescaleAttachments(k, math.Exp(math.Max(-600, math.Min(600, logStep))))
			again = true
		}
		if !again {
			break
		}
		c.inside()
	}
	sum := 0.0
	for k, z := range c.z[:c.lanes] {
		switch {
		case c.unusable[k] || z != 0 && !normal(z):
			c.z[k] = math.NaN()
			sum += math.NaN()
		case z == 0:
			sum += math.Inf(-1)
		default:
			sum += math.Log(z) + c.top[k]
		}
	}
	return sum
}

// normal says whether z is far enough from 0 and +Inf for outside's 1/z
// and the scaled posteriors.
func normal(z float64) bool { return z > 1e-280 && z < 1e280 }

// inside fills the chart by increasing span (j − i, in state numbers),
// as the lattice's program lays the items out.
func (c *LatticeChart) inside() {
	sh, W := c.sh, c.lanes
	S, A := sh.S, sh.A
	for a := 0; a < A; a++ {
		d := a * 4
		rq, pp, qa, pa := int(sh.rsAt[a])*W, int(sh.lsAt[a])*W, int(sh.rsTAt[a])*W, int(sh.lsTAt[a])*W
		right, left := (d+Right*2+Adj)*W, (d+Left*2+Adj)*W
		for k := 0; k < W; k++ {
			c.rs[rq+k], c.rc[rq+k] = c.stop[right+k], c.cont[right+k]
			c.ls[pp+k], c.lc[pp+k] = c.stop[left+k], c.cont[left+k]
			c.rsT[qa+k], c.lsT[pa+k] = c.rs[rq+k], c.ls[pp+k]
		}
	}
	for span := 1; span < S; span++ {
		// IR[a][b] = edge · Σ_k Rc[a][k]·Ls[b][k]: a takes b;
		// IL[b][a] = edge · Σ_k Rs[a][k]·Lc[b][k]: b takes a;
		// k the states between a's end and b's start.
		for p := sh.prog[sh.at[3*span]:sh.at[3*span+1]]; len(p) > 0; {
			r, l, runs := int(p[0])*W, int(p[1])*W, p[2]
			p = p[3:]
			if W == 1 { // one lane: plain sums, in registers
				ir, il := 0.0, 0.0
				for ; runs > 0; runs-- {
					x, y, n := p[0], p[1], p[2]
					p = p[3:]
					s, t := dot2(c.rc[x:x+n], c.ls[y:], c.rs[x:], c.lc[y:])
					ir, il = ir+s, il+t
				}
				c.ir[r], c.il[l] = ir*c.edge[r], il*c.edge[l]
				continue
			}
			ir, il := c.ir[r:r+W], c.il[l:l+W]
			clear(ir)
			clear(il)
			for ; runs > 0; runs-- {
				x, y, n := int(p[0])*W, int(p[1])*W, int(p[2])*W
				p = p[3:]
				dot2Lanes(ir, il, c.rc[x:x+n], c.ls[y:], c.rs[x:], c.lc[y:])
			}
			mulLanes(ir, c.edge[r:])
			mulLanes(il, c.edge[l:])
		}
		// R[a][j] = Σ_c IR[a][c]·Rs[c][j], c leaving the states between
		// a's end and j; L[a][i] = Σ_c IL[a][c]·Ls[c][i], c leaving the
		// states between i and a's start.
		c.halves(sh.prog[sh.at[3*span+1]:sh.at[3*span+2]], c.ir, c.rsT, c.rs, c.rc)
		c.halves(sh.prog[sh.at[3*span+2]:sh.at[3*span+3]], c.il, c.lsT, c.ls, c.lc)
	}
	// The wall takes one root, whose halves span a whole path.
	F, D := len(sh.finals), sh.depth+1
	for k := 0; k < W; k++ {
		top := math.Inf(-1)
		for f, s := range sh.finals {
			z := 0.0
			for i := sh.rootAt[f]; i < sh.rootAt[f+1]; i++ {
				a := sh.rootArcs[i]
				z += c.root[a*W+k] * c.ls[int(sh.lRow[a])*W+k] * c.rs[int(sh.rootRs[i])*W+k]
			}
			c.finalZ[k*F+f] = z
			if z > 0 {
				top = math.Max(top, c.logScale[k*D+sh.stateDepth[s]])
			}
		}
		c.z[k], c.top[k] = 0, top
		if math.IsInf(top, -1) {
			c.top[k] = 0
			continue
		}
		for f, s := range sh.finals {
			if z := c.finalZ[k*F+f]; z > 0 {
				c.z[k] += z * math.Exp(c.logScale[k*D+sh.stateDepth[s]]-top)
			}
		}
	}
}

// halves runs the half items of program part p over the attachments
// att and the finished halves' transpose sT, filling the halves s and
// cont (and sT).
func (c *LatticeChart) halves(p []int32, att, sT, s, cont []float64) {
	W := c.lanes
	v, vl := c.acc[:W], vecLanes(W)
	for len(p) > 0 {
		o, t, d, runs := int(p[0])*W, int(p[1])*W, int(p[2])*W, p[3]
		p = p[4:]
		if W == 1 { // one lane: a plain sum, in a register
			v := 0.0
			for ; runs > 0; runs-- {
				x, y, n := p[0], p[1], p[2]
				p = p[3:]
				v += dot(att[x:x+n], sT[y:])
			}
			s[o], cont[o] = v*c.stop[d], v*c.cont[d]
			sT[t] = s[o]
			continue
		}
		clear(v)
		for ; runs > 0; runs-- {
			x, y, n := int(p[0])*W, int(p[1])*W, int(p[2])*W
			p = p[3:]
			dotLanes(v, att[x:x+n], sT[y:])
		}
		so, co, st, ct := s[o:o+W], cont[o:o+W], c.stop[d:d+W], c.cont[d:d+W]
		for k := 0; k < vl; k += lanes {
			x := vec8.Load(v[k:])
			vec8.Store(so[k:], x.Mul(vec8.Load(st[k:])))
			vec8.Store(co[k:], x.Mul(vec8.Load(ct[k:])))
		}
		if vl > 0 {
			vec8.Settle()
		}
		for k := vl; k < W; k++ {
			so[k], co[k] = v[k]*st[k], v[k]*ct[k]
		}
		copy(sT[t:t+W], so)
	}
}

// Outside runs after Inside: reverse-mode differentiation of each lane's
// log Z, as Chart.Outside, giving the posterior of every attachment, root
// and stop/cont decision over the strings of the lane's lattice. A lane
// whose Z is 0 (or NaN) keeps every posterior at 0; Outside returns
// false when there is such a lane.
func (c *LatticeChart) Outside() bool {
	ok := true
	for k := range c.z[:c.lanes] {
		ok = ok && normal(c.z[k])
	}
	c.outside(-1)
	return ok
}

// OutsideContrast is Outside for the difference, in each lane, of log Z
// and log Z_f, where Z_f is the weight of the strings whose paths end in
// final state f alone (in a neighbourhood's template, the sentence's own
// path): the posteriors AddCounts then adds are those over all strings
// less those over f's. It returns the sum over the lanes of log Z_f, and
// false, doing nothing, when some lane has no usable Z or Z_f (weights
// so extreme that Z_f is out of range beside Z).
func (c *LatticeChart) OutsideContrast(f int) (float64, bool) {
	sh := c.sh
	fi, F, D := slices.Index(sh.finals, f), len(sh.finals), sh.depth+1
	if fi < 0 {
		panic("dmv: OutsideContrast of a state that is not final")
	}
	sum := 0.0
	for k := range c.z[:c.lanes] {
		zf := c.finalZ[k*F+fi]
		if !normal(c.z[k]) || !normal(zf) {
			return math.NaN(), false
		}
		sum += math.Log(zf) + c.logScale[k*D+sh.stateDepth[f]]
	}
	c.outside(fi)
	return sum, true
}

// outside differentiates, in each lane with a usable Z, log Z less log
// Z_f for the fi-th final state f (nothing less when fi < 0).
func (c *LatticeChart) outside(fi int) {
	sh, W := c.sh, c.lanes
	S, A := sh.S, sh.A
	// Clear the adjoints: the tables are compact, every entry an item.
	nr, nl, na := sh.nR*W, sh.nL*W, sh.nAtt*W
	clear(c.brs[:nr])
	clear(c.brc[:nr])
	clear(c.brsT[:nr])
	clear(c.bls[:nl])
	clear(c.blc[:nl])
	clear(c.blsT[:nl])
	clear(c.bir[:na])
	clear(c.rootPost[:A*W])
	clear(c.stopPost[:4*A*W])
	clear(c.contPost[:4*A*W])
	// Seed: ∂/∂finalZ of log Z is e^{logScale−top}/z, of log Z_f 1/finalZ_f.
	F, D := len(sh.finals), sh.depth+1
	for k := 0; k < W; k++ {
		if !normal(c.z[k]) {
			continue
		}
		for f, s := range sh.finals {
			if c.finalZ[k*F+f] == 0 {
				continue
			}
			g := math.Exp(c.logScale[k*D+sh.stateDepth[s]]-c.top[k]) / c.z[k]
			if f == fi {
				g -= 1 / c.finalZ[k*F+f]
			}
			for i := sh.rootAt[f]; i < sh.rootAt[f+1]; i++ {
				a := sh.rootArcs[i]
				lo, ro := int(sh.lRow[a])*W+k, int(sh.rootRs[i])*W+k
				l0, r, root := c.ls[lo], c.rs[ro], c.root[a*W+k]
				c.rootPost[a*W+k] += root * l0 * r * g
				c.bls[lo] += root * r * g
				c.brs[ro] += root * l0 * g
			}
		}
	}
	gr, gl, vl := c.acc[:W], c.acc2[:W], vecLanes(W)
	for span := S - 1; span >= 1; span-- {
		// Reverse the halves, then the attachments.
		c.halvesBack(sh.prog[sh.at[3*span+1]:sh.at[3*span+2]], c.ir, c.rsT, c.rs, c.rc, c.bir, c.brsT, c.brs, c.brc)
		c.halvesBack(sh.prog[sh.at[3*span+2]:sh.at[3*span+3]], c.il, c.lsT, c.ls, c.lc, c.bil, c.blsT, c.bls, c.blc)
		for p := sh.prog[sh.at[3*span]:sh.at[3*span+1]]; len(p) > 0; {
			r, l, runs := int(p[0])*W, int(p[1])*W, p[2]
			p = p[3:]
			if W == 1 { // one lane: plain scalars
				gr, gl := c.bir[r], c.bil[l]
				c.edgePost[r], c.edgePost[l] = c.ir[r]*gr, c.il[l]*gl
				gr *= c.edge[r]
				gl *= c.edge[l]
				for ; runs > 0; runs-- {
					x, y, n := p[0], p[1], p[2]
					p = p[3:]
					axpy4(gr, gl, c.ls[y:], c.rc[x:], c.lc[y:], c.rs[x:], c.brc[x:x+n], c.bls[y:], c.brs[x:], c.blc[y:])
				}
				continue
			}
			ir, il, er, el := c.ir[r:r+W], c.il[l:l+W], c.edge[r:r+W], c.edge[l:l+W]
			bir, bil, pr, pl := c.bir[r:r+W], c.bil[l:l+W], c.edgePost[r:r+W], c.edgePost[l:l+W]
			for k := 0; k < vl; k += lanes {
				br, bl := vec8.Load(bir[k:]), vec8.Load(bil[k:])
				vec8.Store(pr[k:], vec8.Load(ir[k:]).Mul(br))
				vec8.Store(pl[k:], vec8.Load(il[k:]).Mul(bl))
				vec8.Store(gr[k:], br.Mul(vec8.Load(er[k:])))
				vec8.Store(gl[k:], bl.Mul(vec8.Load(el[k:])))
			}
			if vl > 0 {
				vec8.Settle()
			}
			for k := vl; k < W; k++ {
				pr[k], pl[k] = ir[k]*bir[k], il[k]*bil[k]
				gr[k], gl[k] = bir[k]*er[k], bil[k]*el[k]
			}
			for ; runs > 0; runs-- {
				x, y, n := int(p[0])*W, int(p[1])*W, int(p[2])*W
				p = p[3:]
				axpy4Lanes(gr, gl, c.ls[y:], c.rc[x:], c.lc[y:], c.rs[x:],
					c.brc[x:x+n], c.bls[y:], c.brs[x:], c.blc[y:])
			}
		}
	}
	for a := 0; a < A; a++ {
		d := a * 4
		for k := 0; k < W; k++ {
			rq, pp := int(sh.rsAt[a])*W+k, int(sh.lsAt[a])*W+k
			c.stopPost[(d+Right*2+Adj)*W+k] = c.rs[rq] * (c.brs[rq] + c.brsT[int(sh.rsTAt[a])*W+k])
			c.contPost[(d+Right*2+Adj)*W+k] = c.rc[rq] * c.brc[rq]
			c.stopPost[(d+Left*2+Adj)*W+k] = c.ls[pp] * (c.bls[pp] + c.blsT[int(sh.lsTAt[a])*W+k])
			c.contPost[(d+Left*2+Adj)*W+k] = c.lc[pp] * c.blc[pp]
		}
	}
}

// halvesBack reverses halves: the adjoints bs, bsT and bc of the halves
// of program part p (the stop and cont posteriors of their decisions
// taken here) flow into the adjoints bAtt of the attachments and bsT of
// the finished halves they were summed from.
func (c *LatticeChart) halvesBack(p []int32, att, sT, s, cont, bAtt, bsT, bs, bc []float64) {
	W := c.lanes
	g, vl := c.acc[:W], vecLanes(W)
	for len(p) > 0 {
		o, t, d, runs := int(p[0])*W, int(p[1])*W, int(p[2])*W, p[3]
		p = p[4:]
		if W == 1 { // one lane: plain scalars
			gs, gc := bs[o]+bsT[t], bc[o]
			c.stopPost[d] += s[o] * gs
			c.contPost[d] += cont[o] * gc
			g := gs*c.stop[d] + gc*c.cont[d]
			for ; runs > 0; runs-- {
				x, y, n := p[0], p[1], p[2]
				p = p[3:]
				axpy(g, sT[y:], bAtt[x:x+n])
				axpy(g, att[x:], bsT[y:y+n])
			}
			continue
		}
		so, co, st, ct := s[o:o+W], cont[o:o+W], c.stop[d:d+W], c.cont[d:d+W]
		gso, gco, gst := bs[o:o+W], bc[o:o+W], bsT[t:t+W]
		sp, cp := c.stopPost[d:d+W], c.contPost[d:d+W]
		for k := 0; k < vl; k += lanes {
			gs, gc := vec8.Load(gso[k:]).Add(vec8.Load(gst[k:])), vec8.Load(gco[k:])
			vec8.Store(sp[k:], vec8.Load(sp[k:]).Add(vec8.Load(so[k:]).Mul(gs)))
			vec8.Store(cp[k:], vec8.Load(cp[k:]).Add(vec8.Load(co[k:]).Mul(gc)))
			vec8.Store(g[k:], gs.Mul(vec8.Load(st[k:])).Add(gc.Mul(vec8.Load(ct[k:]))))
		}
		if vl > 0 {
			vec8.Settle()
		}
		for k := vl; k < W; k++ {
			gs, gc := gso[k]+gst[k], gco[k]
			sp[k] += so[k] * gs
			cp[k] += co[k] * gc
			g[k] = gs*st[k] + gc*ct[k]
		}
		for ; runs > 0; runs-- {
			x, y, n := int(p[0])*W, int(p[1])*W, int(p[2])*W
			p = p[3:]
			axpyLanes(g, sT[y:], bAtt[x:x+n])
			axpyLanes(g, att[x:], bsT[y:y+n])
		}
	}
}

// AddCounts adds the posteriors of the last Outside, times weight, to the
// tag-level table counts, over every lane that has them.
func (c *LatticeChart) AddCounts(counts *Params, weight float64) {
	sh, W := c.sh, c.lanes
	A, t := sh.A, counts.T
	use := c.acc[:W] // weight, or 0 for a lane without posteriors (which may hold NaN)
	for k, z := range c.z[:W] {
		use[k] = 0
		if normal(z) {
			use[k] = weight
		}
	}
	for a := 0; a < A; a++ {
		tags := c.arcTags[a*W : a*W+W]
		for k, ta := range tags {
			if u := use[k]; u != 0 {
				counts.Root[ta] += u * c.rootPost[a*W+k]
			}
		}
		for j := 0; j < 4; j++ {
			sp, cp := c.stopPost[(a*4+j)*W:(a*4+j)*W+W], c.contPost[(a*4+j)*W:(a*4+j)*W+W]
			for k, ta := range tags {
				if u := use[k]; u != 0 {
					counts.Stop[ta*4+j] += u * sp[k]
					counts.Cont[ta*4+j] += u * cp[k]
				}
			}
		}
	}
	for i := 0; i < len(sh.pairs); i += 4 {
		a, b, ro, lo := int(sh.pairs[i]), int(sh.pairs[i+1]), int(sh.pairs[i+2])*W, int(sh.pairs[i+3])*W
		ta, tb := c.arcTags[a*W:a*W+W], c.arcTags[b*W:b*W+W]
		r, l := c.edgePost[ro:ro+W], c.edgePost[lo:lo+W]
		for k, u := range use {
			if u != 0 {
				counts.Child[(ta[k]*2+Right)*t+tb[k]] += u * r[k]
				counts.Child[(tb[k]*2+Left)*t+ta[k]] += u * l[k]
			}
		}
	}
}

// The loops over lanes: vectors of len(acc) lanes, blocks of items one
// after another, each with its lanes (a block's length is a multiple of
// the lanes and bounds the other operands). One lane is a plain dot
// product or axpy. Where this build's vec8 is an AVX-512 register the
// machine has (laneVec), each run of eight lanes goes through one vector
// for the whole loop over the blocks, and lanes beyond the last eight
// through the plain loop: every lane gets the same multiplies and adds,
// in the same order, as in the plain loop (no fused multiply-add), so the
// same bits.

// laneVec says whether the lane loops run eight lanes to a vector (a
// variable for tests).
var laneVec = vec8.Native() != ""

// vecLanes is how many of w lanes the lane loops run in vectors.
func vecLanes(w int) int {
	if !laneVec {
		return 0
	}
	return w &^ (lanes - 1)
}

// dotLanes adds Σ_i a[i·W+k]·b[i·W+k] to acc[k] for every lane k.
func dotLanes(acc, a, b []float64) {
	if len(acc) == 1 {
		acc[0] += dot(a, b)
		return
	}
	w, v := len(acc), vecLanes(len(acc))
	b = b[:len(a)]
	for k := 0; k < v; k += lanes {
		s := vec8.Load(acc[k:])
		for i := k; i < len(a); i += w {
			s = s.Add(vec8.Load(a[i:]).Mul(vec8.Load(b[i:])))
		}
		vec8.Store(acc[k:], s)
	}
	if v > 0 {
		vec8.Settle()
	}
	for i := 0; v < w && i < len(a); i += w {
		x, y := a[i+v:i+w], b[i+v:i+w]
		for k := range x {
			acc[v+k] += x[k] * y[k]
		}
	}
}

// dot2Lanes is dotLanes(acc1, a, b) and dotLanes(acc2, c, d) in one loop.
func dot2Lanes(acc1, acc2, a, b, c, d []float64) {
	if len(acc1) == 1 {
		s, t := dot2(a, b, c, d)
		acc1[0] += s
		acc2[0] += t
		return
	}
	w, v := len(acc1), vecLanes(len(acc1))
	acc2 = acc2[:w]
	b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
	for k := 0; k < v; k += lanes {
		s, t := vec8.Load(acc1[k:]), vec8.Load(acc2[k:])
		for i := k; i < len(a); i += w {
			s = s.Add(vec8.Load(a[i:]).Mul(vec8.Load(b[i:])))
			t = t.Add(vec8.Load(c[i:]).Mul(vec8.Load(d[i:])))
		}
		vec8.Store(acc1[k:], s)
		vec8.Store(acc2[k:], t)
	}
	if v > 0 {
		vec8.Settle()
	}
	for i := 0; v < w && i < len(a); i += w {
		x, y, u, z := a[i+v:i+w], b[i+v:i+w], c[i+v:i+w], d[i+v:i+w]
		for k := range x {
			acc1[v+k] += x[k] * y[k]
			acc2[v+k] += u[k] * z[k]
		}
	}
}

// mulLanes multiplies acc by the lanes of f.
func mulLanes(acc, f []float64) {
	f = f[:len(acc)]
	for k := range acc {
		acc[k] *= f[k]
	}
}

// axpyLanes adds g[k]·x[i·W+k] to y[i·W+k] for every lane k.
func axpyLanes(g, x, y []float64) {
	if len(g) == 1 {
		axpy(g[0], x, y)
		return
	}
	w, v := len(g), vecLanes(len(g))
	x = x[:len(y)]
	for k := 0; k < v; k += lanes {
		f := vec8.Load(g[k:])
		for i := k; i < len(y); i += w {
			vec8.Store(y[i:], vec8.Load(y[i:]).Add(f.Mul(vec8.Load(x[i:]))))
		}
	}
	if v > 0 {
		vec8.Settle()
	}
	for i := 0; v < w && i < len(y); i += w {
		xs, ys := x[i+v:i+w], y[i+v:i+w]
		for k, f := range g[v:] {
			ys[k] += f * xs[k]
		}
	}
}

// axpy4Lanes is the reverse of dot2Lanes twice over: y1 += f·x1,
// y2 += f·x2, y3 += g·x3, y4 += g·x4, lane by lane.
func axpy4Lanes(f, g, x1, x2, x3, x4, y1, y2, y3, y4 []float64) {
	if len(f) == 1 {
		axpy4(f[0], g[0], x1, x2, x3, x4, y1, y2, y3, y4)
		return
	}
	w, v, n := len(f), vecLanes(len(f)), len(y1)
	g = g[:w]
	x1, x2, x3, x4, y2, y3, y4 = x1[:n], x2[:n], x3[:n], x4[:n], y2[:n], y3[:n], y4[:n]
	for k := 0; k < v; k += lanes {
		fk, gk := vec8.Load(f[k:]), vec8.Load(g[k:])
		for i := k; i < n; i += w {
			vec8.Store(y1[i:], vec8.Load(y1[i:]).Add(fk.Mul(vec8.Load(x1[i:]))))
			vec8.Store(y2[i:], vec8.Load(y2[i:]).Add(fk.Mul(vec8.Load(x2[i:]))))
			vec8.Store(y3[i:], vec8.Load(y3[i:]).Add(gk.Mul(vec8.Load(x3[i:]))))
			vec8.Store(y4[i:], vec8.Load(y4[i:]).Add(gk.Mul(vec8.Load(x4[i:]))))
		}
	}
	if v > 0 {
		vec8.Settle()
	}
	for i := 0; v < w && i < n; i += w {
		a1, a2, a3, a4 := x1[i+v:i+w], x2[i+v:i+w], x3[i+v:i+w], x4[i+v:i+w]
		b1, b2, b3, b4 := y1[i+v:i+w], y2[i+v:i+w], y3[i+v:i+w], y4[i+v:i+w]
		for k, fk := range f[v:] {
			gk := g[v+k]
			b1[k] += fk * a1[k]
			b2[k] += fk * a2[k]
			b3[k] += gk * a3[k]
			b4[k] += gk * a4[k]
		}
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
