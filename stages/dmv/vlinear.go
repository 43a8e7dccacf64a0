package dmv

import "math"

// The valence chart's soft E-step in the space of probabilities: the
// program of vchart.insideLog and vchart.outsideLog with products and sums
// instead of log-sum-exp, so that it takes no exp or log per way an item
// is built (in log space it took 13–15× the plain chart's time at 10 and
// 20 tokens). Its potentials are scaled as Chart.scale scales the plain
// DMV's — every tree's weight divided by one factor, e^{logScale} — and Z
// is kept in range as Chart.settle keeps it, by a common factor on every
// attachment. A sentence that no factor settles falls back to log space,
// which needs none.

// scale divides the linear potentials as Chart.scale divides the plain
// DMV's: every half-head takes exactly one stop decision, every attachment
// one cont decision of its head, and every word is attached exactly once
// (to a head, at some child valence, or to the wall), so dividing each
// half-head's stops by their largest, moving its largest cont into the
// edges on that side, and dividing each word's incoming attachments by
// their largest changes every tree's weight by the same factor, whose log
// logScale keeps. The first word's left half and the last word's right
// half take only their first stop.
//
// It says whether the space of probabilities can hold the sentence: not
// when a scaled potential is below tinyPotential, where a few of them in
// one item underflow whatever factor the attachments share (a leaf's two
// stops of 10⁻³⁰⁰ each lose every tree with such a leaf; the plain chart
// loses them too).
func (c *vchart) scale() bool {
	n, ds, cvs := c.n, c.val.Stop, c.val.Child
	removed := 1.0
	keep := func(f float64) { // one log per sentence, not one per word
		if p := removed * f; p > 1e-150 && p < 1e150 {
			removed = p
		} else {
			c.logScale += math.Log(removed) + math.Log(f)
			removed = 1
		}
	}
	for h := range n {
		for dir := Left; dir <= Right; dir++ {
			hd := (h*2 + dir) * ds
			stops, conts := c.pstop[hd:hd+ds], c.pcont[hd:hd+ds]
			bare := dir == Left && h == 0 || dir == Right && h == n-1
			s := 0.0
			for v, p := range stops {
				if !bare || v == c.dv(0) {
					s = larger(s, p)
				}
			}
			if s > 0 && s <= math.MaxFloat64 {
				for v := range stops {
					stops[v] /= s
				}
				keep(s)
			}
			if bare {
				continue
			}
			q := 0.0
			for _, p := range conts {
				q = larger(q, p)
			}
			if q > 0 && q <= math.MaxFloat64 && q != 1 {
				for v := range conts {
					conts[v] /= q
				}
				lo, hi := 0, h // h's dependents on this side
				if dir == Right {
					lo, hi = h+1, n
				}
				for cv := range cvs {
					row := c.pedge[(cv*n+h)*n : (cv*n+h)*n+n]
					for d := lo; d < hi; d++ {
						row[d] *= q
					}
				}
			}
		}
	}
	for d := range n {
		m := c.proot[d]
		for cv := range cvs {
			for h := range n {
				m = larger(m, c.pedge[(cv*n+h)*n+d])
			}
		}
		if m > 0 && m <= math.MaxFloat64 && m != 1 {
			inv := 1 / m
			c.proot[d] *= inv
			for cv := range cvs {
				for h := range n {
					c.pedge[(cv*n+h)*n+d] *= inv
				}
			}
			keep(m)
		}
	}
	c.logScale += math.Log(removed)
	for _, tab := range [...][]float64{c.proot[:n], c.pedge[:cvs*n*n], c.pstop[:2*n*ds], c.pcont[:2*n*ds]} {
		for _, p := range tab {
			if p > 0 && p < tinyPotential {
				return false
			}
		}
	}
	return true
}

// tinyPotential is the smallest scaled potential the space of
// probabilities takes.
const tinyPotential = 1e-100

// settleTries bounds the search for a factor that brings Z into range,
// as Chart.settle's (a variable for tests).
var settleTries = 40

