package dmv

import (
	"math"
	"slices"

	"github.com/grind-nlp/grind/internal/vec8"
	"github.com/grind-nlp/grind/stages/memory"
)

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

	tags []int // [i·lanes + lane]: each lane's sentence

	// Potentials (load, then scale).
	root, edge, stop, cont []float64
	logScale, kept         [lanes]float64 // log of the factors scaling removed: logScale + log kept

	rs, rsT, rc, ls, lsT, lc, ir, il         []float64      // inside items
	brs, brsT, brc, bls, blsT, blc, bir, bil []float64      // their adjoints
	z, logZ8                                 [lanes]float64 // Z and log Z, after inside

	edgePost, rootPost, stopPost, contPost []float64
	capacity                               int

	removed []float64      // the factors scaling removed, 3n cells
	inv     []float64      // scale's 1/factor of each word's attachments
	sum     [lanes]float64 // of every posterior, after outside
}

func (b *laneChart) grow(n int) {
	if n <= b.capacity {
		return
	}
	// Written when made: the outside pass reads its tables first
	// (memory.Zeroed).
	sq := n * n * lanes
	f := func() []float64 { return memory.Zeroed[float64](sq) }
	v := func(k int) []float64 { return memory.Zeroed[float64](k * n * lanes) }
	b.root, b.rootPost = v(1), v(1)
	b.stop, b.cont, b.stopPost, b.contPost = v(4), v(4), v(4), v(4)
	b.edge, b.edgePost = f(), f()
	b.rs, b.rsT, b.rc, b.ls, b.lsT, b.lc, b.ir, b.il = f(), f(), f(), f(), f(), f(), f(), f()
	b.brs, b.brsT, b.brc, b.bls, b.blsT, b.blc, b.bir, b.bil = f(), f(), f(), f(), f(), f(), f(), f()
	b.tags, b.removed, b.inv = make([]int, n*lanes), v(3), v(1)
	b.capacity = n
}

// setLength readies the chart for a batch of sentences of n tags.
func (b *laneChart) setLength(n int) {
	b.grow(n)
	b.n = n
}

// setTags puts sentence tags (of the batch's length) in lane l.
func (b *laneChart) setTags(l int, tags []int) {
	for i, t := range tags[:b.n] {
		b.tags[i*lanes+l] = t
	}
}

// padTags fills lanes from..lanes−1 with lane from−1's sentence, so that
// every lane of a short batch holds numbers (its results unread); lanes
// 0..from−1 are the batch's.
func (b *laneChart) padTags(from int) {
	for i := 0; i < b.n*lanes; i += lanes {
		for l := from; l < lanes; l++ {
			b.tags[i+l] = b.tags[i+from-1]
		}
	}
}

