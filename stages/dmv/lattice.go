package dmv

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
)

// Lattice is a set of tag strings as an acyclic, deterministic automaton
// in layered form; LatticeChart sums over every string it spells and
// every tree of each string (contrastive estimation's neighbourhoods).
//
// Layered: every state lies at one depth, the length of every string
// that reaches it. So an arc has a string position, the depth of its
// source, and Model L's distance between a head and its child is the
// difference of their positions in the one string that holds both.
// State 0 is the start, every arc goes from a state to a higher-numbered
// one at the next depth, and arcs are sorted by source state.
// Determinism (no state with two arcs of one tag) makes every string one
// path, so no string is counted twice. Package nbhd builds lattices in
// this form from any acyclic deterministic automaton, numbering states so
// that those between two states are mostly consecutive numbers (the
// chart's sums run over such runs).
//
// A lattice is not to be changed once a chart has loaded it: the chart
// keeps what it works out about its shape with it.
type Lattice struct {
	Depth []int  // of each state
	Final []bool // of each state
	Arcs  []LatticeArc
	// Dead marks arcs that charts give no weight (nil: none), so that a
	// lattice that is not deterministic still counts every string once:
	// nbhd's templates spell a string twice where a sentence repeats a
	// tag, and kill one of the two paths.
	Dead []bool

	shape atomic.Pointer[latticeShape]
}

// LatticeArc is a transition over an interned tag.
type LatticeArc struct{ From, To, Tag int }

// States is the number of states.
func (l *Lattice) States() int { return len(l.Depth) }

// ChainLattice is the lattice of one sentence: the plain sentence is a
// special case of the DMV over lattices.
func ChainLattice(tags []int) *Lattice {
	n := len(tags)
	l := &Lattice{Depth: make([]int, n+1), Final: make([]bool, n+1), Arcs: make([]LatticeArc, n)}
	for i := range l.Depth {
		l.Depth[i] = i
	}
	l.Final[n] = true
	for i, t := range tags {
		l.Arcs[i] = LatticeArc{From: i, To: i + 1, Tag: t}
	}
	return l
}

// WithTags is l with arc a reading tags[a] and the arcs dead marks (nil:
// none) dead: the same states and arcs, so it shares the shape a chart
// works out for l and can run beside l's other instances in the lanes of
// one chart.
func (l *Lattice) WithTags(tags []int, dead []bool) *Lattice {
	m := &Lattice{Depth: l.Depth, Final: l.Final, Arcs: slices.Clone(l.Arcs), Dead: dead}
	for a := range m.Arcs {
		m.Arcs[a].Tag = tags[a]
	}
	m.shape.Store(l.shapeOf())
	return m
}

// SharesShape says whether l and m are instances of one template (or one
// lattice), which can run in the lanes of one chart.
func (l *Lattice) SharesShape(m *Lattice) bool {
	return l == m || l.shape.Load() != nil && l.shape.Load() == m.shape.Load()
}

// Check verifies the layered form LatticeChart relies on, for tags
// numbered below t.
func (l *Lattice) Check(t int) error {
	n := len(l.Depth)
	switch {
	case n == 0:
		return fmt.Errorf("lattice without states")
	case len(l.Final) != n:
		return fmt.Errorf("lattice has %d states but %d final flags", n, len(l.Final))
	case l.Depth[0] != 0:
		return fmt.Errorf("the start, state 0, has depth %d", l.Depth[0])
	}
	for i, a := range l.Arcs {
		switch {
		case a.From < 0 || a.To >= n || a.From >= a.To:
			return fmt.Errorf("arc %d (%d→%d) is out of range or not forward", i, a.From, a.To)
		case l.Depth[a.To] != l.Depth[a.From]+1:
			return fmt.Errorf("arc %d (%d→%d) does not go one depth down", i, a.From, a.To)
		case a.Tag < 0 || a.Tag >= t:
			return fmt.Errorf("arc %d has tag %d, outside 0..%d", i, a.Tag, t-1)
		case i > 0 && a.From < l.Arcs[i-1].From:
			return fmt.Errorf("arcs are not sorted by source state (arc %d)", i)
		}
		for j := i - 1; j >= 0 && l.Arcs[j].From == a.From; j-- {
			if l.Arcs[j].Tag == a.Tag {
				return fmt.Errorf("arcs %d and %d leave state %d with one tag: not deterministic", j, i, a.From)
			}
		}
	}
	return nil
}