// insideSoft is inside's log Z: in the space of probabilities when Z, or
// Z under some common factor on the attachments, is a normal number; else
// in log space, from the potentials as they were before the search for
// that factor.
func (c *vchart) insideSoft() float64 {
	if !c.scale() {
		return c.insideLog(false)
	}
	c.insideLinear()
	if !normal(c.z) {
		n := c.n
		root, edge, logScale := append([]float64(nil), c.proot[:n]...), append([]float64(nil), c.pedge[:c.val.Child*n*n]...), c.logScale
		SeekScale(c.z, float64(n), settleTries, func(x, next float64) float64 {
			c.rescaleAttachments(math.Exp(next - x))
			c.insideLinear()
			return c.z
		})
		if !normal(c.z) {
			copy(c.proot, root)
			copy(c.pedge, edge)
			c.logScale = logScale
			return c.insideLog(false)
		}
	}
	c.linear = true
	c.logZ = math.Log(c.z) + c.logScale
	return c.logZ
}

// rescaleAttachments multiplies every linear attachment by f.
func (c *vchart) rescaleAttachments(f float64) {
	n := c.n
	for i := range c.pedge[:c.val.Child*n*n] {
		c.pedge[i] *= f
	}
	for d := range n {
		c.proot[d] *= f
	}
	c.logScale -= float64(n) * math.Log(f)
}

// insideLinear is vchart.insideLog's soft program over the linear
// potentials; it leaves the scaled Z in c.z.
func (c *vchart) insideLinear() {
	n, k, ds := c.n, c.k, c.val.Stop
	for h := range n {
		for s := range k {
			c.r[(h*n+h)*k+s], c.l[(h*n+h)*k+s] = 0, 0
		}
		c.r[(h*n+h)*k], c.l[(h*n+h)*k] = 1, 1
		c.rs[h*n+h] = c.pstop[(h*2+Right)*ds+c.dv(0)]
		c.ls[h*n+h] = c.pstop[(h*2+Left)*ds+c.dv(0)]
	}
	for w := 1; w < n; w++ {
		for h := 0; h+w < n; h++ {
			d := h + w
			for sp := range k {
				// h takes d on its right, or d takes h on its left, with s
				// children so far (next(s) = sp), split at m.
				right, left := 0.0, 0.0
				for s := range k {
					if c.next(s) != sp {
						continue
					}
					sumR, sumL := 0.0, 0.0
					for m := h; m < d; m++ {
						sumR += c.r[(h*n+m)*k+s] * c.ls[d*n+m+1]
						sumL += c.l[(d*n+m+1)*k+s] * c.rs[h*n+m]
					}
					right += c.pcont[(h*2+Right)*ds+c.dv(s)] * c.pedge[(c.cv(s)*n+h)*n+d] * sumR
					left += c.pcont[(d*2+Left)*ds+c.dv(s)] * c.pedge[(c.cv(s)*n+d)*n+h] * sumL
				}
				c.ir[(h*n+d)*k+sp], c.il[(d*n+h)*k+sp] = right, left
			}
		}
		for h := 0; h+w < n; h++ {
			j := h + w
			rs, ls := 0.0, 0.0
			for s := range k {
				// h's right half over h..j, and j's left half, by their
				// farthest child d.
				right, left := 0.0, 0.0
				for d := h + 1; d <= j; d++ {
					right += c.ir[(h*n+d)*k+s] * c.rs[d*n+j]
				}
				for d := h; d < j; d++ {
					left += c.il[(j*n+d)*k+s] * c.ls[d*n+h]
				}
				c.r[(h*n+j)*k+s], c.l[(j*n+h)*k+s] = right, left
				rs += right * c.pstop[(h*2+Right)*ds+c.dv(s)]
				ls += left * c.pstop[(j*2+Left)*ds+c.dv(s)]
			}
			c.rs[h*n+j], c.ls[j*n+h] = rs, ls
		}
	}
	z := 0.0
	for r := range n {
		z += c.proot[r] * c.ls[r*n] * c.rs[r*n+n-1]
	}
	c.z = z
}

