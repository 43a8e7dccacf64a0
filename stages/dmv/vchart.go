package dmv

import "math"

// vchart is the chart of a DMV with valence settings (valence.go): the
// split-head program of chart.go with one more index on a head's open
// halves, the number s of children it has on that side so far (nearest
// first), capped at States() − 1. A finished half has taken its stop
// decision and needs no such index, so the program is O(n³·S). The soft
// E-step runs in the space of probabilities, scaled as the plain DMV's
// chart is (vlinear.go); Viterbi, and a sentence no scaling keeps in
// range, in log space, which needs no scaling at the price of an exp per
// way an item is built. Outside works in the space of marginals (each
// item's share of Z, at most 1).
//
// Items, for a head h (left halves mirror them):
//
//	r[h][j][s]   h's right half over h..j with s children, before its stop
//	rs[h][j]     the same half finished: ⊕_s r[h][j][s]·stop(h, right, s)
//	ir[h][c][s′] h's right half up to and including its new child c, which
//	             it took with s children already: s′ = next(s)
//
// A child taken at count s costs cont(h, dir, dv(s))·child(h, dir, cv(s), c).
type vchart struct {
	n, k int // sentence length, states
	val  Valence

	// Log potentials: root[c]; edge[(cv·n + h)·n + c]; stop and cont
	// [(h·2 + dir)·val.Stop + dv].
	root, edge, stop, cont []float64

	r, l   []float64 // [(h·n + j)·k + s]
	ir, il []float64 // [(h·n + c)·k + s′]
	rs, ls []float64 // [h·n + j]
	logZ   float64
	zLog   float64 // log Z of the log-space items (less logScale)

	// The soft E-step's linear potentials (vlinear.go), laid out as the
	// log ones, and the factor their scaling took out of Z; linear says
	// the items hold probabilities (scaled Z in z), not logs.
	proot, pedge, pstop, pcont []float64
	contShift                  []float64 // linearize's scratch
	logScale, z                float64
	linear                     bool

	// The items' marginals (outside): their share of Z.
	gr, gl, gir, gil, grs, gls []float64

	// inside's scratch: the log weights of an item's ways, and where each
	// way splits (for the back-pointers).
	terms, terms2 []float64
	ways          []int32
	attach        []float64 // attachmentPosteriors' sums

	// Posteriors (probabilities), filled by outside.
	rootPost, edgePost, stopPost, contPost []float64

	// Viterbi back-pointers: of ir, the count before and the split
	// (k·states + s); of r, the child; of rs, the count stopped at.
	bpIR, bpIL, bpR, bpL, bpRs, bpLs []int32
	bestRoot                         int
}

func (c *vchart) grow(n int, v Valence) {
	k := v.States()
	c.n, c.k, c.val = n, k, v
	need := func(s []float64, m int) []float64 {
		if cap(s) < m {
			return make([]float64, m)
		}
		return s[:m]
	}
	needI := func(s []int32, m int) []int32 {
		if cap(s) < m {
			return make([]int32, m)
		}
		return s[:m]
	}
	sq, cube := n*n, n*n*k
	c.root, c.rootPost = need(c.root, n), need(c.rootPost, n)
	c.edge, c.edgePost = need(c.edge, v.Child*sq), need(c.edgePost, v.Child*sq)
	c.stop, c.cont = need(c.stop, 2*n*v.Stop), need(c.cont, 2*n*v.Stop)
	c.stopPost, c.contPost = need(c.stopPost, 2*n*v.Stop), need(c.contPost, 2*n*v.Stop)
	c.proot, c.pedge = need(c.proot, n), need(c.pedge, v.Child*sq)
	c.pstop, c.pcont, c.contShift = need(c.pstop, 2*n*v.Stop), need(c.pcont, 2*n*v.Stop), need(c.contShift, 2*n)
	c.r, c.l, c.ir, c.il = need(c.r, cube), need(c.l, cube), need(c.ir, cube), need(c.il, cube)
	c.gr, c.gl, c.gir, c.gil = need(c.gr, cube), need(c.gl, cube), need(c.gir, cube), need(c.gil, cube)
	c.rs, c.ls, c.grs, c.gls = need(c.rs, sq), need(c.ls, sq), need(c.grs, sq), need(c.gls, sq)
	c.bpIR, c.bpIL, c.bpR, c.bpL = needI(c.bpIR, cube), needI(c.bpIL, cube), needI(c.bpR, cube), needI(c.bpL, cube)
	c.bpRs, c.bpLs = needI(c.bpRs, sq), needI(c.bpLs, sq)
}

