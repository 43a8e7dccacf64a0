package dmv

import (
	"fmt"
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
// the weights: indexes of its arcs, which states reach which, and the
// chart's program. It is worked out once per lattice.
type latticeShape struct {
	S, A, depth  int
	from, to     []int
	pos          []int // per arc: its string position (depth of its source)
	stateDepth   []int
	arcFrom      []int // [s]: the first arc whose source is s or later
	into, intoAt []int // arcs by target: into[intoAt[s]:intoAt[s+1]] end in s
	byDepth      []int // arcs by position: byDepth[depthAt[d]:depthAt[d+1]]
	depthAt      []int
	finals       []int
	words        int      // bitset words per state
	reach        []uint64 // [s·words + k]: states reachable from s (s included)

	// The program: every item in the order inside fills them, by
	// increasing span (j − i in state numbers), each span's attachments,
	// then its right halves, then its left halves, as one stream of
	// int32s; prog[at[3·span+part]:at[3·span+part+1]] is one part. An
	// item is a header and runs of consecutive entries, the table offsets
	// worked out for this lattice's strides (A·S tables are [arc·S +
	// state], A·A ones [arc·A + arc], transposes [state·A + arc]):
	//
	//	attachment  r, l, runs, then (x, y, len) per run:
	//	            IR[r] = edge[r]·Σ Rc[x+k]·Ls[y+k],
	//	            IL[l] = edge[l]·Σ Rs[x+k]·Lc[y+k]   (r = a·A+b, l = b·A+a)
	//	right half  o, t, d, runs, then (x, y, len) per run:
	//	            R = Σ IR[x+k]·RsT[y+k]; Rs[o] = R·stop[d], Rc[o] = R·cont[d], RsT[t] = Rs[o]
	//	left half   the same over IL and LsT.
	//
	// Every sum runs over the terms that can be positive only: a half's
	// over the arcs that share a string with its head and lead to its end
	// (or come from its start), an attachment's over the states between
	// its arcs. So only items on paths are made, and only they are read.
	prog     []int32
	at       []int32
	pairs    []int32 // (a, b): arcs a (left) and b of every attachment with a sum
	rootArcs []int   // arcs that can be the root of a path to each final
	rootAt   []int
}

// ShapeBytes is the memory of what a chart worked out about l's shape and
// keeps with it (0 before a chart has loaded l).
func (l *Lattice) ShapeBytes() int {
	sh := l.shape.Load()
	if sh == nil {
		return 0
	}
	ints := len(sh.from) + len(sh.to) + len(sh.pos) + len(sh.arcFrom) + len(sh.into) + len(sh.intoAt) +
		len(sh.byDepth) + len(sh.depthAt) + len(sh.finals) + len(sh.rootArcs) + len(sh.rootAt)
	int32s := len(sh.prog) + len(sh.at) + len(sh.pairs)
	return 8*ints + 8*len(sh.reach) + 4*int32s
}

// shapeOf works out l's shape, or returns the one worked out before.
// Racing goroutines compute the same shape; one of them is kept.
func (l *Lattice) shapeOf() *latticeShape {
	if sh := l.shape.Load(); sh != nil {
		return sh
	}
	sh := newShape(l)
	if !l.shape.CompareAndSwap(nil, sh) {
		return l.shape.Load()
	}
	return sh
}

func newShape(l *Lattice) *latticeShape {
	S, A := len(l.Depth), len(l.Arcs)
	sh := &latticeShape{S: S, A: A, stateDepth: l.Depth}
	for _, d := range l.Depth {
		sh.depth = max(sh.depth, d)
	}
	sh.from, sh.to, sh.pos = make([]int, A), make([]int, A), make([]int, A)
	for i, a := range l.Arcs {
		sh.from[i], sh.to[i], sh.pos[i] = a.From, a.To, l.Depth[a.From]
	}
	sh.arcFrom = make([]int, S+1)
	for s, a := 0, 0; s <= S; s++ {
		for a < A && sh.from[a] < s {
			a++
		}
		sh.arcFrom[s] = a
	}
	sh.into, sh.intoAt = groupBy(sh.to, S)
	sh.byDepth, sh.depthAt = groupBy(sh.pos, sh.depth)
	for s, f := range l.Final {
		if f {
			sh.finals = append(sh.finals, s)
		}
	}
	// Which states reach which: backwards over the arcs (sorted by source)
	// for reach, forwards for the transposed relation.
	w := (S + 63) / 64
	sh.words = w
	sh.reach = make([]uint64, S*w)
	back := make([]uint64, S*w) // [t·w + k]: states that reach t
	for s := 0; s < S; s++ {
		sh.reach[s*w+s>>6] |= 1 << (uint(s) & 63)
		back[s*w+s>>6] |= 1 << (uint(s) & 63)
	}
	for a := A - 1; a >= 0; a-- {
		p, q := sh.from[a]*w, sh.to[a]*w
		for k := 0; k < w; k++ {
			sh.reach[p+k] |= sh.reach[q+k]
		}
	}
	for a := 0; a < A; a++ {
		p, q := sh.from[a]*w, sh.to[a]*w
		for k := 0; k < w; k++ {
			back[q+k] |= back[p+k]
		}
	}
	// The runs of states between each pair s ≤ t with a path from s to t.
	runAt := make([]int32, S*S+1)
	var between []int32
	for s := 0; s < S; s++ {
		for t := 0; t < S; t++ {
			runAt[s*S+t] = int32(len(between))
			if t >= s && sh.reaches(s, t) {
				between = appendRuns(between, sh.reach[s*w:s*w+w], back[t*w:t*w+w])
			}
		}
	}
	runAt[S*S] = int32(len(between))
	sh.program(func(s, t int) []int32 { return between[runAt[s*S+t]:runAt[s*S+t+1]] })
	return sh
}

// program lays out the chart's items by increasing span, over the pairs
// of states with a path between them: attachments between an arc a
// leaving i and an arc b entering j (through the states between a's end
// and b's start, when b comes after a); right halves of the arcs leaving
// i that end at j (over the arcs leaving the states between a's end and
// j); left halves of the arcs entering j that start at i (over the arcs
// leaving the states between i and a's start).
func (sh *latticeShape) program(between func(s, t int) []int32) {
	S, A := sh.S, sh.A
	emit := func(v ...int) {
		for _, x := range v {
			sh.prog = append(sh.prog, int32(x))
		}
	}
	// half emits a half's header and its runs over the arcs c leaving the
	// states of r (stopping short of state end) that lead to end, the
	// terms that can be positive: x indexes row xRow of an A·A table, y
	// row yRow of a transpose.
	half := func(o, t, d int, r []int32, end, xRow, yRow int) {
		emit(o, t, d, 0)
		count := len(sh.prog) - 1
		lo := -1
		flush := func(hi int) {
			if lo >= 0 {
				emit(xRow*A+lo, yRow*A+lo, hi-lo)
				sh.prog[count]++
				lo = -1
			}
		}
		for ; len(r) > 0; r = r[2:] {
			hi := sh.arcFrom[min(int(r[1]), end)]
			for c := sh.arcFrom[r[0]]; c < hi; c++ {
				switch {
				case !sh.reaches(sh.to[c], end):
					flush(c)
				case lo < 0:
					lo = c
				}
			}
			flush(hi)
		}
	}
	// paths calls f for every pair of states i < j = i + span with a path
	// from i to j.
	paths := func(span int, f func(i, j int)) {
		for i := 0; i+span < S; i++ {
			if sh.reaches(i, i+span) {
				f(i, i+span)
			}
		}
	}
	sh.at = make([]int32, 3*S+1)
	for span := 1; span < S; span++ {
		sh.at[3*span] = int32(len(sh.prog))
		paths(span, func(i, j int) {
			for a := sh.arcFrom[i]; a < sh.arcFrom[i+1]; a++ {
				q := sh.to[a]
				for _, b := range sh.into[sh.intoAt[j]:sh.intoAt[j+1]] {
					if p := sh.from[b]; p < q || !sh.reaches(q, p) {
						continue // a and b share no string
					}
					sh.pairs = append(sh.pairs, int32(a), int32(b))
					r := between(q, sh.from[b])
					emit(a*A+b, b*A+a, len(r)/2)
					for ; len(r) > 0; r = r[2:] {
						emit(a*S+int(r[0]), b*S+int(r[0]), int(r[1]-r[0]))
					}
				}
			}
		})
		sh.at[3*span+1] = int32(len(sh.prog))
		paths(span, func(i, j int) {
			for a := sh.arcFrom[i]; a < sh.arcFrom[i+1]; a++ {
				if q := sh.to[a]; q < j && sh.reaches(q, j) { // not the half of width 1
					half(a*S+j, j*A+a, a*4+Right*2+NonAdj, between(q, j), j, a, j)
				}
			}
		})
		sh.at[3*span+2] = int32(len(sh.prog))
		paths(span, func(i, j int) {
			for _, a := range sh.into[sh.intoAt[j]:sh.intoAt[j+1]] {
				if p := sh.from[a]; p > i && sh.reaches(i, p) { // not the half of width 1
					half(a*S+i, i*A+a, a*4+Left*2+NonAdj, between(i, p), p, a, i)
				}
			}
		})
	}
	sh.at[3*S] = int32(len(sh.prog))
	sh.rootAt = make([]int, len(sh.finals)+1)
	for k, f := range sh.finals {
		sh.rootAt[k] = len(sh.rootArcs)
		for a := 0; a < sh.A; a++ {
			if sh.to[a] <= f && sh.reaches(sh.to[a], f) {
				sh.rootArcs = append(sh.rootArcs, a)
			}
		}
	}
	sh.rootAt[len(sh.finals)] = len(sh.rootArcs)
}

// reaches says whether state t can be reached from state s.
func (sh *latticeShape) reaches(s, t int) bool {
	return sh.reach[s*sh.words+t>>6]&(1<<(uint(t)&63)) != 0
}

// appendRuns appends the runs of consecutive set bits of a AND b as
// [lo, hi) pairs.
func appendRuns(runs []int32, a, b []uint64) []int32 {
	open := false
	for k := range a {
		m, base := a[k]&b[k], int32(64*k)
		for m != 0 {
			lo := bits.TrailingZeros64(m)
			ones := bits.TrailingZeros64(^(m >> uint(lo)))
			if open && runs[len(runs)-1] == base+int32(lo) {
				runs[len(runs)-1] += int32(ones)
			} else {
				runs = append(runs, base+int32(lo), base+int32(lo+ones))
			}
			if ones == 64 {
				m = 0
			} else {
				m &^= (1<<uint(ones) - 1) << uint(lo)
			}
		}
		open = (a[k]&b[k])>>63 == 1 // a run reaches the next word

	}
	return runs
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
