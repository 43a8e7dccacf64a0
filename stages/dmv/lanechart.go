package dmv

import "math"

// laneChart is Chart's inside and outside passes run over lanes sentences
// of one length at once (a batch). Every table holds each cell of every
// lane side by side ([cell·lanes + lane]), so the loops, their bounds and
// their loads are shared by all lanes and each multiply or add is one
// vector operation (vec: internal/vec8).
//
// Each lane does exactly the floating-point operations of Chart.inside
// and Chart.Outside, in the same order and without fused multiply-adds,
// so a lane's log Z and posteriors are those of the scalar chart, bit for
// bit, whenever they are finite (check tells); the scalar chart's
// scaling search (settle) and its failures are left to it: a lane whose Z
// is not a normal number is redone there.
type laneChart struct {
	n int

	// Potentials (load, then scale).
	root, edge, stop, cont []float64
	logScale               [lanes]float64

	rs, rsT, rc, ls, lsT, lc, ir, il         []float64 // inside items
	brs, brsT, brc, bls, blsT, blc, bir, bil []float64 // their adjoints
	z                                        [lanes]float64

	edgePost, rootPost, stopPost, contPost []float64
	capacity                               int

	removed []float64      // scale's factors
	inv     []float64      // scale's 1/factor of each word's attachments
	sum     [lanes]float64 // of every posterior, after outside
}

func (b *laneChart) grow(n int) {
	if n <= b.capacity {
		return
	}
	sq := n * n * lanes
	f := func() []float64 { return make([]float64, sq) }
	v := func(k int) []float64 { return make([]float64, k*n*lanes) }
	b.root, b.rootPost = v(1), v(1)
	b.stop, b.cont, b.stopPost, b.contPost = v(4), v(4), v(4), v(4)
	b.edge, b.edgePost = f(), f()
	b.rs, b.rsT, b.rc, b.ls, b.lsT, b.lc, b.ir, b.il = f(), f(), f(), f(), f(), f(), f(), f()
	b.brs, b.brsT, b.brc, b.bls, b.blsT, b.blc, b.bir, b.bil = f(), f(), f(), f(), f(), f(), f(), f()
	b.capacity = n
}

// load sets lane l's potentials for the tag sequence tags, as
// Chart.Load (loadPotentials) does, each attachment also multiplied by
// its factor when f is not nil (n² edges, then n roots: LoadFactored's).
// scale scales them afterwards.
func (b *laneChart) load(l int, tags []int, w *Params, dist, f []float64) {
	n := len(tags)
	b.grow(n)
	b.n = n
	for h, th := range tags {
		for dir := Left; dir <= Right; dir++ {
			for v := Adj; v <= NonAdj; v++ {
				b.stop[(h*4+dir*2+v)*lanes+l] = w.Stop[DecisionIndex(th, dir, v)]
				b.cont[(h*4+dir*2+v)*lanes+l] = w.Cont[DecisionIndex(th, dir, v)]
			}
		}
		left := w.Child[w.ChildIndex(th, Left, 0):]
		right := w.Child[w.ChildIndex(th, Right, 0):]
		for d, td := range tags {
			var e float64
			switch {
			case d < h:
				e = left[td]
			case d > h:
				e = right[td]
			}
			if dist != nil && d != h {
				e *= dist[abs(h-d)]
			}
			if f != nil {
				e *= f[h*n+d]
			}
			b.edge[(h*n+d)*lanes+l] = e
		}
		b.root[h*lanes+l] = w.Root[th]
		if f != nil {
			b.root[h*lanes+l] *= f[n*n+h]
		}
	}
}

// pad fills lanes from..lanes−1 with lane from−1's potentials, so that
// every lane of a short batch holds numbers (its results unread).
func (b *laneChart) pad(from int) {
	n := b.n
	for _, t := range [...][]float64{b.root[:n*lanes], b.stop[:4*n*lanes], b.cont[:4*n*lanes], b.edge[:n*n*lanes]} {
		for i := 0; i < len(t); i += lanes {
			for l := from; l < lanes; l++ {
				t[i+l] = t[i+from-1]
			}
		}
	}
}