// load sets every lane's potentials for its tags, as Chart.Load
// (loadPotentials, then the part of scale that tab holds) does: each
// edge also multiplied by dist[|h−d|] when dist is not nil and by its
// lane's factor when f is not nil (f[l]: n² edges, then n roots:
// LoadFactored's; a padded lane takes the batch's last). The stops and
// conts come scaled from tab; scale finishes the attachments.
func (b *laneChart) load(tab *laneTables, w *Params, dist []float64, f [][]float64) {
	n, T, tags := b.n, tab.t, b.tags
	plain := dist == nil && f == nil
	child := tab.child // an edge is child·q at once where nothing comes between
	if !plain {
		child = w.Child
	}
	removed := b.removed[:3*n*lanes] // s of each half-head, then scale's
	var q [2][lanes]float64
	for h := 0; h < n; h++ {
		th := (*[lanes]int)(tags[h*lanes:])
		for dir := Left; dir <= Right; dir++ {
			side := tab.side[:2*T]
			if dir == Left && h == 0 || dir == Right && h == n-1 {
				side = tab.side[2*T:]
			}
			d := (h*4 + dir*2) * lanes
			stop, cont := (*[2 * lanes]float64)(b.stop[d:]), (*[2 * lanes]float64)(b.cont[d:])
			s := (*[lanes]float64)(removed[(h*2+dir)*lanes:])
			for l, t := range th {
				hh := &side[t*2+dir]
				stop[l], stop[lanes+l] = hh.stop[Adj], hh.stop[NonAdj]
				cont[l], cont[lanes+l] = hh.cont[Adj], hh.cont[NonAdj]
				s[l] = hh.s
			}
			if !plain { // the edges take q themselves
				for l, t := range th {
					q[dir][l] = side[t*2+dir].q
				}
			}
		}
		root := (*[lanes]float64)(b.root[h*lanes:])
		for l, t := range th {
			root[l] = w.Root[t]
		}
		for d := 0; d < n; d++ {
			row := (*[lanes]float64)(b.edge[(h*n+d)*lanes:])
			if d == h {
				*row = [lanes]float64{}
				continue
			}
			dir := Right
			if d < h {
				dir = Left
			}
			td := (*[lanes]int)(tags[d*lanes:])
			for l, t := range th {
				row[l] = child[(t*2+dir)*T+td[l]]
			}
			if plain {
				continue
			}
			for l := range row {
				if dist != nil {
					row[l] *= dist[abs(h-d)]
				}
				if f != nil {
					row[l] *= f[min(l, len(f)-1)][h*n+d]
				}
				row[l] *= q[dir][l]
			}
		}
		if f != nil {
			for l := range root {
				root[l] *= f[min(l, len(f)-1)][n*n+h]
			}
		}
	}
}

