package modelu

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/grind-nlp/grind/stages/dmv"
)

// shape is what Model U's chart needs of a lattice's states and arcs but
// not of the symbols they read, worked out once and shared by every
// lattice of that shape: every chain of one length, and many
// neighbourhoods of one length (UD Turkish ≤ 10's 2,886 del1ortrans2
// lattices with spelling have 96 shapes, its trans2 lattices over tags
// 875: a repeated symbol merges paths). Its items are numbered by width and, within a
// width, in the order the chart has always visited them, and each item
// lists the terms of its sum in the order they were added — only the
// cells some string reaches, so that the sums skip the zeros of the
// rest without changing a bit of what they add up.
type shape struct {
	A, S  int
	reach []bool // [s·S + t]: a path leads from state s to state t (s = t included)

	pairs [][2]int32 // E items: arcs a before b
	item  []int32    // [a·A + b]: the E item of arcs a and b, −1 when a cannot precede b
	// Items of width w: E items eAt[w] to eAt[w+1], R items rAt[w] to
	// rAt[w+1], L items lAt[w] to lAt[w+1].
	eAt, rAt, lAt []int32
	// E item i's split states m (a's right half up to m, b's left half
	// from m): eM[eOff[i]:eOff[i+1]], ascending.
	eOff, eM []int32
	// R item j is cell rCell[j] = a·S + s, the sum of its terms
	// rTerm[2·rOff[j]:2·rOff[j+1]], each (E item of a and b, cell b·S + s),
	// b ascending. L items likewise: cell b·S + s, terms (E item of a and
	// b, cell a·S + s), a ascending.
	rCell, rOff, rTerm []int32
	lCell, lOff, lTerm []int32
	// roots are Z's terms: (cell r·S + f, depth(f) − 1) for a root arc r
	// (leaving state 0) and a final state f a path leads to from r.
	roots [][2]int32
}