// dv, cv and next are the decision valence, the child valence and the
// count after one more child, of a head with s children so far.
func (c *vchart) dv(s int) int   { return min(s, c.val.Stop-1) }
func (c *vchart) cv(s int) int   { return min(s, c.val.Child-1) }
func (c *vchart) next(s int) int { return min(s+1, c.k-1) }

// load sets the potentials of tags under w (whose V is the settings),
// each edge also multiplied by dist[|h−c|] when dist is not nil: the
// linear ones (vlinear.go), from which the log ones are taken when a
// program in log space needs them (logPotentials).
func (c *vchart) load(tags []int, w *Params, dist []float64) {
	n := len(tags)
	c.grow(n, w.V)
	ds := w.V.Stop
	c.logScale = 0
	for h, th := range tags {
		c.proot[h] = w.Root[th]
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < ds; v++ {
				c.pstop[(h*2+dir)*ds+v] = w.Stop[w.DecisionAt(th, dir, v)]
				c.pcont[(h*2+dir)*ds+v] = w.Cont[w.DecisionAt(th, dir, v)]
			}
		}
		for cv := 0; cv < w.V.Child; cv++ {
			row := c.pedge[(cv*n+h)*n : (cv*n+h)*n+n]
			for d, td := range tags {
				if d == h {
					row[d] = 0
					continue
				}
				row[d] = w.Child[w.ChildAt(th, side(h, d), cv, td)]
				if dist != nil {
					row[d] *= dist[abs(h-d)]
				}
			}
		}
	}
}

// takePlain loads the plain DMV chart's potentials of an n-word sentence
// as they are after its scaling (whose factor, e^{logScale}, stays out of
// Z): the plain DMV's settings, or with a second table of edges (a later
// child's) the extended valence grammar's. The stops and conts are laid
// out as the plain chart's ((h·2 + dir)·2 + valence), and each child
// valence's edges as its (h·n + d).
func (c *vchart) takePlain(n int, root []float64, edges [][]float64, stop, cont []float64, logScale float64) {
	v := DMVValence
	if len(edges) == 2 {
		v = twoChildValences
	}
	c.grow(n, v)
	copy(c.proot, root[:n])
	for k, e := range edges {
		copy(c.pedge[k*n*n:], e[:n*n])
	}
	copy(c.pstop, stop[:4*n])
	copy(c.pcont, cont[:4*n])
	c.logScale = logScale
}

// factor multiplies the loaded attachments by factors of their own,
// edge[h·n+d] and root[d] (Chart.LoadFactored): every child valence's
// copy of an edge takes the edge's factor.
func (c *vchart) factor(edge, root []float64) {
	n := len(root)
	for d, f := range root {
		c.proot[d] *= f
	}
	for cv := 0; cv < c.val.Child; cv++ {
		for k, f := range edge {
			if k/n != k%n {
				c.pedge[cv*n*n+k] *= f
			}
		}
	}
}

// logPotentials takes the log potentials from the linear ones (scaled by
// e^{−logScale}, which the programs in log space add back to log Z).
func (c *vchart) logPotentials() {
	n, ds := c.n, c.val.Stop
	for i, p := range c.proot[:n] {
		c.root[i] = math.Log(p)
	}
	for i, p := range c.pedge[:c.val.Child*n*n] {
		c.edge[i] = math.Log(p)
	}
	for i := range c.pstop[:2*n*ds] {
		c.stop[i], c.cont[i] = math.Log(c.pstop[i]), math.Log(c.pcont[i])
	}
}

// fold is the inside value of one item from the log weights of its ways
// of being built, terms: their log-sum (one exp per term), or under
// viterbi their maximum and the first index that attains it (−1: none).
func fold(terms []float64, viterbi bool) (float64, int) {
	best, arg := math.Inf(-1), -1
	for i, t := range terms {
		if t > best {
			best, arg = t, i
		}
	}
	if viterbi || arg < 0 || math.IsInf(best, 1) || math.IsNaN(best) {
		return best, arg
	}
	sum := 0.0
	for _, t := range terms {
		sum += math.Exp(t - best)
	}
	return best + math.Log(sum), arg
}