// scale is the rest of Chart.scale over every lane: each word's
// attachments divided by their largest (a lane whose factor is no usable
// number divides by 1, which changes nothing, where Chart.scale skips
// it), and the running product of the factors removed (the half-heads'
// s, then these), kept lane by lane in the factors' order.
func (b *laneChart) scale() {
	n := b.n
	edge, root := b.edge, b.root
	removed := b.removed[:3*n*lanes]
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
	inv := b.inv[:n*lanes]
	one := vec8.Broadcast(1)
	for i := 0; i+lanes <= len(most); i += lanes {
		m := factorOf(ld(most[i : i+lanes]))
		st(most[i:i+lanes], m)
		st(inv[i:i+lanes], one.Div(m))
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
	// The running product, every lane at once while every lane's stays
	// within (1e-150, 1e150), where Chart.scale takes no logarithm; a lane
	// whose product leaves it takes Chart.scale's logarithms, lane by lane.
	kept, in := one, vec8.AllTrue()
	lo, hi := vec8.Broadcast(1e-150), vec8.Broadcast(1e150)
	for i := 0; i < len(removed); i += lanes {
		kept = kept.Mul(ld(removed[i : i+lanes]))
		in = in.And(kept.Greater(lo)).And(hi.Greater(kept))
	}
	kept.Store(&b.kept)
	b.logScale = [lanes]float64{}
	if in.ToBits() == 1<<lanes-1 {
		return
	}
	vec8.Settle()
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
		b.logScale[l], b.kept[l] = logScale, kept
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

// addCounts is Chart.AddCounts (weight 1) of the lanes use (a list of
// lanes), head by head: each use lane's posteriors of head h added to
// the counts of its tag, a row of the tables at a time.
func (b *laneChart) addCounts(use []int, counts *Params) {
	n, T, tags := b.n, counts.T, b.tags
	for h := 0; h < n; h++ {
		th := (*[lanes]int)(tags[h*lanes:])
		root := (*[lanes]float64)(b.rootPost[h*lanes:])
		stop, cont := (*[4 * lanes]float64)(b.stopPost[h*4*lanes:]), (*[4 * lanes]float64)(b.contPost[h*4*lanes:])
		for _, l := range use {
			l &= lanes - 1 // (it is a lane: no bounds checks below)
			t := th[l]
			counts.Root[t] += root[l]
			cs, cc := (*[4]float64)(counts.Stop[t*4:]), (*[4]float64)(counts.Cont[t*4:])
			for k := range 4 { // dir·2 + valence
				cs[k] += stop[k*lanes+l]
				cc[k] += cont[k*lanes+l]
			}
			left, right := counts.Child[(t*2+Left)*T:][:T], counts.Child[(t*2+Right)*T:][:T]
			for d := 0; d < h; d++ {
				left[tags[d*lanes+l]] += b.edgePost[(h*n+d)*lanes+l]
			}
			for d := h + 1; d < n; d++ {
				right[tags[d*lanes+l]] += b.edgePost[(h*n+d)*lanes+l]
			}
		}
	}
}

// laneTables are the model's potentials as the lane chart gathers them,
// with the part of Chart.scale that depends on a word's tag alone done
// once an E-step for the T tags instead of for every word of every
// sentence: a half-head's stops divided by their largest (s), its conts
// by theirs (q), and q moved into its edges. Each number is the one
// Chart.scale computes, by the same operations.
type laneTables struct {
	t     int
	child []float64  // child(h, dir, c)·q(h, dir): a plain edge, scaled
	side  []halfHead // [(first·T + h)·2 + dir]; first: the sentence's first word's left or last word's right
}

// halfHead is a tag's potentials on one side, scaled: stop and cont by
// valence, s the factor scaling removed, q the cont factor moved into
// the edges (1 on a first side, which has no edges).
type halfHead struct {
	stop, cont [2]float64
	s, q       float64
}

// set makes the tables of weight table w (a plain DMV's).
func (t *laneTables) set(w *Params) {
	T := w.T
	t.t = T
	t.side = slices.Grow(t.side[:0], 4*T)[:4*T]
	t.child = slices.Grow(t.child[:0], len(w.Child))[:len(w.Child)]
	for first := range 2 {
		for h := range T {
			for dir := Left; dir <= Right; dir++ {
				stop := w.Stop[DecisionIndex(h, dir, Adj):][:2]
				cont := w.Cont[DecisionIndex(h, dir, Adj):][:2]
				s := stop[Adj]
				if first == 0 {
					s = larger(s, stop[NonAdj])
				}
				s = factor(s)
				side := &t.side[(first*T+h)*2+dir]
				*side = halfHead{stop: [2]float64{stop[Adj] / s, stop[NonAdj] / s}, cont: [2]float64{cont[Adj], cont[NonAdj]}, s: s, q: 1}
				if first == 1 {
					continue
				}
				q := factor(larger(cont[Adj], cont[NonAdj]))
				side.cont, side.q = [2]float64{cont[Adj] / q, cont[NonAdj] / q}, q
				row := w.Child[w.ChildIndex(h, dir, 0):][:T]
				for c, e := range row {
					t.child[w.ChildIndex(h, dir, c)] = e * q
				}
			}
		}
	}
}

// factor is x where it is a positive number (a factor scaling may divide
// by) and 1 elsewhere, as FactorOf is lane by lane.
func factor(x float64) float64 {
	if x > 0 && x <= math.MaxFloat64 {
		return x
	}
	return 1
}

// logZ is lane l's log Z after inside, and whether the scalar chart
// would have taken it as it is (a normal Z, which its settle leaves
// alone).
func (b *laneChart) logZ(l int) (float64, bool) {
	return b.logZ8[l], normal(b.z[l])
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
		// (Register moves: a copy of 64 bytes is a call to memmove.)
		rs0, ls0 := ld(cell(stop, h*4+Right*2+Adj)), ld(cell(stop, h*4+Left*2+Adj))
		st(cell(rs, hh), rs0)
		st(cell(rsT, hh), rs0)
		st(cell(rc, hh), ld(cell(cont, h*4+Right*2+Adj)))
		st(cell(ls, hh), ls0)
		st(cell(lsT, hh), ls0)
		st(cell(lc, hh), ld(cell(cont, h*4+Left*2+Adj)))
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
	// Every lane's log Z at once, as Chart.LogZ has it: log z + (the
	// logarithms scale kept + log kept).
	vec8.Log(z).Add(ld(b.logScale[:]).Add(vec8.Log(ld(b.kept[:])))).Store(&b.logZ8)
}

// take is the lanes of a cell, which it clears.
func take(c []float64) vec {
	v := ld(c)
	clear(c[:lanes])
	return v
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
	// The adjoints start at 0: each cell is taken (read and cleared) once
	// it is final, so the tables are 0 again after every pass. The
	// posteriors of attachments are each set, the diagonal's cleared.
	for h := 0; h < n; h++ {
		clear(cell(b.edgePost, h*n+h))
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
			bs := take(cell(brs, h*n+j)).Add(take(cell(brsT, j*n+h)))
			bc := take(cell(brc, h*n+j))
			addVec(cell(stopPost, d), ld(cell(rs, h*n+j)).Mul(bs))
			addVec(cell(contPost, d), ld(cell(rc, h*n+j)).Mul(bc))
			br := bs.Mul(ld(cell(stop, d))).Add(bc.Mul(ld(cell(cont, d))))
			vecAxpy2(br, cells(rsT, j*n+h+1, j*n+j+1), cells(bir, h*n+h+1, h*n+j+1),
				cells(ir, h*n+h+1, h*n+j+1), cells(brsT, j*n+h+1, j*n+j+1))
			d = j*4 + Left*2 + NonAdj
			bs = take(cell(bls, j*n+h)).Add(take(cell(blsT, h*n+j)))
			bc = take(cell(blc, j*n+h))
			addVec(cell(stopPost, d), ld(cell(ls, j*n+h)).Mul(bs))
			addVec(cell(contPost, d), ld(cell(lc, j*n+h)).Mul(bc))
			bl := bs.Mul(ld(cell(stop, d))).Add(bc.Mul(ld(cell(cont, d))))
			vecAxpy2(bl, cells(lsT, h*n+h, h*n+j), cells(bil, j*n+h, j*n+j),
				cells(il, j*n+h, j*n+j), cells(blsT, h*n+h, h*n+j))
		}
		for h := 0; h+w < n; h++ {
			d := h + w
			g := take(cell(bir, h*n+d))
			st(cell(b.edgePost, h*n+d), ld(cell(ir, h*n+d)).Mul(g))
			ge := g.Mul(ld(cell(edge, h*n+d)))
			vecAxpy2(ge, cells(ls, d*n+h+1, d*n+d+1), cells(brc, h*n+h, h*n+d),
				cells(rc, h*n+h, h*n+d), cells(bls, d*n+h+1, d*n+d+1))
			g = take(cell(bil, d*n+h))
			st(cell(b.edgePost, d*n+h), ld(cell(il, d*n+h)).Mul(g))
			ge = g.Mul(ld(cell(edge, d*n+h)))
			vecAxpy2(ge, cells(lc, d*n+h+1, d*n+d+1), cells(brs, h*n+h, h*n+d),
				cells(rs, h*n+h, h*n+d), cells(blc, d*n+h+1, d*n+d+1))
		}
	}
	for h := 0; h < n; h++ {
		hh := h*n + h
		st(cell(stopPost, h*4+Right*2+Adj), ld(cell(rs, hh)).Mul(take(cell(brs, hh)).Add(take(cell(brsT, hh)))))
		st(cell(contPost, h*4+Right*2+Adj), ld(cell(rc, hh)).Mul(take(cell(brc, hh))))
		st(cell(stopPost, h*4+Left*2+Adj), ld(cell(ls, hh)).Mul(take(cell(bls, hh)).Add(take(cell(blsT, hh)))))
		st(cell(contPost, h*4+Left*2+Adj), ld(cell(lc, hh)).Mul(take(cell(blc, hh))))
	}
	var sum vec
	for _, t := range [...][]float64{b.edgePost[:sq], b.rootPost[:n*lanes], stopPost[:4*n*lanes], contPost[:4*n*lanes]} {
		for i := 0; i+lanes <= len(t); i += lanes {
			sum = sum.Add(ld(t[i : i+lanes]))
		}
	}
	sum.Store(&b.sum)
}
