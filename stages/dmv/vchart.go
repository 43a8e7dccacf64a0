package dmv

import "math"

// vchart is the chart of a DMV with valence settings (valence.go): the
// split-head program of chart.go with one more index on a head's open
// halves, the number s of children it has on that side so far (nearest
// first), capped at States() − 1. A finished half has taken its stop
// decision and needs no such index, so the program is O(n³·S). It works
// in log space: no scaling to keep Z in range, at the price of a log and
// an exp per step, which the plain DMV (Chart's own tables) does not pay.
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

	// Log adjoints of the items, each ∂Z/∂item divided by Z.
	br, bl, bir, bil, brs, bls []float64

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
	c.r, c.l, c.ir, c.il = need(c.r, cube), need(c.l, cube), need(c.ir, cube), need(c.il, cube)
	c.br, c.bl, c.bir, c.bil = need(c.br, cube), need(c.bl, cube), need(c.bir, cube), need(c.bil, cube)
	c.rs, c.ls, c.brs, c.bls = need(c.rs, sq), need(c.ls, sq), need(c.brs, sq), need(c.bls, sq)
	c.bpIR, c.bpIL, c.bpR, c.bpL = needI(c.bpIR, cube), needI(c.bpIL, cube), needI(c.bpR, cube), needI(c.bpL, cube)
	c.bpRs, c.bpLs = needI(c.bpRs, sq), needI(c.bpLs, sq)
}

// dv, cv and next are the decision valence, the child valence and the
// count after one more child, of a head with s children so far.
func (c *vchart) dv(s int) int   { return min(s, c.val.Stop-1) }
func (c *vchart) cv(s int) int   { return min(s, c.val.Child-1) }
func (c *vchart) next(s int) int { return min(s+1, c.k-1) }

// load sets the log potentials of tags under w (whose V is the
// settings), each edge also multiplied by dist[|h−c|] when dist is not nil.
func (c *vchart) load(tags []int, w *Params, dist []float64) {
	n := len(tags)
	c.grow(n, w.V)
	ds := w.V.Stop
	for h, th := range tags {
		c.root[h] = math.Log(w.Root[th])
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < ds; v++ {
				c.stop[(h*2+dir)*ds+v] = math.Log(w.Stop[w.DecisionAt(th, dir, v)])
				c.cont[(h*2+dir)*ds+v] = math.Log(w.Cont[w.DecisionAt(th, dir, v)])
			}
		}
		for cv := 0; cv < w.V.Child; cv++ {
			row := c.edge[(cv*n+h)*n : (cv*n+h)*n+n]
			for d, td := range tags {
				if d == h {
					row[d] = math.Inf(-1)
					continue
				}
				row[d] = math.Log(w.Child[w.ChildAt(th, side(h, d), cv, td)])
				if dist != nil {
					row[d] += math.Log(dist[abs(h-d)])
				}
			}
		}
	}
}

// logAdd is log(e^a + e^b).
func logAdd(a, b float64) float64 {
	switch {
	case math.IsInf(a, -1):
		return b
	case math.IsInf(b, -1):
		return a
	case a > b:
		return a + math.Log1p(math.Exp(b-a))
	}
	return b + math.Log1p(math.Exp(a-b))
}

// better folds x into the running value of an inside item: log-sum, or
// maximum under viterbi (true when x is the new maximum).
func better(acc *float64, x float64, viterbi bool) bool {
	if !viterbi {
		*acc = logAdd(*acc, x)
		return false
	}
	if x > *acc {
		*acc = x
		return true
	}
	return false
}

