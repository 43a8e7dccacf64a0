package dmv

import "math"

// Outside runs after Inside: it differentiates log Z with respect to every
// inside item (reverse mode: seed 1/Z at the top, visit the widths in
// decreasing order, scatter each product into its factors' adjoints) and
// so obtains the posterior of every attachment, root and stop/cont
// decision of the sentence. It returns false when Z is 0 (no tree has
// positive weight), leaving every posterior at 0.
func (c *Chart) Outside() bool {
	if c.valenced {
		return c.vc.outside()
	}
	n := c.n
	for _, t := range [...][]float64{c.brs, c.brsT, c.brc, c.bls, c.blsT, c.blc, c.bir, c.bil, c.edgePost} {
		clear(t[:n*n])
	}
	if c.twoChild {
		clear(c.firstPost[:n*n])
		clear(c.morePost[:n*n])
	}
	clear(c.rootPost[:n])
	clear(c.stopPost[:4*n])
	clear(c.contPost[:4*n])
	if !(c.z > 0) { // 0, or NaN when inside could not settle
		return false
	}
	g := 1 / c.z
	if c.seg.on {
		c.segmentOutside(g)
	} else {
		for r := 0; r < n; r++ {
			lr, rr := c.ls[r*n], c.rs[r*n+n-1]
			c.rootPost[r] = c.root[r] * lr * rr * g
			c.bls[r*n] += c.root[r] * rr * g
			c.brs[r*n+n-1] += c.root[r] * lr * g
		}
	}
	two := c.twoChild
	for w := n - 1; w >= 1; w-- {
		// Reverse the halves of width w.
		for h := 0; h+w < n; h++ {
			j := h + w
			// Right half of h over h..j.
			d := h*4 + Right*2 + NonAdj
			brs := c.brs[h*n+j] + c.brsT[j*n+h]
			brc := c.brc[h*n+j]
			c.stopPost[d] += c.rs[h*n+j] * brs
			c.contPost[d] += c.rc[h*n+j] * brc
			if br := brs*c.stop[d] + brc*c.cont[d]; br != 0 {
				axpy(br, c.rsT[j*n+h+1:], c.bir[h*n+h+1:h*n+j+1])
				axpy(br, c.ir[h*n+h+1:], c.brsT[j*n+h+1:j*n+j+1])
			}
			// Left half of j over h..j.
			d = j*4 + Left*2 + NonAdj
			bls := c.bls[j*n+h] + c.blsT[h*n+j]
			blc := c.blc[j*n+h]
			c.stopPost[d] += c.ls[j*n+h] * bls
			c.contPost[d] += c.lc[j*n+h] * blc
			if bl := bls*c.stop[d] + blc*c.cont[d]; bl != 0 {
				axpy(bl, c.lsT[h*n+h:], c.bil[j*n+h:j*n+j])
				axpy(bl, c.il[j*n+h:], c.blsT[h*n+h:h*n+j])
			}
		}
		// Reverse the attachments of width w.
		if two {
			for h := 0; h+w < n; h++ {
				c.detachTwoChild(h, h+w)
			}
			continue
		}
		for h := 0; h+w < n; h++ {
			d := h + w
			if g := c.bir[h*n+d]; g != 0 {
				c.edgePost[h*n+d] = c.ir[h*n+d] * g
				ge := g * c.edge[h*n+d]
				axpy(ge, c.ls[d*n+h+1:], c.brc[h*n+h:h*n+d])
				axpy(ge, c.rc[h*n+h:], c.bls[d*n+h+1:d*n+d+1])
			}
			if g := c.bil[d*n+h]; g != 0 {
				c.edgePost[d*n+h] = c.il[d*n+h] * g
				ge := g * c.edge[d*n+h]
				axpy(ge, c.lc[d*n+h+1:], c.brs[h*n+h:h*n+d])
				axpy(ge, c.rs[h*n+h:], c.blc[d*n+h+1:d*n+d+1])
			}
		}
	}
	for h := 0; h < n; h++ {
		hh := h*n + h
		c.stopPost[h*4+Right*2+Adj] = c.rs[hh] * (c.brs[hh] + c.brsT[hh])
		c.contPost[h*4+Right*2+Adj] = c.rc[hh] * c.brc[hh]
		c.stopPost[h*4+Left*2+Adj] = c.ls[hh] * (c.bls[hh] + c.blsT[hh])
		c.contPost[h*4+Left*2+Adj] = c.lc[hh] * c.blc[hh]
	}
	// An item that underflowed to 0 under an outside weight that overflowed
	// leaves NaN or Inf, which flows down to the first decisions; such a
	// sentence has no usable posteriors.
	sum := 0.0
	for _, p := range c.stopPost[:4*n] {
		sum += p
	}
	for _, p := range c.rootPost[:n] {
		sum += p
	}
	return !math.IsNaN(sum) && !math.IsInf(sum, 0)
}