// newShape works out lattice l's shape, refused before its sums' terms
// are listed when they would take more than limit bytes (≤ 0: no limit).
// It does not read l.Dead: Model U's lattices are nbhd.Build's and
// chains, which have no dead arcs.
func newShape(l *dmv.Lattice, limit int64) (*shape, error) {
	sh := &shape{A: len(l.Arcs), S: l.States(), reach: reachability(l)}
	err := sh.walk(l, func(nr, nl int) error {
		if need := 8 * int64(nr+nl); limit > 0 && need > limit {
			return fmt.Errorf("its chart's sums have %d terms, about %d MiB, over --max-memory (%d MiB): leave long sentences out (filterlen) or raise --max-memory", nr+nl, need>>20, limit>>20)
		}
		sh.rTerm = make([]int32, 0, 2*nr)
		sh.lTerm = make([]int32, 0, 2*nl)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sh, nil
}

// reachability is [s·S + t]: a path leads from state s to state t.
func reachability(l *dmv.Lattice) []bool {
	S := l.States()
	reach := make([]bool, S*S)
	// states are numbered topologically (arcs go to higher numbers)
	for s := S - 1; s >= 0; s-- {
		reach[s*S+s] = true
	}
	for s := S - 1; s >= 0; s-- {
		for _, a := range l.Arcs {
			if a.From == s {
				for t := 0; t < S; t++ {
					if reach[a.To*S+t] {
						reach[s*S+t] = true
					}
				}
			}
		}
	}
	return reach
}

// walk fills the shape's items; sized hears, before the terms are
// listed, how many there are in R's sums and in L's, and may refuse them.
func (sh *shape) walk(l *dmv.Lattice, sized func(nr, nl int) error) error {
	A, S, reach, dep := sh.A, sh.S, sh.reach, l.Depth
	maxW := 0
	for _, d := range dep {
		maxW = max(maxW, d)
	}
	eByW := make([][][2]int32, maxW+1)
	rByW := make([][][2]int32, maxW+1)
	lByW := make([][][2]int32, maxW+1)
	for a, x := range l.Arcs {
		for b, y := range l.Arcs {
			if reach[x.To*S+y.From] {
				w := dep[y.To] - dep[x.From]
				eByW[w] = append(eByW[w], [2]int32{int32(a), int32(b)})
			}
		}
		for s := 0; s < S; s++ {
			if s != x.To && reach[x.To*S+s] {
				w := dep[s] - dep[x.From]
				rByW[w] = append(rByW[w], [2]int32{int32(a), int32(s)})
			}
			if s != x.From && reach[s*S+x.From] {
				w := dep[x.To] - dep[s]
				lByW[w] = append(lByW[w], [2]int32{int32(a), int32(s)})
			}
		}
	}
	sh.item = make([]int32, A*A)
	for i := range sh.item {
		sh.item[i] = -1
	}
	sh.eOff = []int32{0}
	for w := range eByW {
		sh.eAt = append(sh.eAt, int32(len(sh.pairs)))
		for _, p := range eByW[w] {
			a, b := int(p[0]), int(p[1])
			sh.item[a*A+b] = int32(len(sh.pairs))
			sh.pairs = append(sh.pairs, p)
			from, to := l.Arcs[a].To, l.Arcs[b].From
			for m := from; m <= to; m++ {
				if reach[from*S+m] && reach[m*S+to] {
					sh.eM = append(sh.eM, int32(m))
				}
			}
			sh.eOff = append(sh.eOff, int32(len(sh.eM)))
		}
	}
	sh.eAt = append(sh.eAt, int32(len(sh.pairs)))
	// succ[a] is the arcs a can precede, pred[b] those that can precede
	// b, each ascending: an item's terms are looked for among them only.
	succ, pred := make([][]int32, A), make([][]int32, A)
	for a := range A {
		for b := range A {
			if sh.item[a*A+b] >= 0 {
				succ[a] = append(succ[a], int32(b))
				pred[b] = append(pred[b], int32(a))
			}
		}
	}
	// rTerms(a, s) and lTerms(b, s) call fn with each term of an item.
	rTerms := func(a, s int, fn func(e, cell int32)) {
		for _, b := range succ[a] {
			if reach[l.Arcs[b].To*S+s] {
				fn(sh.item[a*A+int(b)], b*int32(S)+int32(s))
			}
		}
	}
	lTerms := func(b, s int, fn func(e, cell int32)) {
		for _, a := range pred[b] {
			if reach[s*S+l.Arcs[a].From] {
				fn(sh.item[int(a)*A+b], a*int32(S)+int32(s))
			}
		}
	}
	// The right items and the left ones are laid out alike, each side
	// by width: its items' cells, their terms and where each item's
	// terms end.
	type termsOf = func(x, s int, fn func(e, cell int32))
	count := func(byW [][][2]int32, terms termsOf) (n int) {
		for _, items := range byW {
			for _, it := range items {
				terms(int(it[0]), int(it[1]), func(int32, int32) { n++ })
			}
		}
		return n
	}
	if err := sized(count(rByW, rTerms), count(lByW, lTerms)); err != nil {
		return err
	}
	lay := func(byW [][][2]int32, terms termsOf, at, cell, term, off *[]int32) {
		*off = []int32{0}
		for _, items := range byW {
			*at = append(*at, int32(len(*cell)))
			for _, it := range items {
				x, s := int(it[0]), int(it[1])
				*cell = append(*cell, int32(x*S+s))
				terms(x, s, func(e, c int32) { *term = append(*term, e, c) })
				*off = append(*off, int32(len(*term)/2))
			}
		}
		*at = append(*at, int32(len(*cell)))
	}
	lay(rByW, rTerms, &sh.rAt, &sh.rCell, &sh.rTerm, &sh.rOff)
	lay(lByW, lTerms, &sh.lAt, &sh.lCell, &sh.lTerm, &sh.lOff)
	for r, x := range l.Arcs {
		if x.From != 0 {
			continue
		}
		for f := 0; f < S; f++ {
			if l.Final[f] && reach[x.To*S+f] {
				sh.roots = append(sh.roots, [2]int32{int32(r*S + f), int32(dep[f] - 1)})
			}
		}
	}
	return nil
}

// widths is the number of widths (of depths) the items span.
func (sh *shape) widths() int { return len(sh.eAt) - 1 }

// shapes shares shapes between the lattices of one training: a lattice
// whose states, finality and arcs' ends are another's gets its shape.
type shapes struct {
	limit int64 // newShape's
	mu    sync.Mutex
	m     map[string]*shape
}

func newShapes(limit int64) *shapes { return &shapes{limit: limit, m: map[string]*shape{}} }

// of is l's shape, worked out when no lattice before had it.
func (c *shapes) of(l *dmv.Lattice) (*shape, error) {
	key := shapeKey(l)
	c.mu.Lock()
	sh, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return sh, nil
	}
	sh, err := newShape(l, c.limit)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[key]; ok {
		return old, nil // another worker's, the same
	}
	c.m[key] = sh
	return sh, nil
}

// instance is NewInstance with l's shape shared and its pairs of symbols
// in pt.
func (c *shapes) instance(m *Model, l *dmv.Lattice, pt *pairTable) (*Instance, error) {
	sh, err := c.of(l)
	if err != nil {
		return nil, err
	}
	return newInstance(m, chartOf(l, sh), pt), nil
}

// shapeKey spells out what a shape is made of: the states' depths and
// finality and the arcs' ends.
func shapeKey(l *dmv.Lattice) string {
	b := make([]byte, 0, 4*(len(l.Depth)+2*len(l.Arcs)))
	b = binary.AppendUvarint(b, uint64(len(l.Depth)))
	for s, d := range l.Depth {
		fin := uint64(0)
		if l.Final[s] {
			fin = 1
		}
		b = binary.AppendUvarint(b, uint64(d)<<1|fin)
	}
	for _, a := range l.Arcs {
		b = binary.AppendUvarint(b, uint64(a.From))
		b = binary.AppendUvarint(b, uint64(a.To))
	}
	return string(b)
}