// latticeShape is what LatticeChart needs to know of a lattice apart from
// the weights: indexes of its arcs, where each item lives in the chart's
// tables, and the chart's program. It is worked out once per lattice.
//
// Tables are compact: a row holds only the items that can be on a path,
// in order. Right halves of arc a (Rs, Rc and their adjoints) have a row
// over the states reachable from a's end; left halves (Ls, Lc) a row over
// the states that reach a's start; the transposes RsT[s] a row over the
// arcs whose end reaches s, LsT[s] over the arcs whose start s reaches;
// attachments IR[a] a row over the arcs that start where a's end leads,
// IL[b] (after all of IR) over the arcs whose end leads to b's start.
// Rows over arcs follow the arcs' family order (famOrder), which keeps
// the terms of a half's sum in few runs.
type latticeShape struct {
	S, A, depth int
	from, to    []int
	pos         []int // per arc: its string position (depth of its source)
	stateDepth  []int
	byDepth     []int // arcs by position: byDepth[depthAt[d]:depthAt[d+1]]
	depthAt     []int
	finals      []int

	// Table sizes (one lane): right-half rows (= their transposes'),
	// left-half rows, and attachments (IR and IL, 2·pairs in all).
	nR, nL, nAtt int
	// Per arc a: Rs[a][to] (the start of a's right row), Ls[a][from],
	// RsT[to][a], LsT[from][a], and the start of a's left row (Ls[a][0]
	// for a root).
	rsAt, lsAt, rsTAt, lsTAt, lRow []int32

	// The program: every item in the order inside fills them, by
	// increasing span (j − i in state numbers), each span's attachments,
	// then its right halves, then its left halves, as one stream of
	// int32s; prog[at[3·span+part]:at[3·span+part+1]] is one part. An
	// item is a header and runs of consecutive entries, as offsets into
	// the compact tables:
	//
	//	attachment  r, l, runs, then (x, y, len) per run:
	//	            IR[r] = edge[r]·Σ Rc[x+k]·Ls[y+k],
	//	            IL[l] = edge[l]·Σ Rs[x+k]·Lc[y+k]
	//	right half  o, t, d, runs, then (x, y, len) per run:
	//	            R = Σ IR[x+k]·RsT[y+k]; Rs[o] = R·stop[d], Rc[o] = R·cont[d], RsT[t] = Rs[o]
	//	left half   the same over IL and LsT.
	//
	// Every sum runs over the terms that can be positive only: a half's
	// over the arcs that share a string with its head and lead to its end
	// (or come from its start), an attachment's over the states between
	// its arcs.
	prog     []int32
	at       []int32
	pairs    []int32 // (a, b, r, l): arcs a (left) and b of every attachment, and its IR and IL offsets
	rootArcs []int   // arcs that can be the root of a path to each final
	rootRs   []int32 // Rs[a][final] of each
	rootAt   []int
}

// ShapeBytes is the memory of what a chart worked out about l's shape and
// keeps with it (0 before a chart has loaded l).
func (l *Lattice) ShapeBytes() int {
	sh := l.shape.Load()
	if sh == nil {
		return 0
	}
	return int(sh.keptBytes(len(sh.prog)))
}

// keptBytes is the memory of the shape with a program of prog int32s.
func (sh *latticeShape) keptBytes(prog int) int64 {
	ints := 4*sh.A + len(sh.depthAt) + len(sh.finals) + len(sh.rootArcs) + len(sh.rootAt)
	int32s := prog + len(sh.at) + 4*(sh.nAtt/2) + 5*sh.A + len(sh.rootArcs)
	return 8*int64(ints) + 4*int64(int32s)
}