// detachTwoChild reverses attachTwoChild: the posteriors of h's right
// child d and d's left child h, by first and later children, and the
// adjoints of the halves they were built from.
func (c *Chart) detachTwoChild(h, d int) {
	n := c.n
	hh := h*n + h
	if g := c.bir[h*n+d]; g != 0 {
		c.edgePost[h*n+d] = c.ir[h*n+d] * g
		c.morePost[h*n+d] = c.irMore[h*n+d] * g
		c.firstPost[h*n+d] = c.edge[h*n+d] * (c.rc[hh] * c.ls[d*n+h+1]) * g
		g0, g1 := g*c.edge[h*n+d], g*c.more[h*n+d]
		c.brc[hh] += g0 * c.ls[d*n+h+1]
		c.bls[d*n+h+1] += g0 * c.rc[hh]
		axpy(g1, c.ls[d*n+h+2:], c.brc[hh+1:h*n+d])
		axpy(g1, c.rc[hh+1:], c.bls[d*n+h+2:d*n+d+1])
	}
	if g := c.bil[d*n+h]; g != 0 {
		dd := d*n + d
		c.edgePost[d*n+h] = c.il[d*n+h] * g
		c.morePost[d*n+h] = c.ilMore[d*n+h] * g
		c.firstPost[d*n+h] = c.edge[d*n+h] * (c.rs[h*n+d-1] * c.lc[dd]) * g
		g0, g1 := g*c.edge[d*n+h], g*c.more[d*n+h]
		c.brs[h*n+d-1] += g0 * c.lc[dd]
		c.blc[dd] += g0 * c.rs[h*n+d-1]
		axpy(g1, c.lc[d*n+h+1:], c.brs[hh:h*n+d-1])
		axpy(g1, c.rs[hh:], c.blc[d*n+h+1:dd])
	}
}

// AddCounts adds the posteriors of the last Outside, times weight, to the
// tag-level table counts (tags as given to Load).
func (c *Chart) AddCounts(tags []int, counts *Params, weight float64) {
	if c.valenced {
		c.vc.addCounts(tags, counts, weight)
		return
	}
	for h, th := range tags {
		counts.Root[th] += weight * c.rootPost[h]
		for k := 0; k < 4; k++ {
			counts.Stop[th*4+k] += weight * c.stopPost[h*4+k]
			counts.Cont[th*4+k] += weight * c.contPost[h*4+k]
		}
	}
	if c.twoChild {
		addChildCounts(counts, tags, 0, c.firstPost, weight)
		addChildCounts(counts, tags, 1, c.morePost, weight)
	} else {
		addChildCounts(counts, tags, 0, c.edgePost, weight)
	}
}

// addChildCounts adds the posteriors post ([h·n + d]: d attached to h)
// of the words of tags, times weight, to the counts of child valence v.
func addChildCounts(counts *Params, tags []int, v int, post []float64, weight float64) {
	n, t := len(tags), counts.T
	for h, th := range tags {
		row := post[h*n : h*n+n]
		left := counts.Child[counts.ChildAt(th, Left, v, 0):][:t]
		for d := 0; d < h; d++ {
			left[tags[d]] += weight * row[d]
		}
		right := counts.Child[counts.ChildAt(th, Right, v, 0):][:t]
		for d := h + 1; d < n; d++ {
			right[tags[d]] += weight * row[d]
		}
	}
}

// AttachmentPosteriors are the posteriors of the last Outside:
// edge[h·n+d] that d attaches to h, root[d] that d is the root.
func (c *Chart) AttachmentPosteriors() (edge, root []float64) {
	if c.valenced {
		return c.vc.attachmentPosteriors()
	}
	return c.edgePost[:c.n*c.n], c.rootPost[:c.n]
}

// EdgePosterior is the posterior probability that d attaches to h (both
// 0-based) after Outside; RootPosterior that d attaches to the wall.
func (c *Chart) EdgePosterior(h, d int) float64 {
	if c.valenced {
		return c.vc.edgePosterior(h, d)
	}
	return c.edgePost[h*c.n+d]
}

// RootPosterior is the posterior probability that d is the root.
func (c *Chart) RootPosterior(d int) float64 {
	if c.valenced {
		return c.vc.rootPost[d]
	}
	return c.rootPost[d]
}
