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

	tags [][lanes]uint16 // [i][lane]: each lane's sentence (own's rows, or a plan's)
	own  [][lanes]uint16

	// Potentials (load, then scale).
	root, edge     []cell
	dec            []decision // [h·4 + dir·2 + valence]
	logScale, kept cell       // log of the factors scaling removed: logScale + log kept

	// Inside items with their adjoints, Chart's rs, rc, ls, lc ([h·n + j]
	// for R[h][j], [j·n + h] for L[j][h]), the transposes rsT, lsT and
	// the incomplete ir, il, each item's cell beside its adjoint's.
	r, l           []half
	rT, lT, ir, il []item
	z, logZ8       cell // Z and log Z, after inside

	edgePost, rootPost []cell
	capacity           int

	// Two child valences (Chart's twoChild): a later child's edges, the
	// attachments' parts by later children, and the posteriors by first
	// and later children.
	twoChild             bool
	more, irMore, ilMore []cell
	firstPost, morePost  []cell
	twoChildCapacity     int
	attach               [2][]cell // edge and more, for attachments

	removed []cell // the factors scaling removed, 3n cells
	inv     []cell // scale's 1/factor of each word's attachments
	factors []cell // load's attachment factors, every lane's side by side
	sum     cell   // of every posterior, after outside
}

// cell is one chart cell of every lane. The tables are slices of cells,
// not of numbers, so that a cell is &t[i], one bounds check and no
// multiplication, and a loop over cells ranges over a slice (its checks
// hoisted); with t[i·lanes:] the cells' offsets and checks took about a
// fifth of the inside and outside passes' time on short sentences.
type cell = [lanes]float64

// half is a cell of R or L (a half-constituent) with its adjoints: the
// head's stop taken (s) or its cont (c); item is a cell of the others.
// The items a loop of inside or outside reads and writes together sit
// together, a table for each pair of slices the loop walks: with a
// table for each item and each adjoint, the loops' sixteen tables left
// Go's register allocator few registers, and the inner loops' counters
// went through the stack.
type (
	half struct{ s, c, bs, bc cell }
	item struct{ v, b cell }
)

// decision is a half-head's stop and cont (one valence of one side of a
// word), as scale leaves them, and their posteriors.
type decision struct{ stop, cont, stopPost, contPost cell }

func (b *laneChart) grow(n int) {
	if n <= b.capacity {
		return
	}
	// Written when made (memory.Zeroed): the outside pass reads its
	// adjoints before it writes them.
	sq := n * n
	f := func() []cell { return memory.Zeroed[cell](sq) }
	v := func(k int) []cell { return memory.Zeroed[cell](k * n) }
	b.root, b.rootPost = v(1), v(1)
	b.dec = memory.Zeroed[decision](4 * n)
	b.edge, b.edgePost = f(), f()
	b.r, b.l = memory.Zeroed[half](sq), memory.Zeroed[half](sq)
	b.rT, b.lT, b.ir, b.il = memory.Zeroed[item](sq), memory.Zeroed[item](sq), memory.Zeroed[item](sq), memory.Zeroed[item](sq)
	b.own, b.removed, b.inv = make([][lanes]uint16, n), v(3), v(1)
	b.attach[0] = b.edge
	b.capacity = n
}

// growTwoChild makes the tables of two child valences for n tokens.
func (b *laneChart) growTwoChild(n int) {
	if n <= b.twoChildCapacity {
		return
	}
	f := func() []cell { return memory.Zeroed[cell](n * n) }
	b.more, b.irMore, b.ilMore, b.firstPost, b.morePost = f(), f(), f(), f(), f()
	b.attach[1] = b.more
	b.twoChildCapacity = n
}

// attachments are the batch's tables of edges: edge, and with two child
// valences more (Chart.attachments).
func (b *laneChart) attachments() [][]cell {
	if b.twoChild {
		return b.attach[:]
	}
	return b.attach[:1]
}

// setLength readies the chart for a batch of sentences of n tags, whose
// tags putLane and padLanes put in its own rows (b.tags).
func (b *laneChart) setLength(n int) {
	b.grow(n)
	b.n = n
	b.tags = b.own[:n]
}