// inside returns log Z (the best tree's log weight under viterbi, whose
// back-pointers it keeps), −Inf when no tree has weight: the soft program
// in the space of probabilities where it can (vlinear.go), Viterbi's and
// the rest in log space.
func (c *vchart) inside(viterbi bool) float64 {
	if viterbi {
		return c.insideLog(true)
	}
	return c.insideSoft()
}

// insideLog fills the chart by width in log space, as Chart.inside does;
// with viterbi it takes maxima and keeps back-pointers.
func (c *vchart) insideLog(viterbi bool) float64 {
	c.linear = false
	c.logPotentials()
	n, k, ds := c.n, c.k, c.val.Stop
	terms, ways := c.terms[:0], c.ways[:0]
	for h := 0; h < n; h++ {
		for s := 0; s < k; s++ {
			c.r[(h*n+h)*k+s], c.l[(h*n+h)*k+s] = math.Inf(-1), math.Inf(-1)
		}
		c.r[(h*n+h)*k], c.l[(h*n+h)*k] = 0, 0
		c.rs[h*n+h] = c.stop[(h*2+Right)*ds+c.dv(0)]
		c.ls[h*n+h] = c.stop[(h*2+Left)*ds+c.dv(0)]
		c.bpRs[h*n+h], c.bpLs[h*n+h] = 0, 0
	}
	for w := 1; w < n; w++ {
		for h := 0; h+w < n; h++ {
			d := h + w
			for sp := 0; sp < k; sp++ {
				// h takes d on its right, or d takes h on its left, with s
				// children so far (next(s) = sp), split at m.
				terms, ways = terms[:0], ways[:0]
				terms2 := c.terms2[:0]
				for s := 0; s < k; s++ {
					if c.next(s) != sp {
						continue
					}
					base := c.cont[(h*2+Right)*ds+c.dv(s)] + c.edge[(c.cv(s)*n+h)*n+d]
					base2 := c.cont[(d*2+Left)*ds+c.dv(s)] + c.edge[(c.cv(s)*n+d)*n+h]
					for m := h; m < d; m++ {
						terms = append(terms, base+c.r[(h*n+m)*k+s]+c.ls[d*n+m+1])
						terms2 = append(terms2, base2+c.l[(d*n+m+1)*k+s]+c.rs[h*n+m])
						ways = append(ways, int32(m*k+s))
					}
				}
				at, at2 := (h*n+d)*k+sp, (d*n+h)*k+sp
				var i int
				if c.ir[at], i = fold(terms, viterbi); i >= 0 {
					c.bpIR[at] = ways[i]
				}
				if c.il[at2], i = fold(terms2, viterbi); i >= 0 {
					c.bpIL[at2] = ways[i]
				}
				c.terms2 = terms2
			}
		}
		for h := 0; h+w < n; h++ {
			j := h + w
			var i int
			for s := 0; s < k; s++ {
				// h's right half over h..j, its farthest child d.
				terms = terms[:0]
				for d := h + 1; d <= j; d++ {
					terms = append(terms, c.ir[(h*n+d)*k+s]+c.rs[d*n+j])
				}
				at := (h*n+j)*k + s
				if c.r[at], i = fold(terms, viterbi); i >= 0 {
					c.bpR[at] = int32(h + 1 + i)
				}
				// j's left half over h..j, its farthest child d.
				terms = terms[:0]
				for d := h; d < j; d++ {
					terms = append(terms, c.il[(j*n+d)*k+s]+c.ls[d*n+h])
				}
				at = (j*n+h)*k + s
				if c.l[at], i = fold(terms, viterbi); i >= 0 {
					c.bpL[at] = int32(h + i)
				}
			}
			terms = terms[:0]
			for s := 0; s < k; s++ {
				terms = append(terms, c.r[(h*n+j)*k+s]+c.stop[(h*2+Right)*ds+c.dv(s)])
			}
			if c.rs[h*n+j], i = fold(terms, viterbi); i >= 0 {
				c.bpRs[h*n+j] = int32(i)
			}
			terms = terms[:0]
			for s := 0; s < k; s++ {
				terms = append(terms, c.l[(j*n+h)*k+s]+c.stop[(j*2+Left)*ds+c.dv(s)])
			}
			if c.ls[j*n+h], i = fold(terms, viterbi); i >= 0 {
				c.bpLs[j*n+h] = int32(i)
			}
		}
	}
	terms = terms[:0]
	for r := 0; r < n; r++ {
		terms = append(terms, c.root[r]+c.ls[r*n]+c.rs[r*n+n-1])
	}
	c.zLog, c.bestRoot = fold(terms, viterbi)
	c.logZ = c.zLog + c.logScale
	c.terms, c.ways = terms, ways
	return c.logZ
}

