// Package nbhd builds the neighbourhoods of contrastive estimation (Smith
// 2006; DESIGN.md §5.6): for a sentence x, a set of tag strings N(x) that
// contains x and the strings x is to be preferred to, as a lattice. Each
// neighbourhood is written as an automaton (a transducer applied to the
// sentence's chain, or to another neighbourhood), then determinised and
// minimised, so that no string is spelled by two paths and is counted
// once. The result is a dmv.Lattice, the form the DMV's lattice chart
// runs over. For training, the neighbourhoods made of local edits also
// come as templates (template.go): one lattice for every sentence of a
// length, which a chart runs for many sentences at once.
//
// It does not train or read files; stages ce, estep and the nbhd program
// do.
package nbhd

import (
	"fmt"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/dmv"
)

// The neighbourhoods.
const (
	Trans1       = "trans1"       // x and every swap of two adjacent tags
	Del1         = "del1"         // x and every deletion of one tag
	Del1OrTrans1 = "del1ortrans1" // their union (Smith's best for English)
	Dynasearch   = "dynasearch"   // any set of non-overlapping adjacent swaps
	Trans2       = "trans2"       // at most two adjacent swaps, which may overlap
	Del1OrTrans2 = "del1ortrans2" // del1 ∪ trans2
	Del1Subseq   = "del1subseq"   // x and x with one contiguous, non-empty, proper part deleted
	Length       = "length"       // every tag string of x's length
)

// Kinds lists the neighbourhoods Build knows.
var Kinds = []string{Trans1, Del1, Del1OrTrans1, Dynasearch, Trans2, Del1OrTrans2, Del1Subseq, Length}