// inside fills the chart by width, as Chart.inside does; with viterbi it
// takes maxima and keeps back-pointers. It returns log Z (the best tree's
// log weight under viterbi), −Inf when no tree has weight.
func (c *vchart) inside(viterbi bool) float64 {
	n, k := c.n, c.k
	ninf := math.Inf(-1)
	for _, t := range [...][]float64{c.r, c.l, c.ir, c.il} {
		for i := range t {
			t[i] = ninf
		}
	}
	ds := c.val.Stop
	for h := 0; h < n; h++ {
		c.r[(h*n+h)*k], c.l[(h*n+h)*k] = 0, 0
		c.rs[h*n+h] = c.stop[(h*2+Right)*ds+c.dv(0)]
		c.ls[h*n+h] = c.stop[(h*2+Left)*ds+c.dv(0)]
		c.bpRs[h*n+h], c.bpLs[h*n+h] = 0, 0
	}
	for w := 1; w < n; w++ {
		for h := 0; h+w < n; h++ {
			d := h + w
			for s := 0; s < k; s++ {
				// h takes d on its right with s children so far.
				base := c.cont[(h*2+Right)*ds+c.dv(s)] + c.edge[(c.cv(s)*n+h)*n+d]
				at := (h*n+d)*k + c.next(s)
				for m := h; m < d; m++ {
					if better(&c.ir[at], base+c.r[(h*n+m)*k+s]+c.ls[d*n+m+1], viterbi) {
						c.bpIR[at] = int32(m*k + s)
					}
				}
				// d takes h on its left with s children so far.
				base = c.cont[(d*2+Left)*ds+c.dv(s)] + c.edge[(c.cv(s)*n+d)*n+h]
				at = (d*n+h)*k + c.next(s)
				for m := h; m < d; m++ {
					if better(&c.il[at], base+c.l[(d*n+m+1)*k+s]+c.rs[h*n+m], viterbi) {
						c.bpIL[at] = int32(m*k + s)
					}
				}
			}
		}
		for h := 0; h+w < n; h++ {
			j := h + w
			rs, ls := ninf, ninf
			for s := 0; s < k; s++ {
				// h's right half over h..j, its farthest child d.
				at := (h*n+j)*k + s
				for d := h + 1; d <= j; d++ {
					if better(&c.r[at], c.ir[(h*n+d)*k+s]+c.rs[d*n+j], viterbi) {
						c.bpR[at] = int32(d)
					}
				}
				if better(&rs, c.r[at]+c.stop[(h*2+Right)*ds+c.dv(s)], viterbi) {
					c.bpRs[h*n+j] = int32(s)
				}
				// j's left half over h..j, its farthest child d.
				at = (j*n+h)*k + s
				for d := h; d < j; d++ {
					if better(&c.l[at], c.il[(j*n+d)*k+s]+c.ls[d*n+h], viterbi) {
						c.bpL[at] = int32(d)
					}
				}
				if better(&ls, c.l[at]+c.stop[(j*2+Left)*ds+c.dv(s)], viterbi) {
					c.bpLs[j*n+h] = int32(s)
				}
			}
			c.rs[h*n+j], c.ls[j*n+h] = rs, ls
		}
	}
	z := ninf
	c.bestRoot = -1
	for r := 0; r < n; r++ {
		if better(&z, c.root[r]+c.ls[r*n]+c.rs[r*n+n-1], viterbi) || c.bestRoot < 0 {
			c.bestRoot = r
		}
	}
	c.logZ = z
	return z
}

