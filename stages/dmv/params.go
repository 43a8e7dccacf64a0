// Package dmv is the Dependency Model with Valence (Klein & Manning 2004):
// its parameters as dense tables indexed by interned tags, the conversion
// to and from event records, the split-head O(n³) chart (Eisner & Satta
// 1999) that gives inside and outside scores, expected counts, Viterbi and
// minimum-Bayes-risk parses, and the corpus-level E-step every estimator
// shares. Estimators change the weights fed to the chart, never the chart.
//
// It does not read or write files; the stages that do are estep, mstep,
// train, decode and their friends.
package dmv

import (
	"fmt"
	"sort"

	"github.com/grind-nlp/grind/internal/vec8"
	"github.com/grind-nlp/grind/stages/memory"
)

// Directions and valences, as array indices.
const (
	Left, Right = 0, 1
	Adj, NonAdj = 0, 1 // Adj: no child yet on that side
)

// TagSet interns tags: the models index every table by tag number.
type TagSet struct {
	names []string
	index map[string]int
}

// NewTagSet interns names in order (duplicates are ignored).
func NewTagSet(names ...string) *TagSet {
	ts := &TagSet{index: make(map[string]int, len(names))}
	for _, n := range names {
		ts.Add(n)
	}
	return ts
}

// SortedTagSet interns names in sorted order, so that tables and model
// files do not depend on the order data arrived in.
func SortedTagSet(names []string) *TagSet {
	s := append([]string(nil), names...)
	sort.Strings(s)
	return NewTagSet(s...)
}

// Add interns name and returns its number.
func (ts *TagSet) Add(name string) int {
	if i, ok := ts.index[name]; ok {
		return i
	}
	ts.index[name] = len(ts.names)
	ts.names = append(ts.names, name)
	return len(ts.names) - 1
}

// Index is the number of name, and whether it is in the set.
func (ts *TagSet) Index(name string) (int, bool) {
	i, ok := ts.index[name]
	return i, ok
}

// Name is the tag numbered i.
func (ts *TagSet) Name(i int) string { return ts.names[i] }

// Names lists the tags in index order.
func (ts *TagSet) Names() []string { return ts.names }

// Len is the number of tags.
func (ts *TagSet) Len() int { return len(ts.names) }

// Encode maps tags to their numbers; an unknown tag is an error.
func (ts *TagSet) Encode(tags []string, dst []int) ([]int, error) {
	dst = dst[:0]
	for _, t := range tags {
		i, ok := ts.index[t]
		if !ok {
			return nil, fmt.Errorf("tag %q is not in the model", t)
		}
		dst = append(dst, i)
	}
	return dst, nil
}

// Params is one non-negative number per DMV event, in dense tables: a
// model's probabilities, a count table, or the weights fed to the chart
// (probabilities raised to β, exponentiated log-linear weights, ...).
// Cont is stored beside Stop because only probabilities have
// cont = 1 − stop. V is the valence settings (valence.go): the plain
// DMV's tables are those of V = DMVValence, two decision valences (Adj,
// NonAdj) and one child distribution per head and direction.
type Params struct {
	T     int       // number of tags
	V     Valence   // how many valences decisions and children tell apart
	Root  []float64 // [arg]
	Child []float64 // [((head·2 + dir)·V.Child + valence)·T + arg]
	Stop  []float64 // [(head·2 + dir)·V.Stop + valence]
	Cont  []float64 // [(head·2 + dir)·V.Stop + valence]
	// Backoff, when not nil (a DMV that learns its child back-off,
	// backoff.go), is laid out as Child: of a model, the part of each
	// Child entry drawn from the back-off, λ(h, dir, v)·P_b(a | dir, v);
	// of counts, the expected attachments made through it.
	Backoff []float64
}

// NewParams makes an all-zero table of the plain DMV for t tags.
func NewParams(t int) *Params { return NewValenceParams(t, DMVValence) }