// scale is Chart.scale over every lane: the same divisions, lane by lane
// (a lane whose factor is no usable number divides by 1, which changes
// nothing, where Chart.scale skips it), and the same running product of
// the factors removed, kept lane by lane in the factors' order.
func (b *laneChart) scale() {
	n := b.n
	stop, cont, edge, root := b.stop, b.cont, b.edge, b.root
	if cap(b.removed) < 3*n*lanes {
		b.removed = make([]float64, 3*n*lanes)
	}
	removed := b.removed[:3*n*lanes] // the factors, in Chart.scale's order of keep
	for h := 0; h < n; h++ {
		for dir := Left; dir <= Right; dir++ {
			d := h*4 + dir*2
			first := dir == Left && h == 0 || dir == Right && h == n-1
			s := ld(cell(stop, d+Adj))
			if !first {
				s = s.Max(ld(cell(stop, d+NonAdj)))
			}
			s = factorOf(s)
			st(cell(stop, d+Adj), ld(cell(stop, d+Adj)).Div(s))
			st(cell(stop, d+NonAdj), ld(cell(stop, d+NonAdj)).Div(s))
			st(cell(removed, h*2+dir), s)
			if first {
				continue
			}
			q := factorOf(ld(cell(cont, d+Adj)).Max(ld(cell(cont, d+NonAdj))))
			st(cell(cont, d+Adj), ld(cell(cont, d+Adj)).Div(q))
			st(cell(cont, d+NonAdj), ld(cell(cont, d+NonAdj)).Div(q))
			lo, hi := h*n, h*n+h // left dependents of h
			if dir == Right {
				lo, hi = h*n+h+1, h*n+n
			}
			for i := lo; i < hi; i++ {
				st(cell(edge, i), ld(cell(edge, i)).Mul(q))
			}
		}
	}
	// Each word's attachments divided by their largest, row by row (the
	// largest of numbers is the same in any order).
	most := cells(removed, 2*n, 3*n)
	copy(most, root[:n*lanes])
	for h := 0; h < n; h++ {
		row := cells(edge, h*n, h*n+n)
		for i := 0; i+lanes <= len(most); i += lanes {
			st(most[i:i+lanes], ld(most[i:i+lanes]).Max(ld(row[i:i+lanes])))
		}
	}
	if cap(b.inv) < n*lanes {
		b.inv = make([]float64, n*lanes)
	}
	inv := b.inv[:n*lanes]
	var one [lanes]float64
	for l := range one {
		one[l] = 1
	}
	for i := 0; i+lanes <= len(most); i += lanes {
		m := factorOf(ld(most[i : i+lanes]))
		st(most[i:i+lanes], m)
		st(inv[i:i+lanes], ld(one[:]).Div(m))
	}
	for i := 0; i+lanes <= len(inv); i += lanes {
		st(root[i:i+lanes], ld(root[i:i+lanes]).Mul(ld(inv[i:i+lanes])))
	}
	for h := 0; h < n; h++ {
		row := cells(edge, h*n, h*n+n)
		for i := 0; i+lanes <= len(inv); i += lanes {
			st(row[i:i+lanes], ld(row[i:i+lanes]).Mul(ld(inv[i:i+lanes])))
		}
	}
	for l := range lanes {
		logScale, kept := 0.0, 1.0
		for i := l; i < len(removed); i += lanes {
			if p := kept * removed[i]; p > 1e-150 && p < 1e150 {
				kept = p
			} else {
				logScale += math.Log(kept) + math.Log(removed[i])
				kept = 1
			}
		}
		b.logScale[l] = logScale + math.Log(kept)
	}
}