// laneBytes is the memory of one lane of a chart's tables for the shape.
func (sh *latticeShape) laneBytes() int64 {
	return 8 * (6*int64(sh.nR) + 6*int64(sh.nL) + 4*int64(sh.nAtt) + 20*int64(sh.A))
}

// MemoryError is a lattice whose chart would need more memory than its
// limit allows; nothing was allocated for it.
type MemoryError struct {
	States, Arcs int
	Need, Limit  int64 // bytes; Need may be a lower bound
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("a lattice of %d states and %d arcs needs at least %d MiB for a chart, over the limit of %d MiB",
		e.States, e.Arcs, (e.Need+(1<<20)-1)>>20, e.Limit>>20)
}

// Prepare works out what a chart needs to know of l (which LoadLanes
// would otherwise do), unless a chart of one lane over l, with what it
// keeps with l, would need more than limit bytes (limit ≤ 0: no limit):
// then it returns a *MemoryError, having allocated no more than a small
// fraction of the limit. The bound is checked in steps, each before the
// memory it covers is allocated. A lattice made by WithTags shares the
// shape of its original, prepared once for all.
func (l *Lattice) Prepare(limit int64) error {
	if l.shape.Load() != nil {
		return nil
	}
	sh, err := newShape(l, limit)
	if err != nil {
		return err
	}
	l.shape.CompareAndSwap(nil, sh)
	return nil
}

// LaneBytes is the memory of one lane of a chart's tables over l (0
// before l is prepared or loaded).
func (l *Lattice) LaneBytes() int64 {
	sh := l.shape.Load()
	if sh == nil {
		return 0
	}
	return sh.laneBytes()
}

// shapeOf works out l's shape, or returns the one worked out before.
// Racing goroutines compute the same shape; one of them is kept.
func (l *Lattice) shapeOf() *latticeShape {
	if sh := l.shape.Load(); sh != nil {
		return sh
	}
	sh, err := newShape(l, 0)
	if err != nil { // only beyond int32 offsets: Prepare reports it first
		panic("dmv: " + err.Error())
	}
	if !l.shape.CompareAndSwap(nil, sh) {
		return l.shape.Load()
	}
	return sh
}

// bitRows is a table of bitsets, one row of words per index.
type bitRows struct {
	words int
	bits  []uint64
}

func newBitRows(rows, size int) bitRows {
	w := (size + 63) / 64
	return bitRows{words: w, bits: make([]uint64, rows*w)}
}

func (b bitRows) row(i int) []uint64 { return b.bits[i*b.words : (i+1)*b.words] }
func (b bitRows) set(i, k int)       { b.bits[i*b.words+k>>6] |= 1 << (uint(k) & 63) }
func (b bitRows) has(i, k int) bool  { return b.bits[i*b.words+k>>6]&(1<<(uint(k)&63)) != 0 }
func (b bitRows) or(i, j int) {
	x, y := b.row(i), b.row(j)
	for k := range x {
		x[k] |= y[k]
	}
}

// count is the number of set bits of row i.
func (b bitRows) count(i int) int {
	n := 0
	for _, w := range b.row(i) {
		n += bits.OnesCount64(w)
	}
	return n
}

// rank is the number of set bits of row i below k.
func (b bitRows) rank(i, k int) int {
	r := b.row(i)
	n := 0
	for _, w := range r[:k>>6] {
		n += bits.OnesCount64(w)
	}
	return n + bits.OnesCount64(r[k>>6]&(1<<(uint(k)&63)-1))
}