// NewValenceParams makes an all-zero table for t tags with valence
// settings v (already checked: Valence.Check).
func NewValenceParams(t int, v Valence) *Params {
	// Written when made: counts are added to them (memory.Zeroed).
	return &Params{
		T:     t,
		V:     v,
		Root:  memory.Zeroed[float64](t),
		Child: memory.Zeroed[float64](t * 2 * v.Child * t),
		Stop:  memory.Zeroed[float64](t * 2 * v.Stop),
		Cont:  memory.Zeroed[float64](t * 2 * v.Stop),
	}
}

// ChildIndex is the position of child(head, dir, arg) in Child, of the
// first (for the plain DMV, the only) child valence.
func (p *Params) ChildIndex(head, dir, arg int) int { return (head*2+dir)*p.V.Child*p.T + arg }

// ChildAt is the position of child(head, dir, valence, arg) in Child.
func (p *Params) ChildAt(head, dir, valence, arg int) int {
	return ((head*2+dir)*p.V.Child+valence)*p.T + arg
}

// DecisionAt is the position of stop/cont(head, dir, valence) in Stop
// and Cont.
func (p *Params) DecisionAt(head, dir, valence int) int { return (head*2+dir)*p.V.Stop + valence }

// DecisionIndex is the position of stop/cont(head, dir, valence) in the
// plain DMV's tables.
func DecisionIndex(head, dir, valence int) int { return (head*2+dir)*2 + valence }

// Clone copies p.
func (p *Params) Clone() *Params {
	q := NewValenceParams(p.T, p.V)
	if p.Backoff != nil {
		q.Backoff = make([]float64, len(p.Backoff))
	}
	q.CopyFrom(p)
	return q
}

// SameShape says whether p and q have the same tags and valences, the
// same tables (a Backoff table aside).
func (p *Params) SameShape(q *Params) bool { return p.T == q.T && p.V == q.V }

// CopyFrom overwrites p with q, of the same shape (a Backoff table only
// where p has one); tables of other shapes panic, where a copy would have
// cut one silently short.
func (p *Params) CopyFrom(q *Params) {
	if !p.SameShape(q) {
		panic(fmt.Sprintf("dmv: CopyFrom a table of %d tags, %s into one of %d tags, %s", q.T, q.V, p.T, p.V))
	}
	copy(p.Root, q.Root)
	copy(p.Child, q.Child)
	copy(p.Stop, q.Stop)
	copy(p.Cont, q.Cont)
	copy(p.Backoff, q.Backoff)
}

// Zero sets every entry to 0.
func (p *Params) Zero() {
	clear(p.Root)
	clear(p.Child)
	clear(p.Stop)
	clear(p.Cont)
	clear(p.Backoff)
}

// Add adds q to p entry by entry.
func (p *Params) Add(q *Params) {
	addTo(p.Root, q.Root)
	addTo(p.Child, q.Child)
	addTo(p.Stop, q.Stop)
	addTo(p.Cont, q.Cont)
	if q.Backoff != nil {
		if p.Backoff == nil {
			p.Backoff = make([]float64, len(p.Child))
		}
		addTo(p.Backoff, q.Backoff)
	}
}

// Fill sets every entry to v.
func (p *Params) Fill(v float64) {
	p.apply(func(float64) float64 { return v })
}

// Tables are the four tables, for code that treats every entry alike.
func (p *Params) Tables() [4][]float64 { return [4][]float64{p.Root, p.Child, p.Stop, p.Cont} }

// entries are the four tables and the back-off's, when p has one: what
// is checked, hashed and written.
func (p *Params) entries() [][]float64 {
	tabs := p.Tables()
	if p.Backoff != nil {
		return append(tabs[:], p.Backoff)
	}
	return tabs[:]
}

func (p *Params) apply(f func(float64) float64) {
	for _, tab := range p.entries() {
		for i, v := range tab {
			tab[i] = f(v)
		}
	}
}

// addTo adds src to dst entry by entry (eight at a time with AVX-512:
// the E-step folds a count table per chunk of the corpus).
func addTo(dst, src []float64) { vec8.AddTo(dst, src) }