// posteriors copies lane l's attachment posteriors to edge (n²) and root
// (n), as Chart.AttachmentPosteriors has them.
func (b *laneChart) posteriors(l int, edge, root []float64) {
	for i := range edge[:b.n*b.n] {
		edge[i] = b.edgePost[i*lanes+l]
	}
	for i := range root[:b.n] {
		root[i] = b.rootPost[i*lanes+l]
	}
}

// addCounts is Chart.AddCounts (weight 1) of lane l, whose tags are tags.
func (b *laneChart) addCounts(l int, tags []int, counts *Params) {
	n := b.n
	t := counts.T
	for h, th := range tags {
		counts.Root[th] += b.rootPost[h*lanes+l]
		left := counts.Child[(th*2+Left)*t : (th*2+Left)*t+t]
		for d := 0; d < h; d++ {
			left[tags[d]] += b.edgePost[(h*n+d)*lanes+l]
		}
		right := counts.Child[(th*2+Right)*t : (th*2+Right)*t+t]
		for d := h + 1; d < n; d++ {
			right[tags[d]] += b.edgePost[(h*n+d)*lanes+l]
		}
		for k := 0; k < 4; k++ {
			counts.Stop[th*4+k] += b.stopPost[(h*4+k)*lanes+l]
			counts.Cont[th*4+k] += b.contPost[(h*4+k)*lanes+l]
		}
	}
}

// logZ is lane l's log Z after inside, and whether the scalar chart
// would have taken it as it is (a normal Z, which its settle leaves
// alone).
func (b *laneChart) logZ(l int) (float64, bool) {
	z := b.z[l]
	return math.Log(z) + b.logScale[l], normal(z)
}

// usable says whether lane l's posteriors after outside are all finite
// (their sum is), and so, every item and adjoint having been finite,
// equal to the scalar chart's (whose skipped zero adjoints add exactly 0
// then).
func (b *laneChart) usable(l int) bool {
	return !math.IsNaN(b.sum[l]) && !math.IsInf(b.sum[l], 0)
}

// cell is the lanes of cell i of table t; cells those of cells lo..hi−1.
func cell(t []float64, i int) []float64       { return t[i*lanes : i*lanes+lanes] }
func cells(t []float64, lo, hi int) []float64 { return t[lo*lanes : hi*lanes] }

// vecDot2 is (Σ a[i]·b[i], Σ c[i]·d[i]) over the cells of a, lane by lane,
// each sum taken in order from 0 as Chart's dot takes it; two at once,
// so that one sum's additions wait on the other's less.
func vecDot2(a, b, c, d []float64) (vec, vec) {
	b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
	var s, t vec
	for i := 0; i+lanes <= len(a); i += lanes {
		s = s.Add(ld(a[i : i+lanes]).Mul(ld(b[i : i+lanes])))
		t = t.Add(ld(c[i : i+lanes]).Mul(ld(d[i : i+lanes])))
	}
	return s, t
}

// vecAxpy2 adds f·x to y and f·x2 to y2, cell by cell, as Chart's axpy does.
func vecAxpy2(f vec, x, y, x2, y2 []float64) {
	x, x2, y2 = x[:len(y)], x2[:len(y)], y2[:len(y)]
	for i := 0; i+lanes <= len(y); i += lanes {
		st(y[i:i+lanes], ld(y[i:i+lanes]).Add(f.Mul(ld(x[i:i+lanes]))))
		st(y2[i:i+lanes], ld(y2[i:i+lanes]).Add(f.Mul(ld(x2[i:i+lanes]))))
	}
}

