package dmv

import "math"

// Outside runs after Inside: reverse-mode differentiation of log Z over
// the bounded trees, as Chart.Outside, leaving the posterior of every
// attachment, root and stop/cont decision in the potentials' chart (read
// them with AddCounts, EdgePosterior, RootPosterior). It returns false
// when Z is 0 or no posterior is usable.
func (b *BoundedChart) Outside() bool {
	n, sq, lam, levels := b.n, b.sq, b.chunk, b.levels
	c := b.pot
	size := levels * sq
	for _, t := range [...][]float64{b.brsN, b.brcN, b.brsPT, b.bls0T, b.bls1, b.blc, b.birN, b.birP, b.bil0} {
		clear(t[:size])
	}
	for _, t := range b.ba {
		clear(t[:size])
	}
	clear(c.edgePost[:n*n])
	clear(c.rootPost[:n])
	clear(c.stopPost[:4*n])
	clear(c.contPost[:4*n])
	if !(b.z > 0) {
		return false
	}
	g := 1 / b.z
	for r := 0; r < n; r++ {
		lr, rr := b.ls0T[r], b.rsN[r*n+n-1]
		c.rootPost[r] = c.root[r] * lr * rr * g
		b.bls0T[r] += c.root[r] * rr * g
		b.brsN[r*n+n-1] += c.root[r] * lr * g
	}
	ge := make([]float64, lam+1) // the adjoints of A_ℓ, times the edge
	for w := n - 1; w >= 1; w-- {
		for d := 0; d < levels; d++ {
			o := d * sq
			for h := 0; h+w < n; h++ {
				j := h + w
				// Right halves of h over h..j.
				dr := h*4 + Right*2 + NonAdj
				gs, gc := b.brsN[o+h*n+j], b.brcN[o+h*n+j]
				c.stopPost[dr] += b.rsN[o+h*n+j] * gs
				c.contPost[dr] += b.rcN[o+h*n+j] * gc
				rsP, brsP := b.rsPT[o+j*n+h+1:], b.brsPT[o+j*n+h+1:o+j*n+j+1]
				if gr := gs*c.stop[dr] + gc*c.cont[dr]; gr != 0 {
					axpy(gr, rsP, b.birN[o+h*n+h+1:o+h*n+j+1])
					axpy(gr, b.irN[o+h*n+h+1:], brsP)
				}
				gs = b.brsPT[o+j*n+h]
				c.stopPost[dr] += b.rsPT[o+j*n+h] * gs
				if gr := gs * c.stop[dr]; gr != 0 {
					axpy(gr, rsP, b.birP[o+h*n+h+1:o+h*n+j+1])
					axpy(gr, b.irP[o+h*n+h+1:], brsP)
				}
				// Left halves of j over h..j.
				dl := j*4 + Left*2 + NonAdj
				ls0, bls0 := b.ls0T[o+h*n+h:], b.bls0T[o+h*n+h:o+h*n+j]
				gs = b.bls0T[o+h*n+j]
				c.stopPost[dl] += b.ls0T[o+h*n+j] * gs
				if gl := gs * c.stop[dl]; gl != 0 {
					axpy(gl, ls0, b.bil0[o+j*n+h:o+j*n+j])
					axpy(gl, b.il0[o+j*n+h:], bls0)
				}
				gs, gc = b.bls1[o+j*n+h], b.blc[o+j*n+h]
				c.stopPost[dl] += b.ls1[o+j*n+h] * gs
				c.contPost[dl] += b.lc[o+j*n+h] * gc
				if gl := gs*c.stop[dl] + gc*c.cont[dl]; gl != 0 {
					m := min(lam, w)
					for k := 0; k < m; k++ {
						b.ba[k][o+j*n+h+k] += gl * ls0[k]
						bls0[k] += gl * b.a[k][o+j*n+h+k]
					}
					if m < w {
						axpy(gl, ls0[m:], b.ba[lam][o+j*n+h+m:o+j*n+j])
						axpy(gl, b.a[lam][o+j*n+h+m:], bls0[m:])
					}
				}
			}
		}
		for d := 0; d < levels; d++ {
			o, deeper := d*sq, d+1 < levels
			// Right attachments h→a.
			for h := 0; h+w < n; h++ {
				a := h + w
				e := c.edge[h*n+a]
				ls, bls := b.ls1[o+a*n+h+1:], b.bls1[o+a*n+h+1:o+a*n+a+1]
				if g := b.birN[o+h*n+a]; g != 0 {
					c.edgePost[h*n+a] += b.irN[o+h*n+a] * g
					axpy(g*e, ls, b.brcN[o+h*n+h:o+h*n+a])
					axpy(g*e, b.rcN[o+h*n+h:], bls)
				}
				if g := b.birP[o+h*n+a]; g != 0 {
					c.edgePost[h*n+a] += b.irP[o+h*n+a] * g
					m := min(lam, w)
					axpy(g*e, ls, b.brcN[o+h*n+h:o+h*n+h+m])
					axpy(g*e, b.rcN[o+h*n+h:], bls[:m])
					if deeper && m < w {
						o1 := o + sq
						axpy(g*e, ls[m:], b.brcN[o1+h*n+h+m:o1+h*n+a])
						axpy(g*e, b.rcN[o1+h*n+h+m:], bls[m:])
					}
				}
			}
			// Left attachments j→cc.
			for cc := 0; cc+w < n; cc++ {
				j := cc + w
				e := c.edge[j*n+cc]
				lcRow, blcRow := b.lc[o+j*n+cc+1:], b.blc[o+j*n+cc+1:o+j*n+j+1]
				rs, brs := b.rsN[o+cc*n+cc:], b.brsN[o+cc*n+cc:o+cc*n+j]
				if g := b.bil0[o+j*n+cc]; g != 0 {
					c.edgePost[j*n+cc] += b.il0[o+j*n+cc] * g
					axpy(g*e, lcRow, brs)
					axpy(g*e, rs, blcRow)
				}
				// A_ℓ: split point k = cc+r is one deeper iff ℓ+r ≥ λ.
				// For r ≥ λ every ℓ is; for r < λ the ℓ ≥ λ−r are.
				all := 0.0
				for l := 0; l <= lam; l++ {
					g := b.ba[l][o+j*n+cc]
					c.edgePost[j*n+cc] += b.a[l][o+j*n+cc] * g
					ge[l] = g * e
					all += ge[l]
				}
				if all == 0 {
					continue
				}
				var rsDeep, brsDeep []float64
				if deeper {
					rsDeep, brsDeep = b.rsN[o+sq+cc*n+cc:], b.brsN[o+sq+cc*n+cc:o+sq+cc*n+j]
				}
				m := min(lam, w)
				for r := 0; r < m; r++ {
					g0, g1 := 0.0, 0.0
					for l := 0; l <= lam; l++ {
						if l+r >= lam {
							g1 += ge[l]
						} else {
							g0 += ge[l]
						}
					}
					brs[r] += g0 * lcRow[r]
					blcRow[r] += g0 * rs[r]
					if deeper {
						brsDeep[r] += g1 * lcRow[r]
						blcRow[r] += g1 * rsDeep[r]
					}
				}
				if deeper && m < w {
					axpy(all, lcRow[m:], brsDeep[m:])
					axpy(all, rsDeep[m:], blcRow[m:])
				}
			}
		}
	}
	for d := 0; d < levels; d++ {
		o := d * sq
		for h := 0; h < n; h++ {
			hh := o + h*n + h
			c.stopPost[h*4+Right*2+Adj] += b.rsN[hh]*b.brsN[hh] + b.rsPT[hh]*b.brsPT[hh]
			c.contPost[h*4+Right*2+Adj] += b.rcN[hh] * b.brcN[hh]
			c.stopPost[h*4+Left*2+Adj] += b.ls0T[hh]*b.bls0T[hh] + b.ls1[hh]*b.bls1[hh]
			c.contPost[h*4+Left*2+Adj] += b.lc[hh] * b.blc[hh]
		}
	}
	sum := 0.0
	for _, p := range c.stopPost[:4*n] {
		sum += p
	}
	for _, p := range c.rootPost[:n] {
		sum += p
	}
	return !math.IsNaN(sum) && !math.IsInf(sum, 0)
}

// AddCounts adds the posteriors of the last Outside, times weight, to
// counts (Chart.AddCounts).
func (b *BoundedChart) AddCounts(tags []int, counts *Params, weight float64) {
	b.pot.AddCounts(tags, counts, weight)
}

// EdgePosterior is the posterior probability that d attaches to h (both
// 0-based) after Outside; RootPosterior that d attaches to the wall.
func (b *BoundedChart) EdgePosterior(h, d int) float64 { return b.pot.EdgePosterior(h, d) }

// RootPosterior is the posterior probability that d is the root.
func (b *BoundedChart) RootPosterior(d int) float64 { return b.pot.RootPosterior(d) }