// outsideLinear is vchart.outsideLog over the linear items: each item's
// share of Z flows to the items it is built from in proportion to each
// way's share of its inside weight.
func (c *vchart) outsideLinear() bool {
	n, k, ds := c.n, c.k, c.val.Stop
	c.clearOutside()
	for r := range n {
		p := c.proot[r] * c.ls[r*n] * c.rs[r*n+n-1] / c.z
		c.rootPost[r] = p
		c.gls[r*n] += p
		c.grs[r*n+n-1] += p
	}
	for w := n - 1; w >= 1; w-- {
		for h := 0; h+w < n; h++ {
			j := h + w
			// Right half of h over h..j: its stop, its count, its farthest child.
			if g := c.grs[h*n+j]; g != 0 {
				inv := g / c.rs[h*n+j]
				for s := range k {
					st := (h*2+Right)*ds + c.dv(s)
					share := inv * c.r[(h*n+j)*k+s] * c.pstop[st]
					c.stopPost[st] += share
					c.gr[(h*n+j)*k+s] += share
				}
			}
			for s := range k {
				at := (h*n+j)*k + s
				g := c.gr[at]
				if g == 0 {
					continue
				}
				inv := g / c.r[at]
				for d := h + 1; d <= j; d++ {
					share := inv * c.ir[(h*n+d)*k+s] * c.rs[d*n+j]
					c.gir[(h*n+d)*k+s] += share
					c.grs[d*n+j] += share
				}
			}
			// Left half of j over h..j.
			if g := c.gls[j*n+h]; g != 0 {
				inv := g / c.ls[j*n+h]
				for s := range k {
					st := (j*2+Left)*ds + c.dv(s)
					share := inv * c.l[(j*n+h)*k+s] * c.pstop[st]
					c.stopPost[st] += share
					c.gl[(j*n+h)*k+s] += share
				}
			}
			for s := range k {
				at := (j*n+h)*k + s
				g := c.gl[at]
				if g == 0 {
					continue
				}
				inv := g / c.l[at]
				for d := h; d < j; d++ {
					share := inv * c.il[(j*n+d)*k+s] * c.ls[d*n+h]
					c.gil[(j*n+d)*k+s] += share
					c.gls[d*n+h] += share
				}
			}
		}
		for h := 0; h+w < n; h++ {
			d := h + w
			for s := range k {
				sp := c.next(s)
				// h took d on its right with s children so far.
				if g := c.gir[(h*n+d)*k+sp]; g != 0 {
					ct, et := (h*2+Right)*ds+c.dv(s), (c.cv(s)*n+h)*n+d
					base := g / c.ir[(h*n+d)*k+sp] * c.pcont[ct] * c.pedge[et]
					post := 0.0
					for m := h; m < d; m++ {
						share := base * c.r[(h*n+m)*k+s] * c.ls[d*n+m+1]
						post += share
						c.gr[(h*n+m)*k+s] += share
						c.gls[d*n+m+1] += share
					}
					c.contPost[ct] += post
					c.edgePost[et] += post
				}
				// d took h on its left with s children so far.
				if g := c.gil[(d*n+h)*k+sp]; g != 0 {
					ct, et := (d*2+Left)*ds+c.dv(s), (c.cv(s)*n+d)*n+h
					base := g / c.il[(d*n+h)*k+sp] * c.pcont[ct] * c.pedge[et]
					post := 0.0
					for m := h; m < d; m++ {
						share := base * c.l[(d*n+m+1)*k+s] * c.rs[h*n+m]
						post += share
						c.gl[(d*n+m+1)*k+s] += share
						c.grs[h*n+m] += share
					}
					c.contPost[ct] += post
					c.edgePost[et] += post
				}
			}
		}
	}
	return c.endOutside()
}