// eachRun calls f(x, y, n) for the runs of the elements set in both a and
// b that are consecutive in both, leaving out the elements in neither:
// x and y are the run's first element's ranks in a and in b. It works a
// word at a time, a step per run: elements in one set only break a run.
func eachRun(a, b []uint64, f func(x, y, n int)) {
	last := len(a) - 1
	for last >= 0 && a[last]&b[last] == 0 {
		last-- // nothing after the last common element matters
	}
	ra, rb, n := 0, 0, 0 // ranks of the current place; length of the open run
	// gap passes the elements of a and b under mask, none in both: one in
	// either breaks the open run.
	gap := func(wa, wb, mask uint64) {
		if (wa^wb)&mask != 0 && n > 0 {
			f(ra-n, rb-n, n)
			n = 0
		}
		ra += bits.OnesCount64(wa & mask)
		rb += bits.OnesCount64(wb & mask)
	}
	for k := 0; k <= last; k++ {
		wa, wb := a[k], b[k]
		both := wa & wb
		pos := uint(0) // bits below pos are done
		for both != 0 {
			i := uint(bits.TrailingZeros64(both))
			gap(wa, wb, (uint64(1)<<i-1)&^(uint64(1)<<pos-1))
			m := uint(bits.TrailingZeros64(^(both >> i))) // common elements from i on
			n, ra, rb = n+int(m), ra+int(m), rb+int(m)
			pos = i + m
			if pos == 64 {
				both = 0
			} else {
				both &^= uint64(1)<<pos - 1
			}
		}
		if k < last && pos < 64 {
			gap(wa, wb, ^(uint64(1)<<pos - 1))
		}
	}
	if n > 0 {
		f(ra-n, rb-n, n)
	}
}

// famOrder is the order of the arcs in the chart's rows over arcs: by
// family, then by source. A family is the arcs from one block of states
// to another, a block being a run of consecutively numbered states whose
// depth only rises or only falls (a chain of the lattice, as nbhd numbers
// them): in a family of chains the arcs that lead to a state, or come
// from one, are mostly consecutive, whatever else leaves their sources.
func famOrder(l *Lattice) []int {
	block := make([]int, len(l.Depth))
	dir := 0 // of the current block: +1 rising, −1 falling, 0 not known yet
	for s := 1; s < len(l.Depth); s++ {
		block[s] = block[s-1]
		step := l.Depth[s] - l.Depth[s-1]
		switch {
		case step == 0:
		case dir == 0:
			dir = step / max(step, -step)
		case step*dir < 0:
			block[s]++
			dir = 0
		}
	}
	order := make([]int, len(l.Arcs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		a, b := l.Arcs[x], l.Arcs[y]
		if c := block[a.From] - block[b.From]; c != 0 {
			return c
		}
		if c := block[a.To] - block[b.To]; c != 0 {
			return c
		}
		return a.From - b.From
	})
	return order
}