// inside is Chart.inside (sum-product) over every lane.
func (b *laneChart) inside() {
	n := b.n
	stop, cont, edge := b.stop, b.cont, b.edge
	rs, rsT, rc, ls, lsT, lc, ir, il := b.rs, b.rsT, b.rc, b.ls, b.lsT, b.lc, b.ir, b.il
	for h := 0; h < n; h++ {
		hh := h*n + h
		copy(cell(rs, hh), cell(stop, h*4+Right*2+Adj))
		copy(cell(rsT, hh), cell(stop, h*4+Right*2+Adj))
		copy(cell(rc, hh), cell(cont, h*4+Right*2+Adj))
		copy(cell(ls, hh), cell(stop, h*4+Left*2+Adj))
		copy(cell(lsT, hh), cell(stop, h*4+Left*2+Adj))
		copy(cell(lc, hh), cell(cont, h*4+Left*2+Adj))
	}
	for w := 1; w < n; w++ {
		for h := 0; h+w < n; h++ {
			d := h + w
			// IR[h][d] = edge · Σ_k Rc[h][k]·Ls[d][k+1], IL[d][h] likewise.
			r, l := vecDot2(cells(rc, h*n+h, h*n+d), cells(ls, d*n+h+1, d*n+d+1),
				cells(rs, h*n+h, h*n+d), cells(lc, d*n+h+1, d*n+d+1))
			st(cell(ir, h*n+d), ld(cell(edge, h*n+d)).Mul(r))
			st(cell(il, d*n+h), ld(cell(edge, d*n+h)).Mul(l))
		}
		for h := 0; h+w < n; h++ {
			j := h + w
			// R[h][j] = Σ_c IR[h][c]·Rs[c][j], L[j][h] likewise.
			r, l := vecDot2(cells(ir, h*n+h+1, h*n+j+1), cells(rsT, j*n+h+1, j*n+j+1),
				cells(il, j*n+h, j*n+j), cells(lsT, h*n+h, h*n+j))
			rsv := r.Mul(ld(cell(stop, h*4+Right*2+NonAdj)))
			st(cell(rs, h*n+j), rsv)
			st(cell(rsT, j*n+h), rsv)
			st(cell(rc, h*n+j), r.Mul(ld(cell(cont, h*4+Right*2+NonAdj))))
			lsv := l.Mul(ld(cell(stop, j*4+Left*2+NonAdj)))
			st(cell(ls, j*n+h), lsv)
			st(cell(lsT, h*n+j), lsv)
			st(cell(lc, j*n+h), l.Mul(ld(cell(cont, j*4+Left*2+NonAdj))))
		}
	}
	var z vec
	for r := 0; r < n; r++ {
		z = z.Add(ld(cell(b.root, r)).Mul(ld(cell(ls, r*n))).Mul(ld(cell(rs, r*n+n-1))))
	}
	z.Store(&b.z)
}

// addVec adds v to the lanes of a cell.
func addVec(c []float64, v vec) { st(c, ld(c).Add(v)) }