// outside runs the chart backwards (chart.go's Outside) in the space of
// marginals: every item's share of Z, γ(X) = α(X)·β(X)/Z, flows to the
// items it is built from in proportion to each way's share of its inside
// weight, and the posteriors of the potentials are the shares of the ways
// that use them. It returns false when Z is 0 or not a number.
func (c *vchart) outside() bool {
	if c.linear {
		return c.outsideLinear()
	}
	return c.outsideLog()
}

// outsideLog is outside over log-space items: one exp per way, no
// logarithm.
func (c *vchart) outsideLog() bool {
	n, k, ds := c.n, c.k, c.val.Stop
	c.clearOutside()
	z := c.zLog
	if math.IsInf(z, 0) || math.IsNaN(z) {
		return false
	}
	for r := 0; r < n; r++ {
		p := math.Exp(c.root[r] + c.ls[r*n] + c.rs[r*n+n-1] - z)
		c.rootPost[r] = p
		c.gls[r*n] += p
		c.grs[r*n+n-1] += p
	}
	for w := n - 1; w >= 1; w-- {
		for h := 0; h+w < n; h++ {
			j := h + w
			// Right half of h over h..j: its stop, its count, its farthest child.
			if g := c.grs[h*n+j]; g != 0 {
				for s := 0; s < k; s++ {
					st := (h*2+Right)*ds + c.dv(s)
					share := g * math.Exp(c.r[(h*n+j)*k+s]+c.stop[st]-c.rs[h*n+j])
					c.stopPost[st] += share
					c.gr[(h*n+j)*k+s] += share
				}
			}
			for s := 0; s < k; s++ {
				at := (h*n+j)*k + s
				g := c.gr[at]
				if g == 0 {
					continue
				}
				for d := h + 1; d <= j; d++ {
					share := g * math.Exp(c.ir[(h*n+d)*k+s]+c.rs[d*n+j]-c.r[at])
					c.gir[(h*n+d)*k+s] += share
					c.grs[d*n+j] += share
				}
			}
			// Left half of j over h..j.
			if g := c.gls[j*n+h]; g != 0 {
				for s := 0; s < k; s++ {
					st := (j*2+Left)*ds + c.dv(s)
					share := g * math.Exp(c.l[(j*n+h)*k+s]+c.stop[st]-c.ls[j*n+h])
					c.stopPost[st] += share
					c.gl[(j*n+h)*k+s] += share
				}
			}
			for s := 0; s < k; s++ {
				at := (j*n+h)*k + s
				g := c.gl[at]
				if g == 0 {
					continue
				}
				for d := h; d < j; d++ {
					share := g * math.Exp(c.il[(j*n+d)*k+s]+c.ls[d*n+h]-c.l[at])
					c.gil[(j*n+d)*k+s] += share
					c.gls[d*n+h] += share
				}
			}
		}
		for h := 0; h+w < n; h++ {
			d := h + w
			for s := 0; s < k; s++ {
				sp := c.next(s)
				// h took d on its right with s children so far.
				if g := c.gir[(h*n+d)*k+sp]; g != 0 {
					ct := (h*2+Right)*ds + c.dv(s)
					base := c.cont[ct] + c.edge[(c.cv(s)*n+h)*n+d] - c.ir[(h*n+d)*k+sp]
					post := 0.0
					for m := h; m < d; m++ {
						share := g * math.Exp(base+c.r[(h*n+m)*k+s]+c.ls[d*n+m+1])
						post += share
						c.gr[(h*n+m)*k+s] += share
						c.gls[d*n+m+1] += share
					}
					c.contPost[ct] += post
					c.edgePost[(c.cv(s)*n+h)*n+d] += post
				}
				// d took h on its left with s children so far.
				if g := c.gil[(d*n+h)*k+sp]; g != 0 {
					ct := (d*2+Left)*ds + c.dv(s)
					base := c.cont[ct] + c.edge[(c.cv(s)*n+d)*n+h] - c.il[(d*n+h)*k+sp]
					post := 0.0
					for m := h; m < d; m++ {
						share := g * math.Exp(base+c.l[(d*n+m+1)*k+s]+c.rs[h*n+m])
						post += share
						c.gl[(d*n+m+1)*k+s] += share
						c.grs[h*n+m] += share
					}
					c.contPost[ct] += post
					c.edgePost[(c.cv(s)*n+d)*n+h] += post
				}
			}
		}
	}
	return c.endOutside()
}