// setRows readies it for a batch whose lanes' tags are rows, laid out
// and padded already (a plan's).
func (b *laneChart) setRows(rows [][lanes]uint16) {
	b.grow(len(rows))
	b.n = len(rows)
	b.tags = rows
}

// putLane puts a sentence's tags in lane l of rows, one a row (a
// corpus's tag numbers fit in 16 bits: corpus.go).
func putLane(rows [][lanes]uint16, l int, tags []int) {
	for i, t := range tags[:len(rows)] {
		rows[i][l] = uint16(t)
	}
}

// padLanes fills lanes from..lanes−1 of rows with lane from−1's
// sentence, so that every lane of a short batch holds numbers (its
// results unread); lanes 0..from−1 are the batch's.
func padLanes(rows [][lanes]uint16, from int) {
	for i := range rows {
		th := &rows[i]
		for l := from; l < lanes; l++ {
			th[l] = th[from-1]
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
	C := w.V.Child
	if b.twoChild = C == 2; b.twoChild {
		b.growTwoChild(n)
	}
	plain := dist == nil && f == nil
	child := tab.child // an edge is child·q at once where nothing comes between
	if !plain {
		child = w.Child
	}
	removed := b.removed[:3*n] // s of each half-head, then scale's
	var q [2]cell
	var row0 [2][lanes]int // where each lane's row of edges starts in child, by direction
	// Each lane's factors (a padded lane the batch's last) laid side by
	// side before the loop below loads them a cell at once: a cell
	// gathered lane by lane just before its load waits on eight stores.
	var fc []cell
	if f != nil {
		b.factors = slices.Grow(b.factors[:0], n*n+n)[:n*n+n]
		fc = b.factors
		for l := range lanes {
			for k, v := range f[min(l, len(f)-1)][:n*n+n] {
				fc[k][l] = v
			}
		}
	}
	edges := b.attachments() // the rows dist, the factors and q multiply
	for h := 0; h < n; h++ {
		th := &tags[h]
		for l, t := range th {
			row0[Left][l], row0[Right][l] = (int(t)*2+Left)*C*T, (int(t)*2+Right)*C*T
		}
		for dir := Left; dir <= Right; dir++ {
			side := tab.side[:2*T]
			if dir == Left && h == 0 || dir == Right && h == n-1 {
				side = tab.side[2*T:]
			}
			d := h*4 + dir*2
			adj, nonAdj := &b.dec[d+Adj], &b.dec[d+NonAdj]
			s := &removed[h*2+dir]
			for l, t := range th {
				hh := &side[int(t)*2+dir]
				adj.stop[l], nonAdj.stop[l] = hh.stop[Adj], hh.stop[NonAdj]
				adj.cont[l], nonAdj.cont[l] = hh.cont[Adj], hh.cont[NonAdj]
				s[l] = hh.s
			}
			if !plain { // the edges take q themselves
				for l, t := range th {
					q[dir][l] = side[int(t)*2+dir].q
				}
			}
		}
		root := &b.root[h]
		for l, t := range th {
			root[l] = w.Root[t]
		}
		gather(b.edge[h*n:h*n+h], child, &row0[Left], tags[:h])
		b.edge[h*n+h] = cell{}
		gather(b.edge[h*n+h+1:h*n+n], child, &row0[Right], tags[h+1:n])
		if b.twoChild { // a later child's row follows a first one's
			var row1 [2][lanes]int
			for dir := range row1 {
				for l, at := range row0[dir] {
					row1[dir][l] = at + T
				}
			}
			gather(b.more[h*n:h*n+h], child, &row1[Left], tags[:h])
			b.more[h*n+h] = cell{}
			gather(b.more[h*n+h+1:h*n+n], child, &row1[Right], tags[h+1:n])
		}
		// Each lane's edge times dist, its factor and q, in that order,
		// all lanes at once.
		for d := 0; d < n && !plain; d++ {
			if d == h {
				continue
			}
			dir := Right
			if d < h {
				dir = Left
			}
			for _, edge := range edges {
				row := &edge[h*n+d]
				e := ld(row)
				if dist != nil {
					e = e.Mul(vec8.Broadcast(dist[abs(h-d)]))
				}
				if f != nil {
					e = e.Mul(ld(&fc[h*n+d]))
				}
				st(row, e.Mul(ld(&q[dir])))
			}
		}
		if f != nil {
			st(root, ld(root).Mul(ld(&fc[n*n+h])))
		}
	}
}

// scale is the rest of Chart.scale over every lane: each word's
// attachments divided by their largest (a lane whose factor is no usable
// number divides by 1, which changes nothing, where Chart.scale skips
// it) — the root here, the edges by inside, which reads each once
// (inv holds the factors' inverses) — and the running product of the
// factors removed (the half-heads' s, then these), kept lane by lane in
// the factors' order.
func (b *laneChart) scale() {
	n := b.n
	root := b.root
	removed := b.removed[:3*n]
	// Each word's attachments divided by their largest, row by row (the
	// largest of numbers is the same in any order).
	most := removed[2*n : 3*n]
	copy(most, root[:n])
	for _, e := range b.attachments() {
		for h := 0; h < n; h++ {
			row := e[h*n : h*n+n]
			for i := range most {
				st(&most[i], ld(&most[i]).Max(ld(&row[i])))
			}
		}
	}
	inv := b.inv[:n]
	one := vec8.Broadcast(1)
	for i := range most {
		m := factorOf(ld(&most[i]))
		st(&most[i], m)
		st(&inv[i], one.Div(m))
	}
	root = root[:len(inv)]
	for i := range inv {
		st(&root[i], ld(&root[i]).Mul(ld(&inv[i])))
	}
	// The running product, every lane at once while every lane's stays
	// within (1e-150, 1e150), where Chart.scale takes no logarithm; a lane
	// whose product leaves it takes Chart.scale's logarithms, lane by lane.
	kept, in := one, vec8.AllTrue()
	lo, hi := vec8.Broadcast(1e-150), vec8.Broadcast(1e150)
	for i := range removed {
		kept = kept.Mul(ld(&removed[i]))
		in = in.And(kept.Greater(lo)).And(hi.Greater(kept))
	}
	kept.Store(&b.kept)
	b.logScale = cell{}
	if in.ToBits() == 1<<lanes-1 {
		return
	}
	vec8.Settle()
	for l := range lanes {
		logScale, kept := 0.0, 1.0
		for i := range removed {
			if p := kept * removed[i][l]; p > 1e-150 && p < 1e150 {
				kept = p
			} else {
				logScale += math.Log(kept) + math.Log(removed[i][l])
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
		edge[i] = b.edgePost[i][l]
	}
	for i := range root[:b.n] {
		root[i] = b.rootPost[i][l]
	}
}

// addCounts is Chart.AddCounts (weight 1) of the lanes use (a list of
// lanes), head by head: each use lane's posteriors of head h added to
// the counts of its tag, a row of the tables at a time.
func (b *laneChart) addCounts(use []int, counts *Params) {
	n, T, tags := b.n, counts.T, b.tags
	for h := 0; h < n; h++ {
		th := &tags[h]
		root := &b.rootPost[h]
		dec := (*[4]decision)(b.dec[h*4:])
		for _, l := range use {
			l &= lanes - 1 // (it is a lane: no bounds checks below)
			t := int(th[l])
			counts.Root[t] += root[l]
			cs, cc := (*[4]float64)(counts.Stop[t*4:]), (*[4]float64)(counts.Cont[t*4:])
			for k := range 4 { // dir·2 + valence
				cs[k] += dec[k].stopPost[l]
				cc[k] += dec[k].contPost[l]
			}
			if b.twoChild {
				b.addChildCounts(counts, b.firstPost, h, l, 0)
				b.addChildCounts(counts, b.morePost, h, l, 1)
				continue
			}
			// The plain DMV's, written out: a call here costs its E-step
			// a few per cent.
			left, right := counts.Child[(t*2+Left)*T:][:T], counts.Child[(t*2+Right)*T:][:T]
			for d := 0; d < h; d++ {
				left[tags[d][l]] += b.edgePost[h*n+d][l]
			}
			for d := h + 1; d < n; d++ {
				right[tags[d][l]] += b.edgePost[h*n+d][l]
			}
		}
	}
}

// addChildCounts adds lane l's posteriors of head h's children, post
// ([h·n + d]), to the counts of child valence v.
func (b *laneChart) addChildCounts(counts *Params, post []cell, h, l, v int) {
	n, T, tags := b.n, counts.T, b.tags
	l &= lanes - 1 // (it is a lane: no bounds checks below)
	t := int(tags[h][l])
	left, right := counts.Child[counts.ChildAt(t, Left, v, 0):][:T], counts.Child[counts.ChildAt(t, Right, v, 0):][:T]
	row := post[h*n : h*n+n]
	for d := 0; d < h; d++ {
		left[tags[d][l]] += row[d][l]
	}
	for d := h + 1; d < n; d++ {
		right[tags[d][l]] += row[d][l]
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

// set makes the tables of weight table w (a plain DMV's, or with two
// child valences).
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
				for v := range w.V.Child {
					row := w.Child[w.ChildAt(h, dir, v, 0):][:T]
					for c, e := range row {
						t.child[w.ChildAt(h, dir, v, c)] = e * q
					}
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

// dotHalves is (Σ x[i].c·y[i].s, Σ x[i].s·y[i].c) over the cells of x
// (R's) and y (L's), lane by lane, each sum taken in order from 0 as
// Chart's dot takes it; two at once, so that one sum's additions wait on
// the other's less. dotItems is (Σ a[i].v·b[i].v, Σ c[i].v·d[i].v).
func dotHalves(x, y []half) (vec, vec) {
	y = y[:len(x)]
	var s, t vec
	for i := range x {
		s = s.Add(ld(&x[i].c).Mul(ld(&y[i].s)))
		t = t.Add(ld(&x[i].s).Mul(ld(&y[i].c)))
	}
	return s, t
}

func dotItems(a, b, c, d []item) (vec, vec) {
	b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
	var s, t vec
	for i := range a {
		s = s.Add(ld(&a[i].v).Mul(ld(&b[i].v)))
		t = t.Add(ld(&c[i].v).Mul(ld(&d[i].v)))
	}
	return s, t
}

// crossAxpy adds f·y[i].v to x[i]'s adjoint and f·x[i].v to y[i]'s,
// cell by cell, as Chart's axpy does; halvesAxpy adds f·y.s to x.bc and
// f·x.c to y.bs, g·y.c to x.bs and g·x.s to y.bc (two of Chart's axpys:
// each adjoint gets its sum in the same order).
func crossAxpy(f vec, x, y []item) {
	y = y[:len(x)]
	for i := range x {
		st(&x[i].b, ld(&x[i].b).Add(f.Mul(ld(&y[i].v))))
		st(&y[i].b, ld(&y[i].b).Add(f.Mul(ld(&x[i].v))))
	}
}

func halvesAxpy(f, g vec, x, y []half) {
	y = y[:len(x)]
	for i := range x {
		x, y := &x[i], &y[i]
		st(&x.bc, ld(&x.bc).Add(f.Mul(ld(&y.s))))
		st(&y.bs, ld(&y.bs).Add(f.Mul(ld(&x.c))))
		st(&x.bs, ld(&x.bs).Add(g.Mul(ld(&y.c))))
		st(&y.bc, ld(&y.bc).Add(g.Mul(ld(&x.s))))
	}
}

// inside is Chart.inside (sum-product) over every lane, after scale.
func (b *laneChart) inside() {
	n := b.n
	dec, edge, inv := b.dec, b.edge, b.inv
	r, l, rT, lT, ir, il := b.r, b.l, b.rT, b.lT, b.ir, b.il
	for h := 0; h < n; h++ {
		hh := h*n + h
		// (Register moves: a copy of 64 bytes is a call to memmove.)
		rs0, ls0 := ld(&dec[h*4+Right*2+Adj].stop), ld(&dec[h*4+Left*2+Adj].stop)
		st(&r[hh].s, rs0)
		st(&rT[hh].v, rs0)
		st(&r[hh].c, ld(&dec[h*4+Right*2+Adj].cont))
		st(&l[hh].s, ls0)
		st(&lT[hh].v, ls0)
		st(&l[hh].c, ld(&dec[h*4+Left*2+Adj].cont))
	}
	two := b.twoChild
	for w := 1; w < n; w++ {
		for h := 0; h+w < n && two; h++ {
			b.attachTwoChild(h, h+w)
		}
		for h := 0; h+w < n && !two; h++ {
			d := h + w
			// IR[h][d] = edge · Σ_k Rc[h][k]·Ls[d][k+1], IL[d][h] likewise.
			sr, sl := dotHalves(r[h*n+h:h*n+d], l[d*n+h+1:d*n+d+1])
			// The edges divided by their dependent's factor (scale's
			// last step, here where each is read: one pass over them
			// fewer), kept for outside.
			er, el := ld(&edge[h*n+d]).Mul(ld(&inv[d])), ld(&edge[d*n+h]).Mul(ld(&inv[h]))
			st(&edge[h*n+d], er)
			st(&edge[d*n+h], el)
			st(&ir[h*n+d].v, er.Mul(sr))
			st(&il[d*n+h].v, el.Mul(sl))
		}
		for h := 0; h+w < n; h++ {
			j := h + w
			// R[h][j] = Σ_c IR[h][c]·Rs[c][j], L[j][h] likewise.
			sr, sl := dotItems(ir[h*n+h+1:h*n+j+1], rT[j*n+h+1:j*n+j+1],
				il[j*n+h:j*n+j], lT[h*n+h:h*n+j])
			dr, dl := &dec[h*4+Right*2+NonAdj], &dec[j*4+Left*2+NonAdj]
			rsv := sr.Mul(ld(&dr.stop))
			st(&r[h*n+j].s, rsv)
			st(&rT[j*n+h].v, rsv)
			st(&r[h*n+j].c, sr.Mul(ld(&dr.cont)))
			lsv := sl.Mul(ld(&dl.stop))
			st(&l[j*n+h].s, lsv)
			st(&lT[h*n+j].v, lsv)
			st(&l[j*n+h].c, sl.Mul(ld(&dl.cont)))
		}
	}
	var z vec
	for i := 0; i < n; i++ {
		z = z.Add(ld(&b.root[i]).Mul(ld(&l[i*n].s)).Mul(ld(&r[i*n+n-1].s)))
	}
	z.Store(&b.z)
	// Every lane's log Z at once, as Chart.LogZ has it: log z + (the
	// logarithms scale kept + log kept).
	vec8.Log(z).Add(ld(&b.logScale).Add(vec8.Log(ld(&b.kept)))).Store(&b.logZ8)
}

// attachTwoChild is Chart.attachTwoChild over every lane (its edges
// divided by their dependents' factors here, as inside's are).
func (b *laneChart) attachTwoChild(h, d int) {
	n, inv, r, l := b.n, b.inv, b.r, b.l
	er, el := ld(&b.edge[h*n+d]).Mul(ld(&inv[d])), ld(&b.edge[d*n+h]).Mul(ld(&inv[h]))
	mr, ml := ld(&b.more[h*n+d]).Mul(ld(&inv[d])), ld(&b.more[d*n+h]).Mul(ld(&inv[h]))
	st(&b.edge[h*n+d], er)
	st(&b.edge[d*n+h], el)
	st(&b.more[h*n+d], mr)
	st(&b.more[d*n+h], ml)
	first := er.Mul(ld(&r[h*n+h].c).Mul(ld(&l[d*n+h+1].s)))
	first2 := el.Mul(ld(&r[h*n+d-1].s).Mul(ld(&l[d*n+d].c)))
	var sr, sl vec // Σ Rc[h][k]·Ls[d][k+1] over k > h; Σ Rs[h][k]·Lc[d][k+1] over k < d − 1
	x, y := r[h*n+h+1:h*n+d], l[d*n+h+2:d*n+d+1]
	for i := range x {
		sr = sr.Add(ld(&x[i].c).Mul(ld(&y[i].s)))
	}
	x, y = r[h*n+h:h*n+d-1], l[d*n+h+1:d*n+d]
	for i := range x {
		sl = sl.Add(ld(&x[i].s).Mul(ld(&y[i].c)))
	}
	irm, ilm := mr.Mul(sr), ml.Mul(sl)
	st(&b.irMore[h*n+d], irm)
	st(&b.ilMore[d*n+h], ilm)
	st(&b.ir[h*n+d].v, first.Add(irm))
	st(&b.il[d*n+h].v, ilm.Add(first2))
}

// detachTwoChild is Chart.detachTwoChild over every lane.
func (b *laneChart) detachTwoChild(h, d int) {
	n, r, l := b.n, b.r, b.l
	hh, dd := h*n+h, d*n+d
	g := take(&b.ir[h*n+d].b)
	st(&b.edgePost[h*n+d], ld(&b.ir[h*n+d].v).Mul(g))
	st(&b.morePost[h*n+d], ld(&b.irMore[h*n+d]).Mul(g))
	e := ld(&b.edge[h*n+d])
	st(&b.firstPost[h*n+d], e.Mul(ld(&r[hh].c).Mul(ld(&l[d*n+h+1].s))).Mul(g))
	g0, g1 := g.Mul(e), g.Mul(ld(&b.more[h*n+d]))
	addVec(&r[hh].bc, g0.Mul(ld(&l[d*n+h+1].s)))
	addVec(&l[d*n+h+1].bs, g0.Mul(ld(&r[hh].c)))
	x, y := r[hh+1:h*n+d], l[d*n+h+2:d*n+d+1]
	for i := range x {
		addVec(&x[i].bc, g1.Mul(ld(&y[i].s)))
		addVec(&y[i].bs, g1.Mul(ld(&x[i].c)))
	}
	g = take(&b.il[d*n+h].b)
	st(&b.edgePost[d*n+h], ld(&b.il[d*n+h].v).Mul(g))
	st(&b.morePost[d*n+h], ld(&b.ilMore[d*n+h]).Mul(g))
	e = ld(&b.edge[d*n+h])
	st(&b.firstPost[d*n+h], e.Mul(ld(&r[h*n+d-1].s).Mul(ld(&l[dd].c))).Mul(g))
	g0, g1 = g.Mul(e), g.Mul(ld(&b.more[d*n+h]))
	addVec(&r[h*n+d-1].bs, g0.Mul(ld(&l[dd].c)))
	addVec(&l[dd].bc, g0.Mul(ld(&r[h*n+d-1].s)))
	x, y = r[hh:h*n+d-1], l[d*n+h+1:dd]
	for i := range x {
		addVec(&x[i].bs, g1.Mul(ld(&y[i].c)))
		addVec(&y[i].bc, g1.Mul(ld(&x[i].s)))
	}
}

// take is the lanes of a cell, which it clears.
func take(c *cell) vec {
	v := ld(c)
	var zero vec
	st(c, zero)
	return v
}

// addVec adds v to the lanes of a cell.
func addVec(c *cell, v vec) { st(c, ld(c).Add(v)) }

// outside is Chart.Outside over every lane (each seeded with its own
// 1/Z; a lane whose Z is not usable gives posteriors nobody reads).
func (b *laneChart) outside() {
	n := b.n
	dec, edge := b.dec, b.edge
	r, l, rT, lT, ir, il := b.r, b.l, b.rT, b.lT, b.ir, b.il
	// The adjoints start at 0: each cell is taken (read and cleared) once
	// it is final, so the tables are 0 again after every pass. The
	// posteriors of attachments are each set, the diagonal's cleared.
	var zero vec
	for h := 0; h < n; h++ {
		st(&b.edgePost[h*n+h], zero)
	}
	for i := range dec[:4*n] {
		st(&dec[i].stopPost, zero)
		st(&dec[i].contPost, zero)
	}
	g := vec8.Broadcast(1).Div(ld(&b.z)) // each lane's 1/Z
	for i := 0; i < n; i++ {
		root, lr, rr := ld(&b.root[i]), ld(&l[i*n].s), ld(&r[i*n+n-1].s)
		st(&b.rootPost[i], root.Mul(lr).Mul(rr).Mul(g))
		addVec(&l[i*n].bs, root.Mul(rr).Mul(g))
		addVec(&r[i*n+n-1].bs, root.Mul(lr).Mul(g))
	}
	two := b.twoChild
	for w := n - 1; w >= 1; w-- {
		for h := 0; h+w < n; h++ {
			j := h + w
			d := &dec[h*4+Right*2+NonAdj]
			rj := &r[h*n+j]
			bs := take(&rj.bs).Add(take(&rT[j*n+h].b))
			bc := take(&rj.bc)
			addVec(&d.stopPost, ld(&rj.s).Mul(bs))
			addVec(&d.contPost, ld(&rj.c).Mul(bc))
			br := bs.Mul(ld(&d.stop)).Add(bc.Mul(ld(&d.cont)))
			crossAxpy(br, ir[h*n+h+1:h*n+j+1], rT[j*n+h+1:j*n+j+1])
			d = &dec[j*4+Left*2+NonAdj]
			lh := &l[j*n+h]
			bs = take(&lh.bs).Add(take(&lT[h*n+j].b))
			bc = take(&lh.bc)
			addVec(&d.stopPost, ld(&lh.s).Mul(bs))
			addVec(&d.contPost, ld(&lh.c).Mul(bc))
			bl := bs.Mul(ld(&d.stop)).Add(bc.Mul(ld(&d.cont)))
			crossAxpy(bl, il[j*n+h:j*n+j], lT[h*n+h:h*n+j])
		}
		for h := 0; h+w < n && two; h++ {
			b.detachTwoChild(h, h+w)
		}
		for h := 0; h+w < n && !two; h++ {
			d := h + w
			g := take(&ir[h*n+d].b)
			st(&b.edgePost[h*n+d], ld(&ir[h*n+d].v).Mul(g))
			gr := g.Mul(ld(&edge[h*n+d]))
			g = take(&il[d*n+h].b)
			st(&b.edgePost[d*n+h], ld(&il[d*n+h].v).Mul(g))
			gl := g.Mul(ld(&edge[d*n+h]))
			halvesAxpy(gr, gl, r[h*n+h:h*n+d], l[d*n+h+1:d*n+d+1])
		}
	}
	for h := 0; h < n; h++ {
		hh := h*n + h
		dr, dl := &dec[h*4+Right*2+Adj], &dec[h*4+Left*2+Adj]
		st(&dr.stopPost, ld(&r[hh].s).Mul(take(&r[hh].bs).Add(take(&rT[hh].b))))
		st(&dr.contPost, ld(&r[hh].c).Mul(take(&r[hh].bc)))
		st(&dl.stopPost, ld(&l[hh].s).Mul(take(&l[hh].bs).Add(take(&lT[hh].b))))
		st(&dl.contPost, ld(&l[hh].c).Mul(take(&l[hh].bc)))
	}
	b.sumPosteriors()
}

// sumPosteriors adds up every posterior of every lane, for usable.
func (b *laneChart) sumPosteriors() {
	n, dec := b.n, b.dec
	var sum vec
	for _, t := range [...][]cell{b.edgePost[:n*n], b.rootPost[:n]} {
		for i := range t {
			sum = sum.Add(ld(&t[i]))
		}
	}
	for i := range dec[:4*n] {
		sum = sum.Add(ld(&dec[i].stopPost)).Add(ld(&dec[i].contPost))
	}
	sum.Store(&b.sum)
}

// gather sets each lane l of cells[d] to table[at[l]+off[d][l]], lane
// after lane, for every d. The lanes are written out: Go does not unroll
// a loop over them, and in load's loop, among its many live values, the
// loop's counter went through the stack at every lane.
func gather(cells []cell, table []float64, at *[lanes]int, off [][lanes]uint16) {
	off = off[:len(cells)]
	for d := range cells {
		c, o := &cells[d], &off[d]
		c[0] = table[at[0]+int(o[0])]
		c[1] = table[at[1]+int(o[1])]
		c[2] = table[at[2]+int(o[2])]
		c[3] = table[at[3]+int(o[3])]
		c[4] = table[at[4]+int(o[4])]
		c[5] = table[at[5]+int(o[5])]
		c[6] = table[at[6]+int(o[6])]
		c[7] = table[at[7]+int(o[7])]
	}
}

// gather writes out 8 lanes.
var _ = [1]struct{}{}[lanes-8]
