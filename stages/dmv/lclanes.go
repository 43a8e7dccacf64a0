package dmv

import (
	"github.com/grind-nlp/grind/internal/vec8"
	"github.com/grind-nlp/grind/stages/memory"
)

// boundedLanes is BoundedChart's inside and outside (sum-product) over
// the lanes of a laneChart, which holds the batch's potentials, scaled as
// Chart.Load scales them, and takes the posteriors, so that its logZ,
// usable, addCounts and posteriors serve both. Every table is
// BoundedChart's, a cell of lanes numbers where it has one; each lane
// does BoundedChart's operations in its order (no fused multiply-adds),
// so a lane's log Z and posteriors are the scalar chart's bit for bit
// whenever they are finite. Where BoundedChart skips a zero adjoint the
// lanes add 0·x, which is nothing when x is finite; a lane where
// anything is not is redone on the scalar chart (laneChart.usable), as a
// lane whose Z is not a normal number is (its scaling search is the
// scalar chart's).
type boundedLanes struct {
	bound                DepthBound
	n, sq, levels, chunk int
	capacity             int // cells of every table

	rsN, rcN, rsPT, ls0T, ls1, lc       []cell
	irN, irP, il0                       []cell
	a                                   [][]cell // [ℓ], ℓ = 0..chunk
	brsN, brcN, brsPT, bls0T, bls1, blc []cell
	birN, birP, bil0                    []cell
	ba                                  [][]cell
	ge                                  []cell // A_ℓ's adjoints times the edge, ℓ = 0..chunk
}

// boundedLaneTables is how many tables of n²·levels cells boundedLanes
// holds for chunk length lam: nine items, their adjoints, and A_ℓ with
// its adjoint for each ℓ.
func boundedLaneTables(lam int) int { return 18 + 2*(lam+1) }

// boundedLaneLen is the longest sentence the lanes take under bound: its
// tables hold no more cells than the lane chart's at batchMaxLen (each
// depth level is a table's n² cells more).
func boundedLaneLen(bound DepthBound) int {
	n := batchMaxLen
	for n > 1 && min(bound.Max, n)*n*n > batchMaxLen*batchMaxLen {
		n--
	}
	return n
}

// grow makes the tables for sentences of up to n tokens under bound.
func (b *boundedLanes) grow(bound DepthBound, n int) {
	size, chunk := min(bound.Max, n)*n*n, min(bound.Chunk, n)
	if bound == b.bound && size <= b.capacity && chunk < len(b.a) {
		return
	}
	if bound == b.bound {
		size, chunk = max(size, b.capacity), max(chunk, len(b.a)-1)
	}
	f := func() []cell { return memory.Zeroed[cell](size) }
	b.rsN, b.rcN, b.rsPT, b.ls0T, b.ls1, b.lc = f(), f(), f(), f(), f(), f()
	b.irN, b.irP, b.il0 = f(), f(), f()
	b.brsN, b.brcN, b.brsPT, b.bls0T, b.bls1, b.blc = f(), f(), f(), f(), f(), f()
	b.birN, b.birP, b.bil0 = f(), f(), f()
	b.a, b.ba = make([][]cell, chunk+1), make([][]cell, chunk+1)
	for l := range b.a {
		b.a[l], b.ba[l] = f(), f()
	}
	b.ge = make([]cell, chunk+1)
	b.bound, b.capacity = bound, size
}

// setLength readies the tables, grown for n tokens, for a batch of n-token
// sentences.
func (b *boundedLanes) setLength(n int) {
	b.n, b.sq = n, n*n
	b.levels, b.chunk = min(b.bound.Max, n), min(b.bound.Chunk, n)
}

// dotCells is Σ x[i]·y[i] lane by lane, in order from 0 (Chart's dot).
func dotCells(x, y []cell) vec {
	y = y[:len(x)]
	var s vec
	for i := range x {
		s = s.Add(ld(&x[i]).Mul(ld(&y[i])))
	}
	return s
}

// axpyCells adds f·x[i] to y[i] lane by lane (Chart's axpy); len(x) ≥
// len(y).
func axpyCells(f vec, x, y []cell) {
	x = x[:len(y)]
	for i := range y {
		st(&y[i], ld(&y[i]).Add(f.Mul(ld(&x[i]))))
	}
}

