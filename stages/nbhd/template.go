package nbhd

import (
	"slices"

	"github.com/grind-nlp/grind/stages/dmv"
)

// Template is the neighbourhood lattice of every sentence of one length
// at once, for the neighbourhoods made of local edits of the sentence
// (trans1, del1, del1ortrans1, dynasearch). Its arcs read word
// positions, not tags: arc a reads x[Lattice.Arcs[a].Tag]. So its shape
// is worked out once per length, and the sentences of one length run
// side by side in the lanes of one dmv.LatticeChart.
//
// It is the automaton of the edits themselves, neither determinised nor
// minimised, and for a sentence that repeats a tag two of its paths spell
// one string: a swap of two equal tags spells x again, and deleting
// either of two equal neighbours spells one string. Instance kills the
// first of each such pair (the arc that leaves the unedited sentence
// reading position i+1 where x[i] = x[i+1]), so every string of the
// neighbourhood still counts once.
type Template struct {
	Lattice *dmv.Lattice
	// Sentence is the final state that only the unedited sentence
	// reaches, so that a chart gives Z(x) along with Z(N(x))
	// (dmv.LatticeChart.OutsideContrast); −1 for dynasearch, whose
	// edited paths come back to the sentence's states.
	Sentence int
	twin     []int // per arc: i when x[i] = x[i+1] kills it, else −1
}

// HasTemplate says whether kind's neighbourhoods have templates.
func HasTemplate(kind string) bool {
	switch kind {
	case Trans1, Del1, Del1OrTrans1, Dynasearch:
		return true
	}
	return false
}

// NewTemplate makes kind's template for sentences of n ≥ 1 words; kind
// must have one (HasTemplate).
//
// States: the unedited sentence c_0..c_n; for swaps, a middle state m_i
// after reading x[i+1] at position i and, for trans1, a chain s_2..s_n
// after the swap (dynasearch goes back to the c chain, where another
// swap may follow); for deletions, a chain e_2..e_n after deleting one
// word (e_j has read x[:j] but one, so it lies at depth j−1), entered by
// reading x[i+1] at position i, and c_{n−1} final (the last word
// deleted). Blocks of states (c, m, s, e) are numbered one after another,
// each by depth, so that the states between two states, over which the
// chart sums, form few runs, and so do the arcs of each pair of blocks
// (the chart's families, dmv.Lattice).
func NewTemplate(kind string, n int) *Template {
	swap, del, again := kind == Trans1 || kind == Del1OrTrans1, kind == Del1 || kind == Del1OrTrans1, kind == Dynasearch
	if !swap && !del && !again {
		panic("nbhd: no template for " + kind)
	}
	l := &dmv.Lattice{}
	state := func(depth int) int {
		l.Depth = append(l.Depth, depth)
		l.Final = append(l.Final, false)
		return len(l.Depth) - 1
	}
	t := &Template{Lattice: l, Sentence: -1}
	link := func(from, to, pos, twin int) {
		l.Arcs = append(l.Arcs, dmv.LatticeArc{From: from, To: to, Tag: pos})
		t.twin = append(t.twin, twin)
	}
	c, m := make([]int, n+1), make([]int, n)
	if again {
		c[0], c[1] = state(0), state(1)
		for i := 0; i+2 <= n; i++ {
			m[i], c[i+2] = state(i+1), state(i+2)
		}
	} else {
		for j := range c {
			c[j] = state(j)
		}
	}
	for i := 0; i < n; i++ {
		link(c[i], c[i+1], i, -1)
	}
	l.Final[c[n]] = true
	if again {
		for i := 0; i+2 <= n; i++ {
			link(c[i], m[i], i+1, i)
			link(m[i], c[i+2], i, -1)
		}
	} else {
		t.Sentence = c[n] // edits never come back to the c chain
	}
	if swap && n >= 2 {
		s := make([]int, n+1)
		for i := 0; i+2 <= n; i++ {
			m[i] = state(i + 1)
		}
		for j := 2; j <= n; j++ {
			s[j] = state(j)
		}
		for i := 0; i+2 <= n; i++ {
			link(c[i], m[i], i+1, i)
			link(m[i], s[i+2], i, -1)
		}
		for j := 2; j < n; j++ {
			link(s[j], s[j+1], j, -1)
		}
		l.Final[s[n]] = true
	}
	if del {
		l.Final[c[n-1]] = true
		if n >= 2 {
			e := make([]int, n+1)
			for j := 2; j <= n; j++ {
				e[j] = state(j - 1)
			}
			for i := 0; i+2 <= n; i++ {
				link(c[i], e[i+2], i+1, i)
			}
			for j := 2; j < n; j++ {
				link(e[j], e[j+1], j, -1)
			}
			l.Final[e[n]] = true
		}
	}
	// Arcs sorted by source, as lattices keep them.
	order := make([]int, len(l.Arcs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return l.Arcs[a].From - l.Arcs[b].From })
	arcs, twin := make([]dmv.LatticeArc, len(order)), make([]int, len(order))
	for k, i := range order {
		arcs[k], twin[k] = l.Arcs[i], t.twin[i]
	}
	l.Arcs, t.twin = arcs, twin
	return t
}

// Instance is the neighbourhood of x (of the template's length) as an
// instance of the template: it shares the template's shape and can run
// in the lanes of a chart beside the template's other instances.
func (t *Template) Instance(x []int) *dmv.Lattice {
	tags := make([]int, len(t.Lattice.Arcs))
	var dead []bool
	for a, arc := range t.Lattice.Arcs {
		tags[a] = x[arc.Tag]
		if i := t.twin[a]; i >= 0 && x[i] == x[i+1] {
			if dead == nil {
				dead = make([]bool, len(tags))
			}
			dead[a] = true
		}
	}
	return t.Lattice.WithTags(tags, dead)
}
