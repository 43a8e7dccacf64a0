package dmv

import (
	"fmt"
	"math/bits"
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
// chart's program — every item in the order inside fills them, each with
// the runs of consecutive numbers its sum goes over (states between two
// states for an attachment, arcs leaving them for a half). It is worked
// out once per lattice.
type latticeShape struct {
	S, A, depth   int
	from, to, tag []int
	pos           []int // per arc: its string position (depth of its source)
	stateDepth    []int
	arcFrom       []int // [s]: the first arc whose source is s or later
	into, intoAt  []int // arcs by target: into[intoAt[s]:intoAt[s+1]] end in s
	byDepth       []int // arcs by position: byDepth[depthAt[d]:depthAt[d+1]]
	depthAt       []int
	finals        []int
	words         int      // bitset words per state
	reach         []uint64 // [s·words + k]: states reachable from s (s included)

	// The program: for span (j − i in state numbers) s, the attachments
	// attach[attachAt[s]:attachAt[s+1]], then the right halves
	// right[rightAt[s]:…] and the left halves left[leftAt[s]:…]. Runs are
	// [lo, hi) pairs in runs.
	attach, right, left       []step
	attachAt, rightAt, leftAt []int
	runs                      []int32
	rootArcs, rootAt          []int  // arcs that can be the root of a path to each final
	connected                 []step // attachable pairs a (left) and b, for the counts
}

// step is one item of the chart's program: an attachment between arcs a
// (left) and b, or the half of arc a ending (right) or starting (left) at
// state b; its sum runs over runs[lo:hi]. An empty sum writes 0: an entry
// later sums read though no path fills it.
type step struct{ a, b, lo, hi int32 }

// ShapeBytes is the memory of what a chart worked out about l's shape and
// keeps with it (0 before a chart has loaded l).
func (l *Lattice) ShapeBytes() int {
	sh := l.shape.Load()
	if sh == nil {
		return 0
	}
	ints := len(sh.from) + len(sh.to) + len(sh.tag) + len(sh.pos) + len(sh.arcFrom) + len(sh.into) + len(sh.intoAt) +
		len(sh.byDepth) + len(sh.depthAt) + len(sh.finals) + len(sh.attachAt) + len(sh.rightAt) + len(sh.leftAt) +
		len(sh.rootArcs) + len(sh.rootAt)
	steps := len(sh.attach) + len(sh.right) + len(sh.left) + len(sh.connected)
	return 8*ints + 8*len(sh.reach) + 16*steps + 4*len(sh.runs)
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
	sh.from, sh.to, sh.tag, sh.pos = make([]int, A), make([]int, A), make([]int, A), make([]int, A)
	for i, a := range l.Arcs {
		sh.from[i], sh.to[i], sh.tag[i], sh.pos[i] = a.From, a.To, a.Tag, l.Depth[a.From]
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
	S := sh.S
	runs := func(r []int32) (int32, int32) {
		lo := int32(len(sh.runs))
		sh.runs = append(sh.runs, r...)
		return lo, int32(len(sh.runs))
	}
	arcRuns := func(r []int32, end int) (int32, int32) {
		lo := int32(len(sh.runs))
		for ; len(r) > 0; r = r[2:] {
			a, b := sh.arcFrom[r[0]], sh.arcFrom[min(int(r[1]), end)]
			if a < b {
				sh.runs = append(sh.runs, int32(a), int32(b))
			}
		}
		return lo, int32(len(sh.runs))
	}
	sh.attachAt, sh.rightAt, sh.leftAt = make([]int, S+1), make([]int, S+1), make([]int, S+1)
	for span := 1; span < S; span++ {
		sh.attachAt[span] = len(sh.attach)
		for i := 0; i+span < S; i++ {
			j := i + span
			if !sh.reaches(i, j) {
				continue
			}
			for a := sh.arcFrom[i]; a < sh.arcFrom[i+1]; a++ {
				q := sh.to[a]
				for _, b := range sh.into[sh.intoAt[j]:sh.intoAt[j+1]] {
					st := step{a: int32(a), b: int32(b)}
					if p := sh.from[b]; p >= q && sh.reaches(q, p) {
						st.lo, st.hi = runs(between(q, p))
						sh.connected = append(sh.connected, st)
					}
					sh.attach = append(sh.attach, st)
				}
			}
		}
		sh.rightAt[span] = len(sh.right)
		for i := 0; i+span < S; i++ {
			j := i + span
			if !sh.reaches(i, j) {
				continue
			}
			for a := sh.arcFrom[i]; a < sh.arcFrom[i+1]; a++ {
				q := sh.to[a]
				if q == j {
					continue // the half of width 1
				}
				st := step{a: int32(a), b: int32(j)}
				if q < j && sh.reaches(q, j) {
					st.lo, st.hi = arcRuns(between(q, j), j)
				}
				sh.right = append(sh.right, st)
			}
		}
		sh.leftAt[span] = len(sh.left)
		for i := 0; i+span < S; i++ {
			j := i + span
			if !sh.reaches(i, j) {
				continue
			}
			for _, a := range sh.into[sh.intoAt[j]:sh.intoAt[j+1]] {
				p := sh.from[a]
				if p <= i || !sh.reaches(i, p) {
					continue // the half of width 1, or never read
				}
				st := step{a: int32(a), b: int32(i)}
				st.lo, st.hi = arcRuns(between(i, p), p)
				sh.left = append(sh.left, st)
			}
		}
	}
	sh.attachAt[S], sh.rightAt[S], sh.leftAt[S] = len(sh.attach), len(sh.right), len(sh.left)
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