// outside differentiates log Z with respect to every item (chart.go's
// Outside, in log space) and fills the posteriors. It returns false when
// Z is 0 or not a number.
func (c *vchart) outside() bool {
	n, k, ds := c.n, c.k, c.val.Stop
	ninf := math.Inf(-1)
	for _, t := range [...][]float64{c.br, c.bl, c.bir, c.bil, c.brs, c.bls} {
		for i := range t {
			t[i] = ninf
		}
	}
	for _, t := range [...][]float64{c.rootPost, c.edgePost, c.stopPost, c.contPost} {
		clear(t)
	}
	z := c.logZ
	if math.IsInf(z, 0) || math.IsNaN(z) {
		return false
	}
	for r := 0; r < n; r++ {
		c.rootPost[r] = math.Exp(c.root[r] + c.ls[r*n] + c.rs[r*n+n-1] - z)
		c.bls[r*n] = logAdd(c.bls[r*n], c.root[r]+c.rs[r*n+n-1]-z)
		c.brs[r*n+n-1] = logAdd(c.brs[r*n+n-1], c.root[r]+c.ls[r*n]-z)
	}
	for w := n - 1; w >= 1; w-- {
		for h := 0; h+w < n; h++ {
			j := h + w
			// Right half of h over h..j.
			if g := c.brs[h*n+j]; !math.IsInf(g, -1) {
				for s := 0; s < k; s++ {
					st := c.stop[(h*2+Right)*ds+c.dv(s)]
					at := (h*n+j)*k + s
					c.stopPost[(h*2+Right)*ds+c.dv(s)] += math.Exp(g + c.r[at] + st)
					c.br[at] = logAdd(c.br[at], g+st)
				}
			}
			for s := 0; s < k; s++ {
				g := c.br[(h*n+j)*k+s]
				if math.IsInf(g, -1) {
					continue
				}
				for d := h + 1; d <= j; d++ {
					at := (h*n+d)*k + s
					c.bir[at] = logAdd(c.bir[at], g+c.rs[d*n+j])
					c.brs[d*n+j] = logAdd(c.brs[d*n+j], g+c.ir[at])
				}
			}
			// Left half of j over h..j.
			if g := c.bls[j*n+h]; !math.IsInf(g, -1) {
				for s := 0; s < k; s++ {
					st := c.stop[(j*2+Left)*ds+c.dv(s)]
					at := (j*n+h)*k + s
					c.stopPost[(j*2+Left)*ds+c.dv(s)] += math.Exp(g + c.l[at] + st)
					c.bl[at] = logAdd(c.bl[at], g+st)
				}
			}
			for s := 0; s < k; s++ {
				g := c.bl[(j*n+h)*k+s]
				if math.IsInf(g, -1) {
					continue
				}
				for d := h; d < j; d++ {
					at := (j*n+d)*k + s
					c.bil[at] = logAdd(c.bil[at], g+c.ls[d*n+h])
					c.bls[d*n+h] = logAdd(c.bls[d*n+h], g+c.il[at])
				}
			}
		}
		for h := 0; h+w < n; h++ {
			d := h + w
			for s := 0; s < k; s++ {
				// h took d on its right with s children so far.
				if g := c.bir[(h*n+d)*k+c.next(s)]; !math.IsInf(g, -1) {
					base := g + c.cont[(h*2+Right)*ds+c.dv(s)] + c.edge[(c.cv(s)*n+h)*n+d]
					post := 0.0
					for m := h; m < d; m++ {
						in, ls := c.r[(h*n+m)*k+s], c.ls[d*n+m+1]
						post += math.Exp(base + in + ls)
						c.br[(h*n+m)*k+s] = logAdd(c.br[(h*n+m)*k+s], base+ls)
						c.bls[d*n+m+1] = logAdd(c.bls[d*n+m+1], base+in)
					}
					c.contPost[(h*2+Right)*ds+c.dv(s)] += post
					c.edgePost[(c.cv(s)*n+h)*n+d] += post
				}
				// d took h on its left with s children so far.
				if g := c.bil[(d*n+h)*k+c.next(s)]; !math.IsInf(g, -1) {
					base := g + c.cont[(d*2+Left)*ds+c.dv(s)] + c.edge[(c.cv(s)*n+d)*n+h]
					post := 0.0
					for m := h; m < d; m++ {
						in, rs := c.l[(d*n+m+1)*k+s], c.rs[h*n+m]
						post += math.Exp(base + in + rs)
						c.bl[(d*n+m+1)*k+s] = logAdd(c.bl[(d*n+m+1)*k+s], base+rs)
						c.brs[h*n+m] = logAdd(c.brs[h*n+m], base+in)
					}
					c.contPost[(d*2+Left)*ds+c.dv(s)] += post
					c.edgePost[(c.cv(s)*n+d)*n+h] += post
				}
			}
		}
	}
	for h := 0; h < n; h++ {
		c.stopPost[(h*2+Right)*ds+c.dv(0)] += math.Exp(c.brs[h*n+h] + c.rs[h*n+h])
		c.stopPost[(h*2+Left)*ds+c.dv(0)] += math.Exp(c.bls[h*n+h] + c.ls[h*n+h])
	}
	sum := 0.0
	for _, p := range c.rootPost {
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

// viterbi writes the best tree to heads (1-based) and returns its log
// weight (−Inf when no tree has weight, heads then untouched).
func (c *vchart) viterbi(heads []int) float64 {
	z := c.inside(true)
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