// outside is Chart.Outside over every lane (each seeded with its own
// 1/Z; a lane whose Z is not usable gives posteriors nobody reads).
func (b *laneChart) outside() {
	n := b.n
	sq := n * n * lanes
	stop, cont, edge := b.stop, b.cont, b.edge
	rs, rsT, rc, ls, lsT, lc, ir, il := b.rs, b.rsT, b.rc, b.ls, b.lsT, b.lc, b.ir, b.il
	brs, brsT, brc, bls, blsT, blc, bir, bil := b.brs, b.brsT, b.brc, b.bls, b.blsT, b.blc, b.bir, b.bil
	stopPost, contPost := b.stopPost, b.contPost
	for _, t := range [...][]float64{brs, brsT, brc, bls, blsT, blc, bir, bil, b.edgePost} {
		clear(t[:sq])
	}
	clear(stopPost[:4*n*lanes])
	clear(contPost[:4*n*lanes])
	var inv [lanes]float64
	for l, z := range b.z {
		inv[l] = 1 / z
	}
	g := ld(inv[:])
	for r := 0; r < n; r++ {
		root, lr, rr := ld(cell(b.root, r)), ld(cell(ls, r*n)), ld(cell(rs, r*n+n-1))
		st(cell(b.rootPost, r), root.Mul(lr).Mul(rr).Mul(g))
		addVec(cell(bls, r*n), root.Mul(rr).Mul(g))
		addVec(cell(brs, r*n+n-1), root.Mul(lr).Mul(g))
	}
	for w := n - 1; w >= 1; w-- {
		for h := 0; h+w < n; h++ {
			j := h + w
			d := h*4 + Right*2 + NonAdj
			bs := ld(cell(brs, h*n+j)).Add(ld(cell(brsT, j*n+h)))
			bc := ld(cell(brc, h*n+j))
			addVec(cell(stopPost, d), ld(cell(rs, h*n+j)).Mul(bs))
			addVec(cell(contPost, d), ld(cell(rc, h*n+j)).Mul(bc))
			br := bs.Mul(ld(cell(stop, d))).Add(bc.Mul(ld(cell(cont, d))))
			vecAxpy2(br, cells(rsT, j*n+h+1, j*n+j+1), cells(bir, h*n+h+1, h*n+j+1),
				cells(ir, h*n+h+1, h*n+j+1), cells(brsT, j*n+h+1, j*n+j+1))
			d = j*4 + Left*2 + NonAdj
			bs = ld(cell(bls, j*n+h)).Add(ld(cell(blsT, h*n+j)))
			bc = ld(cell(blc, j*n+h))
			addVec(cell(stopPost, d), ld(cell(ls, j*n+h)).Mul(bs))
			addVec(cell(contPost, d), ld(cell(lc, j*n+h)).Mul(bc))
			bl := bs.Mul(ld(cell(stop, d))).Add(bc.Mul(ld(cell(cont, d))))
			vecAxpy2(bl, cells(lsT, h*n+h, h*n+j), cells(bil, j*n+h, j*n+j),
				cells(il, j*n+h, j*n+j), cells(blsT, h*n+h, h*n+j))
		}
		for h := 0; h+w < n; h++ {
			d := h + w
			g := ld(cell(bir, h*n+d))
			st(cell(b.edgePost, h*n+d), ld(cell(ir, h*n+d)).Mul(g))
			ge := g.Mul(ld(cell(edge, h*n+d)))
			vecAxpy2(ge, cells(ls, d*n+h+1, d*n+d+1), cells(brc, h*n+h, h*n+d),
				cells(rc, h*n+h, h*n+d), cells(bls, d*n+h+1, d*n+d+1))
			g = ld(cell(bil, d*n+h))
			st(cell(b.edgePost, d*n+h), ld(cell(il, d*n+h)).Mul(g))
			ge = g.Mul(ld(cell(edge, d*n+h)))
			vecAxpy2(ge, cells(lc, d*n+h+1, d*n+d+1), cells(brs, h*n+h, h*n+d),
				cells(rs, h*n+h, h*n+d), cells(blc, d*n+h+1, d*n+d+1))
		}
	}
	for h := 0; h < n; h++ {
		hh := h*n + h
		st(cell(stopPost, h*4+Right*2+Adj), ld(cell(rs, hh)).Mul(ld(cell(brs, hh)).Add(ld(cell(brsT, hh)))))
		st(cell(contPost, h*4+Right*2+Adj), ld(cell(rc, hh)).Mul(ld(cell(brc, hh))))
		st(cell(stopPost, h*4+Left*2+Adj), ld(cell(ls, hh)).Mul(ld(cell(bls, hh)).Add(ld(cell(blsT, hh)))))
		st(cell(contPost, h*4+Left*2+Adj), ld(cell(lc, hh)).Mul(ld(cell(blc, hh))))
	}
	var sum vec
	for _, t := range [...][]float64{b.edgePost[:sq], b.rootPost[:n*lanes], stopPost[:4*n*lanes], contPost[:4*n*lanes]} {
		for i := 0; i+lanes <= len(t); i += lanes {
			sum = sum.Add(ld(t[i : i+lanes]))
		}
	}
	sum.Store(&b.sum)
}