func newShape(l *Lattice, limit int64) (*latticeShape, error) {
	S, A := len(l.Depth), len(l.Arcs)
	tooBig := func(need int64) error {
		if limit > 0 && need > limit {
			return &MemoryError{States: S, Arcs: A, Need: need, Limit: limit}
		}
		return nil
	}
	// The bitsets below, before they are made.
	wS, wA := int64(S+63)/64, int64(A+63)/64
	if err := tooBig(8 * int64(S) * (2*wS + 2*wA)); err != nil {
		return nil, err
	}
	sh := &latticeShape{S: S, A: A, stateDepth: l.Depth}
	for _, d := range l.Depth {
		sh.depth = max(sh.depth, d)
	}
	sh.from, sh.to, sh.pos = make([]int, A), make([]int, A), make([]int, A)
	for i, a := range l.Arcs {
		sh.from[i], sh.to[i], sh.pos[i] = a.From, a.To, l.Depth[a.From]
	}
	arcFrom := make([]int, S+1) // arcs are sorted by source
	for s, a := 0, 0; s <= S; s++ {
		for a < A && sh.from[a] < s {
			a++
		}
		arcFrom[s] = a
	}
	into, intoAt := groupBy(sh.to, S)
	sh.byDepth, sh.depthAt = groupBy(sh.pos, sh.depth)
	for s, f := range l.Final {
		if f {
			sh.finals = append(sh.finals, s)
		}
	}
	// Which states reach which (reach[s]: from s, s included; back[t]:
	// to t), and over arcs in family order, outR[s]: the arcs from states
	// s reaches; inB[t]: the arcs into states that reach t.
	order := famOrder(l)
	rank := make([]int, A) // an arc's place in family order
	for k, a := range order {
		rank[a] = k
	}
	reach, back := newBitRows(S, S), newBitRows(S, S)
	outR, inB := newBitRows(S, A), newBitRows(S, A)
	for s := 0; s < S; s++ {
		reach.set(s, s)
		back.set(s, s)
	}
	for a := A - 1; a >= 0; a-- { // sources descending
		reach.or(sh.from[a], sh.to[a])
		outR.or(sh.from[a], sh.to[a])
		outR.set(sh.from[a], rank[a])
	}
	for t := 0; t < S; t++ { // targets ascending
		for _, a := range into[intoAt[t]:intoAt[t+1]] {
			back.or(t, sh.from[a])
			inB.or(t, sh.from[a])
			inB.set(t, rank[a])
		}
	}
	// Row starts, and the sizes of the tables.
	rRow, lRow := make([]int, A), make([]int, A)
	irRow, ilRow := make([]int, A), make([]int, A)
	rtRow, ltRow := make([]int, S), make([]int, S)
	pairs := 0
	for a := 0; a < A; a++ {
		rRow[a], sh.nR = sh.nR, sh.nR+reach.count(sh.to[a])
		lRow[a], sh.nL = sh.nL, sh.nL+back.count(sh.from[a])
		irRow[a], pairs = pairs, pairs+outR.count(sh.to[a])
	}
	il := pairs
	for b := 0; b < A; b++ {
		ilRow[b], il = il, il+inB.count(sh.from[b])
	}
	sh.nAtt = il
	nRT, nLT := 0, 0
	for s := 0; s < S; s++ {
		rtRow[s], nRT = nRT, nRT+inB.count(s)
		ltRow[s], nLT = nLT, nLT+outR.count(s)
	}
	if nRT != sh.nR || nLT != sh.nL || il != 2*pairs {
		panic("dmv: lattice tables do not add up")
	}
	masks := 8 * int64(S) * (2*wS + 2*wA)
	if err := tooBig(masks + sh.laneBytes() + sh.keptBytes(0)); err != nil {
		return nil, err
	}
	if max(sh.nR, sh.nL, sh.nAtt) > math.MaxInt32 { // the program's offsets are int32s
		return nil, fmt.Errorf("a lattice of %d states and %d arcs is too big for a chart: more than 2³¹ items in a table", S, A)
	}
	sh.rsAt, sh.lsAt, sh.rsTAt, sh.lsTAt = make([]int32, A), make([]int32, A), make([]int32, A), make([]int32, A)
	sh.lRow = make([]int32, A)
	for a := 0; a < A; a++ {
		p, q := sh.from[a], sh.to[a]
		sh.rsAt[a] = int32(rRow[a]) // q is the first state q reaches
		sh.lsAt[a] = int32(lRow[a] + back.count(p) - 1)
		sh.rsTAt[a] = int32(rtRow[q] + inB.rank(q, rank[a]))
		sh.lsTAt[a] = int32(ltRow[p] + outR.rank(p, rank[a]))
		sh.lRow[a] = int32(lRow[a])
	}
	// The program, counted, checked against the limit, then written.
	var prog []int32
	var runs []int32
	size := 0
	put := func(v ...int) {
		if prog == nil {
			size += len(v)
			return
		}
		for _, x := range v {
			prog = append(prog, int32(x))
		}
	}
	var pairList []int32
	gen := func() {
		// emitRuns puts the runs of a ∧ b, as offsets from rows xAt and yAt.
		emitRuns := func(a, b []uint64, xAt, yAt int) {
			runs = runs[:0]
			eachRun(a, b, func(x, y, n int) { runs = append(runs, int32(xAt+x), int32(yAt+y), int32(n)) })
		}
		putRuns := func() {
			for _, v := range runs {
				put(int(v))
			}
		}
		paths := func(span int, f func(i, j int)) {
			for i := 0; i+span < S; i++ {
				if reach.has(i, i+span) {
					f(i, i+span)
				}
			}
		}
		at := make([]int32, 3*S+1)
		for span := 1; span < S; span++ {
			at[3*span] = int32(len(prog) + size)
			paths(span, func(i, j int) {
				for a := arcFrom[i]; a < arcFrom[i+1]; a++ {
					q := sh.to[a]
					for _, b := range into[intoAt[j]:intoAt[j+1]] {
						p := sh.from[b]
						if p < q || !reach.has(q, p) {
							continue // a and b share no string
						}
						r := irRow[a] + outR.rank(q, rank[b])
						lo := ilRow[b] + inB.rank(p, rank[a])
						if prog != nil {
							pairList = append(pairList, int32(a), int32(b), int32(r), int32(lo))
						}
						emitRuns(reach.row(q), back.row(p), rRow[a], lRow[b])
						put(r, lo, len(runs)/3)
						putRuns()
					}
				}
			})
			at[3*span+1] = int32(len(prog) + size)
			paths(span, func(i, j int) {
				for a := arcFrom[i]; a < arcFrom[i+1]; a++ {
					if q := sh.to[a]; q < j && reach.has(q, j) { // not the half of width 1
						emitRuns(outR.row(q), inB.row(j), irRow[a], rtRow[j])
						put(rRow[a]+reach.rank(q, j), rtRow[j]+inB.rank(j, rank[a]), a*4+Right*2+NonAdj, len(runs)/3)
						putRuns()
					}
				}
			})
			at[3*span+2] = int32(len(prog) + size)
			paths(span, func(i, j int) {
				for _, a := range into[intoAt[j]:intoAt[j+1]] {
					if p := sh.from[a]; p > i && reach.has(i, p) { // not the half of width 1
						emitRuns(inB.row(p), outR.row(i), ilRow[a], ltRow[i])
						put(lRow[a]+back.rank(p, i), ltRow[i]+outR.rank(i, rank[a]), a*4+Left*2+NonAdj, len(runs)/3)
						putRuns()
					}
				}
			})
		}
		at[3*S] = int32(len(prog) + size)
		sh.at = at
	}
	gen()
	if err := tooBig(masks + sh.laneBytes() + sh.keptBytes(size)); err != nil {
		return nil, err
	}
	if size > math.MaxInt32 {
		return nil, fmt.Errorf("a lattice of %d states and %d arcs is too big for a chart: a program of more than 2³¹ entries", S, A)
	}
	prog, size = make([]int32, 0, size), 0
	pairList = make([]int32, 0, 4*pairs)
	gen()
	sh.prog, sh.pairs = prog, pairList
	sh.rootAt = make([]int, len(sh.finals)+1)
	for k, f := range sh.finals {
		sh.rootAt[k] = len(sh.rootArcs)
		for a := 0; a < A; a++ {
			if q := sh.to[a]; q <= f && reach.has(q, f) && reach.has(0, sh.from[a]) {
				sh.rootArcs = append(sh.rootArcs, a)
				sh.rootRs = append(sh.rootRs, int32(rRow[a]+reach.rank(q, f)))
			}
		}
	}
	sh.rootAt[len(sh.finals)] = len(sh.rootArcs)
	return sh, nil
}

// groupBy orders the indices 0..len(keys)−1 by key (stably), the indices
// of key k at order[at[k]:at[k+1]].
func groupBy(keys []int, buckets int) (order, at []int) {
	at = make([]int, buckets+1)
	for _, k := range keys {
		at[k+1]++
	}
	for k := 0; k < buckets; k++ {
		at[k+1] += at[k]
	}
	order = make([]int, len(keys))
	next := append([]int(nil), at[:buckets]...)
	for i, k := range keys {
		order[next[k]] = i
		next[k]++
	}
	return order, at
}