// inside is BoundedChart.inside (sum-product) over every lane of p,
// after p's load and scale; it leaves Z and log Z in p.
func (b *boundedLanes) inside(p *laneChart) {
	n, sq, lam, levels := b.n, b.sq, b.chunk, b.levels
	dec, edge, inv := p.dec, p.edge, p.inv
	// The edges divided by their dependent's factor, as Chart.scale
	// leaves them (the lane chart's inside does this as it reads them).
	for h := 0; h < n; h++ {
		row := edge[h*n : h*n+n]
		for d := range row {
			st(&row[d], ld(&row[d]).Mul(ld(&inv[d])))
		}
	}
	for d := 0; d < levels; d++ {
		o := d * sq
		for h := 0; h < n; h++ {
			hh := o + h*n + h
			rs, ls := ld(&dec[h*4+Right*2+Adj].stop), ld(&dec[h*4+Left*2+Adj].stop)
			st(&b.rsN[hh], rs)
			st(&b.rcN[hh], ld(&dec[h*4+Right*2+Adj].cont))
			st(&b.rsPT[hh], rs)
			st(&b.ls0T[hh], ls)
			st(&b.ls1[hh], ls)
			st(&b.lc[hh], ld(&dec[h*4+Left*2+Adj].cont))
		}
	}
	for w := 1; w < n; w++ {
		m := min(lam, w)
		for d := 0; d < levels; d++ {
			o, deeper := d*sq, d+1 < levels
			// Right attachments h→a, a = h+w.
			for h := 0; h+w < n; h++ {
				a := h + w
				e := ld(&edge[h*n+a])
				rc, ls := b.rcN[o+h*n+h:o+h*n+a], b.ls1[o+a*n+h+1:o+a*n+a+1]
				st(&b.irN[o+h*n+a], e.Mul(dotCells(rc, ls)))
				s := dotCells(rc[:m], ls)
				if deeper && m < w {
					o1 := o + sq
					s = s.Add(dotCells(b.rcN[o1+h*n+h+m:o1+h*n+a], ls[m:]))
				}
				st(&b.irP[o+h*n+a], e.Mul(s))
			}
			// Left attachments j→c, c = j−w.
			for c := 0; c+w < n; c++ {
				j := c + w
				e := ld(&edge[j*n+c])
				rs, lcRow := b.rsN[o+c*n+c:o+c*n+j], b.lc[o+j*n+c+1:o+j*n+j+1]
				st(&b.il0[o+j*n+c], e.Mul(dotCells(rs, lcRow)))
				var rsDeep []cell
				if deeper {
					rsDeep = b.rsN[o+sq+c*n+c : o+sq+c*n+j]
				}
				var tail vec
				if rsDeep != nil && m < w {
					tail = dotCells(rsDeep[m:], lcRow[m:])
				}
				for l := 0; l <= lam; l++ {
					s := tail
					for r := m - 1; r >= 0; r-- {
						switch {
						case l+r < lam:
							s = s.Add(ld(&rs[r]).Mul(ld(&lcRow[r])))
						case rsDeep != nil:
							s = s.Add(ld(&rsDeep[r]).Mul(ld(&lcRow[r])))
						}
					}
					st(&b.a[l][o+j*n+c], e.Mul(s))
				}
			}
		}
		for d := 0; d < levels; d++ {
			o := d * sq
			for h := 0; h+w < n; h++ {
				j := h + w
				// Right halves of h over h..j.
				dr := &dec[h*4+Right*2+NonAdj]
				rsP := b.rsPT[o+j*n+h+1 : o+j*n+j+1]
				r := dotCells(b.irN[o+h*n+h+1:o+h*n+j+1], rsP)
				st(&b.rsN[o+h*n+j], r.Mul(ld(&dr.stop)))
				st(&b.rcN[o+h*n+j], r.Mul(ld(&dr.cont)))
				r = dotCells(b.irP[o+h*n+h+1:o+h*n+j+1], rsP)
				st(&b.rsPT[o+j*n+h], r.Mul(ld(&dr.stop)))
				// Left halves of j over h..j.
				dl := &dec[j*4+Left*2+NonAdj]
				ls0 := b.ls0T[o+h*n+h : o+h*n+j]
				l := dotCells(b.il0[o+j*n+h:o+j*n+j], ls0)
				st(&b.ls0T[o+h*n+j], l.Mul(ld(&dl.stop)))
				var l1 vec
				for c := h; c < h+m; c++ {
					l1 = l1.Add(ld(&b.a[c-h][o+j*n+c]).Mul(ld(&ls0[c-h])))
				}
				if m < w {
					l1 = l1.Add(dotCells(b.a[lam][o+j*n+h+m:o+j*n+j], ls0[m:]))
				}
				st(&b.ls1[o+j*n+h], l1.Mul(ld(&dl.stop)))
				st(&b.lc[o+j*n+h], l1.Mul(ld(&dl.cont)))
			}
		}
	}
	var z vec
	for r := 0; r < n; r++ {
		z = z.Add(ld(&p.root[r]).Mul(ld(&b.ls0T[r])).Mul(ld(&b.rsN[r*n+n-1])))
	}
	z.Store(&p.z)
	vec8.Log(z).Add(ld(&p.logScale).Add(vec8.Log(ld(&p.kept)))).Store(&p.logZ8)
}