// clearOutside zeroes what outside fills.
func (c *vchart) clearOutside() {
	for _, t := range [...][]float64{c.gr, c.gl, c.gir, c.gil, c.grs, c.gls, c.rootPost, c.edgePost, c.stopPost, c.contPost} {
		clear(t)
	}
}

// endOutside adds the first decisions, the stops of empty halves, and
// says whether the posteriors are numbers.
func (c *vchart) endOutside() bool {
	n, ds := c.n, c.val.Stop
	for h := 0; h < n; h++ {
		c.stopPost[(h*2+Right)*ds+c.dv(0)] += c.grs[h*n+h]
		c.stopPost[(h*2+Left)*ds+c.dv(0)] += c.gls[h*n+h]
	}
	sum := 0.0
	for _, p := range c.stopPost {
		sum += p
	}
	return !math.IsNaN(sum) && !math.IsInf(sum, 0)
}

// addCounts adds the posteriors of the last outside, times weight, to
// counts (tags as loaded).
func (c *vchart) addCounts(tags []int, counts *Params, weight float64) {
	n, ds := c.n, c.val.Stop
	for h, th := range tags {
		counts.Root[th] += weight * c.rootPost[h]
		for cv := 0; cv < c.val.Child; cv++ {
			row := c.edgePost[(cv*n+h)*n : (cv*n+h)*n+n]
			for d, td := range tags {
				if d != h {
					counts.Child[counts.ChildAt(th, side(h, d), cv, td)] += weight * row[d]
				}
			}
		}
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < ds; v++ {
				i := counts.DecisionAt(th, dir, v)
				counts.Stop[i] += weight * c.stopPost[(h*2+dir)*ds+v]
				counts.Cont[i] += weight * c.contPost[(h*2+dir)*ds+v]
			}
		}
	}
}

// edgePosterior is the posterior that d attaches to h, over every child
// valence.
func (c *vchart) edgePosterior(h, d int) float64 {
	p := 0.0
	for cv := 0; cv < c.val.Child; cv++ {
		p += c.edgePost[(cv*c.n+h)*c.n+d]
	}
	return p
}

// attachmentPosteriors are the posteriors of every attachment, summed
// over the child valences: edge[h·n+d], and root[d].
func (c *vchart) attachmentPosteriors() (edge, root []float64) {
	n := c.n
	if cap(c.attach) < n*n {
		c.attach = make([]float64, n*n)
	}
	edge = c.attach[:n*n]
	copy(edge, c.edgePost[:n*n])
	for cv := 1; cv < c.val.Child; cv++ {
		for k, p := range c.edgePost[cv*n*n : (cv+1)*n*n] {
			edge[k] += p
		}
	}
	return edge, c.rootPost[:n]
}

// viterbi writes the best tree to heads (1-based) and returns its log
// weight (−Inf when no tree has weight, heads then untouched).
func (c *vchart) viterbi(heads []int) float64 {
	z := c.insideLog(true)
	if math.IsInf(z, -1) || math.IsNaN(z) {
		return z
	}
	r := c.bestRoot
	heads[r] = 0
	c.backLeft(heads, r, 0)
	c.backRight(heads, r, c.n-1)
	return z
}

// backRight recovers h's finished right half over h..j.
func (c *vchart) backRight(heads []int, h, j int) {
	n, k := c.n, c.k
	s := int(c.bpRs[h*n+j])
	for j > h {
		d := int(c.bpR[(h*n+j)*k+s]) // h's farthest right child
		heads[d] = h + 1
		bp := int(c.bpIR[(h*n+d)*k+s])
		m := bp / k
		c.backLeft(heads, d, m+1)
		c.backRight(heads, d, j)
		j, s = m, bp%k // h's nearer children, within h..m
	}
}

// backLeft recovers h's finished left half over i..h.
func (c *vchart) backLeft(heads []int, h, i int) {
	n, k := c.n, c.k
	s := int(c.bpLs[h*n+i])
	for i < h {
		d := int(c.bpL[(h*n+i)*k+s]) // h's farthest left child
		heads[d] = h + 1
		bp := int(c.bpIL[(h*n+d)*k+s])
		m := bp / k
		c.backRight(heads, d, m)
		c.backLeft(heads, d, i)
		i, s = m+1, bp%k
	}
}