// Known says whether kind is a neighbourhood.
func Known(kind string) bool {
	for _, k := range Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// Build makes the lattice of neighbourhood kind of the tag string x.
// tags is the size of the tag set, which only length uses: its lattice
// spells every string of len(x) tags below tags.
func Build(kind string, x []int, tags int) (*dmv.Lattice, error) {
	if len(x) == 0 {
		return nil, fmt.Errorf("the neighbourhood of an empty sentence")
	}
	var m *automaton
	switch kind {
	case Trans1:
		m = swaps(chain(x), false)
	case Del1:
		m = del1(chain(x))
	case Del1OrTrans1:
		m = union(del1(chain(x)), swaps(chain(x), false))
	case Dynasearch:
		m = swaps(chain(x), true)
	case Trans2:
		m = swaps(swaps(chain(x), false).determinize(), false)
	case Del1OrTrans2:
		m = union(del1(chain(x)), swaps(swaps(chain(x), false).determinize(), false))
	case Del1Subseq:
		m = del1subseq(x)
	case Length:
		return LengthLattice(len(x), tags), nil
	default:
		return nil, fmt.Errorf("unknown neighbourhood %q (want one of %v)", kind, Kinds)
	}
	return m.determinize().layered(), nil
}

// LengthLattice spells every string of n tags below tags: n+1 states in
// a row, one arc per tag between neighbours. It is already minimal.
func LengthLattice(n, tags int) *dmv.Lattice {
	l := &dmv.Lattice{Depth: make([]int, n+1), Final: make([]bool, n+1)}
	for i := range l.Depth {
		l.Depth[i] = i
	}
	l.Final[n] = true
	for i := 0; i < n; i++ {
		for t := 0; t < tags; t++ {
			l.Arcs = append(l.Arcs, dmv.LatticeArc{From: i, To: i + 1, Tag: t})
		}
	}
	return l
}

// swaps applies swaps of adjacent tags to the strings of m (ε-free): a
// clean copy of m reads on unchanged; from a clean state q with arcs
// q -t1→ q1 -t2→ q2 it may read t2, then t1 (a middle state that
// remembers t1 and q2). After a swap the string goes on in a done copy
// where no more swaps happen (trans1: at most one), or with again in the
// clean copy itself (dynasearch: more swaps, never of a tag already
// swapped).
func swaps(m *automaton, again bool) *automaton {
	t := &automaton{}
	n := m.states()
	clean, done := make([]int, n), make([]int, n)
	for q := 0; q < n; q++ {
		clean[q] = t.add()
		t.final[clean[q]] = m.final[q]
		if !again {
			done[q] = t.add()
			t.final[done[q]] = m.final[q]
		}
	}
	if again {
		done = clean
	}
	t.start = clean[m.start]
	type pending struct{ label, to int }
	middle := map[pending]int{}
	for q := 0; q < n; q++ {
		for _, a1 := range m.out[q] {
			t.link(clean[q], clean[a1.to], a1.label)
			if !again {
				t.link(done[q], done[a1.to], a1.label)
			}
			for _, a2 := range m.out[a1.to] {
				p := pending{a1.label, a2.to}
				mid, ok := middle[p]
				if !ok {
					mid = t.add()
					middle[p] = mid
					t.link(mid, done[a2.to], a1.label)
				}
				t.link(clean[q], mid, a2.label)
			}
		}
	}
	return t
}

// del1 applies "delete at most one tag": a clean copy may skip one arc
// (an ε-arc) into a done copy.
func del1(m *automaton) *automaton {
	t := &automaton{}
	n := m.states()
	clean, done := make([]int, n), make([]int, n)
	for q := 0; q < n; q++ {
		clean[q], done[q] = t.add(), t.add()
		t.final[clean[q]], t.final[done[q]] = m.final[q], m.final[q]
	}
	t.start = clean[m.start]
	for q := 0; q < n; q++ {
		for _, a := range m.out[q] {
			t.link(clean[q], clean[a.to], a.label)
			t.link(clean[q], done[a.to], epsilon)
			t.link(done[q], done[a.to], a.label)
		}
	}
	return t
}

// del1subseq spells x and every x[:i]+x[j:] with 0 ≤ i < j ≤ n other
// than the empty string: an ε-arc from each position to every later one.
func del1subseq(x []int) *automaton {
	n := len(x)
	t := chain(x) // the clean copy: states 0..n
	done := make([]int, n+1)
	for j := 0; j <= n; j++ {
		done[j] = t.add()
	}
	t.final[done[n]] = true
	for j := 0; j < n; j++ {
		t.link(done[j], done[j+1], x[j])
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			if i == 0 && j == n {
				continue // the empty string
			}
			t.link(i, done[j], epsilon)
		}
	}
	return t
}

// ToRecord writes lattice l of sentence s (tags numbered in ts) as a
// record.
func ToRecord(l *dmv.Lattice, ts *dmv.TagSet, s *format.Sentence, kind string) *format.Lattice {
	rec := &format.Lattice{ID: s.ID, Tags: s.Tags, Nbhd: kind, States: l.States(), Start: 0, Arcs: make([]format.Arc, len(l.Arcs))}
	for st, f := range l.Final {
		if f {
			rec.Final = append(rec.Final, st)
		}
	}
	for i, a := range l.Arcs {
		rec.Arcs[i] = format.Arc{From: a.From, To: a.To, Tag: ts.Name(a.Tag)}
	}
	return rec
}

// FromRecord reads a lattice record (valid by rec.Validate) into lattice
// form over the tags of ts; a tag ts does not know is an error. Any
// acyclic deterministic automaton will do: it is layered and minimised
// as Build's are.
func FromRecord(rec *format.Lattice, ts *dmv.TagSet) (*dmv.Lattice, error) {
	m := &automaton{start: rec.Start}
	for s := 0; s < rec.States; s++ {
		m.add()
	}
	for _, f := range rec.Final {
		m.final[f] = true
	}
	for _, a := range rec.Arcs {
		t, ok := ts.Index(a.Tag)
		if !ok {
			return nil, fmt.Errorf("tag %q is not in the model", a.Tag)
		}
		m.link(a.From, a.To, t)
	}
	return m.layered(), nil
}