// outside is BoundedChart.Outside over every lane (each seeded with its
// own 1/Z), leaving the posteriors in p.
func (b *boundedLanes) outside(p *laneChart) {
	n, sq, lam, levels := b.n, b.sq, b.chunk, b.levels
	dec, edge := p.dec, p.edge
	size := levels * sq
	for _, t := range [...][]cell{b.brsN, b.brcN, b.brsPT, b.bls0T, b.bls1, b.blc, b.birN, b.birP, b.bil0} {
		clear(t[:size])
	}
	for _, t := range b.ba {
		clear(t[:size])
	}
	clear(p.edgePost[:sq])
	clear(p.rootPost[:n])
	for i := range dec[:4*n] {
		dec[i].stopPost, dec[i].contPost = cell{}, cell{}
	}
	g := vec8.Broadcast(1).Div(ld(&p.z))
	for r := 0; r < n; r++ {
		root, lr, rr := ld(&p.root[r]), ld(&b.ls0T[r]), ld(&b.rsN[r*n+n-1])
		st(&p.rootPost[r], root.Mul(lr).Mul(rr).Mul(g))
		addVec(&b.bls0T[r], root.Mul(rr).Mul(g))
		addVec(&b.brsN[r*n+n-1], root.Mul(lr).Mul(g))
	}
	ge := b.ge
	for w := n - 1; w >= 1; w-- {
		m := min(lam, w)
		for d := 0; d < levels; d++ {
			o := d * sq
			for h := 0; h+w < n; h++ {
				j := h + w
				// Right halves of h over h..j.
				dr := &dec[h*4+Right*2+NonAdj]
				gs, gc := ld(&b.brsN[o+h*n+j]), ld(&b.brcN[o+h*n+j])
				addVec(&dr.stopPost, ld(&b.rsN[o+h*n+j]).Mul(gs))
				addVec(&dr.contPost, ld(&b.rcN[o+h*n+j]).Mul(gc))
				rsP, brsP := b.rsPT[o+j*n+h+1:], b.brsPT[o+j*n+h+1:o+j*n+j+1]
				gr := gs.Mul(ld(&dr.stop)).Add(gc.Mul(ld(&dr.cont)))
				axpyCells(gr, rsP, b.birN[o+h*n+h+1:o+h*n+j+1])
				axpyCells(gr, b.irN[o+h*n+h+1:], brsP)
				gs = ld(&b.brsPT[o+j*n+h])
				addVec(&dr.stopPost, ld(&b.rsPT[o+j*n+h]).Mul(gs))
				gr = gs.Mul(ld(&dr.stop))
				axpyCells(gr, rsP, b.birP[o+h*n+h+1:o+h*n+j+1])
				axpyCells(gr, b.irP[o+h*n+h+1:], brsP)
				// Left halves of j over h..j.
				dl := &dec[j*4+Left*2+NonAdj]
				ls0, bls0 := b.ls0T[o+h*n+h:], b.bls0T[o+h*n+h:o+h*n+j]
				gs = ld(&b.bls0T[o+h*n+j])
				addVec(&dl.stopPost, ld(&b.ls0T[o+h*n+j]).Mul(gs))
				gl := gs.Mul(ld(&dl.stop))
				axpyCells(gl, ls0, b.bil0[o+j*n+h:o+j*n+j])
				axpyCells(gl, b.il0[o+j*n+h:], bls0)
				gs, gc = ld(&b.bls1[o+j*n+h]), ld(&b.blc[o+j*n+h])
				addVec(&dl.stopPost, ld(&b.ls1[o+j*n+h]).Mul(gs))
				addVec(&dl.contPost, ld(&b.lc[o+j*n+h]).Mul(gc))
				gl = gs.Mul(ld(&dl.stop)).Add(gc.Mul(ld(&dl.cont)))
				for k := 0; k < m; k++ {
					addVec(&b.ba[k][o+j*n+h+k], gl.Mul(ld(&ls0[k])))
					addVec(&bls0[k], gl.Mul(ld(&b.a[k][o+j*n+h+k])))
				}
				if m < w {
					axpyCells(gl, ls0[m:], b.ba[lam][o+j*n+h+m:o+j*n+j])
					axpyCells(gl, b.a[lam][o+j*n+h+m:], bls0[m:])
				}
			}
		}
		for d := 0; d < levels; d++ {
			o, deeper := d*sq, d+1 < levels
			// Right attachments h→a.
			for h := 0; h+w < n; h++ {
				a := h + w
				e := ld(&edge[h*n+a])
				ls, bls := b.ls1[o+a*n+h+1:], b.bls1[o+a*n+h+1:o+a*n+a+1]
				g := ld(&b.birN[o+h*n+a])
				addVec(&p.edgePost[h*n+a], ld(&b.irN[o+h*n+a]).Mul(g))
				f := g.Mul(e)
				axpyCells(f, ls, b.brcN[o+h*n+h:o+h*n+a])
				axpyCells(f, b.rcN[o+h*n+h:], bls)
				g = ld(&b.birP[o+h*n+a])
				addVec(&p.edgePost[h*n+a], ld(&b.irP[o+h*n+a]).Mul(g))
				f = g.Mul(e)
				axpyCells(f, ls, b.brcN[o+h*n+h:o+h*n+h+m])
				axpyCells(f, b.rcN[o+h*n+h:], bls[:m])
				if deeper && m < w {
					o1 := o + sq
					axpyCells(f, ls[m:], b.brcN[o1+h*n+h+m:o1+h*n+a])
					axpyCells(f, b.rcN[o1+h*n+h+m:], bls[m:])
				}
			}
			// Left attachments j→c.
			for c := 0; c+w < n; c++ {
				j := c + w
				e := ld(&edge[j*n+c])
				lcRow, blcRow := b.lc[o+j*n+c+1:], b.blc[o+j*n+c+1:o+j*n+j+1]
				rs, brs := b.rsN[o+c*n+c:], b.brsN[o+c*n+c:o+c*n+j]
				g := ld(&b.bil0[o+j*n+c])
				post := &p.edgePost[j*n+c]
				addVec(post, ld(&b.il0[o+j*n+c]).Mul(g))
				axpyCells(g.Mul(e), lcRow, brs)
				axpyCells(g.Mul(e), rs, blcRow)
				// A_ℓ: split point c+r is one deeper iff ℓ+r ≥ λ.
				var all vec
				for l := 0; l <= lam; l++ {
					g := ld(&b.ba[l][o+j*n+c])
					addVec(post, ld(&b.a[l][o+j*n+c]).Mul(g))
					gl := g.Mul(e)
					st(&ge[l], gl)
					all = all.Add(gl)
				}
				var rsDeep, brsDeep []cell
				if deeper {
					rsDeep, brsDeep = b.rsN[o+sq+c*n+c:], b.brsN[o+sq+c*n+c:o+sq+c*n+j]
				}
				for r := 0; r < m; r++ {
					var g0, g1 vec
					for l := 0; l <= lam; l++ {
						if l+r >= lam {
							g1 = g1.Add(ld(&ge[l]))
						} else {
							g0 = g0.Add(ld(&ge[l]))
						}
					}
					addVec(&brs[r], g0.Mul(ld(&lcRow[r])))
					addVec(&blcRow[r], g0.Mul(ld(&rs[r])))
					if deeper {
						addVec(&brsDeep[r], g1.Mul(ld(&lcRow[r])))
						addVec(&blcRow[r], g1.Mul(ld(&rsDeep[r])))
					}
				}
				if deeper && m < w {
					axpyCells(all, lcRow[m:], brsDeep[m:])
					axpyCells(all, rsDeep[m:], blcRow[m:])
				}
			}
		}
	}
	for d := 0; d < levels; d++ {
		o := d * sq
		for h := 0; h < n; h++ {
			hh := o + h*n + h
			dr, dl := &dec[h*4+Right*2+Adj], &dec[h*4+Left*2+Adj]
			addVec(&dr.stopPost, ld(&b.rsN[hh]).Mul(ld(&b.brsN[hh])).Add(ld(&b.rsPT[hh]).Mul(ld(&b.brsPT[hh]))))
			addVec(&dr.contPost, ld(&b.rcN[hh]).Mul(ld(&b.brcN[hh])))
			addVec(&dl.stopPost, ld(&b.ls0T[hh]).Mul(ld(&b.bls0T[hh])).Add(ld(&b.ls1[hh]).Mul(ld(&b.bls1[hh]))))
			addVec(&dl.contPost, ld(&b.lc[hh]).Mul(ld(&b.blc[hh])))
		}
	}
	p.sumPosteriors()
}
