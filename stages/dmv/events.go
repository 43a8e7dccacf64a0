package dmv

import (
	"fmt"
	"math"
	"strconv"

	"github.com/grind-nlp/grind/format"
)

var dirNames = [2]string{format.Left, format.Right}

func dirIndex(name string) int {
	if name == format.Left {
		return Left
	}
	return Right
}

// Events lists every entry of p as an event record carrying unit, in a
// fixed order: root events, then for each head its stop and cont
// decisions (left adj, left non-adj, right adj, right non-adj) and its
// left and right children. Zero entries are written too, so a model file
// says every parameter explicitly.
func Events(ts *TagSet, p *Params, unit format.Unit) []format.Event {
	evs := make([]format.Event, 0, NumEvents(ts.Len()))
	eachEvent(ts, p, unit, func(e *format.Event) error {
		evs = append(evs, *e)
		return nil
	})
	return evs
}

// eachEvent gives the events of Events one by one to emit, in one reused
// record, and stops at emit's first error.
func eachEvent(ts *TagSet, p *Params, unit format.Unit, emit func(*format.Event) error) error {
	t := ts.Len()
	var e format.Event
	for a := 0; a < t; a++ {
		e = format.Event{Ev: format.EvRoot, Arg: ts.Name(a), Unit: unit, Value: p.Root[a]}
		if err := emit(&e); err != nil {
			return err
		}
	}
	for h := 0; h < t; h++ {
		head := ts.Name(h)
		for dir := Left; dir <= Right; dir++ {
			for v := Adj; v <= NonAdj; v++ {
				i := DecisionIndex(h, dir, v)
				e = format.Event{Ev: format.EvStop, Head: head, Dir: dirNames[dir], Adj: v == Adj, Unit: unit, Value: p.Stop[i]}
				if err := emit(&e); err != nil {
					return err
				}
				e = format.Event{Ev: format.EvCont, Head: head, Dir: dirNames[dir], Adj: v == Adj, Unit: unit, Value: p.Cont[i]}
				if err := emit(&e); err != nil {
					return err
				}
			}
		}
		for dir := Left; dir <= Right; dir++ {
			for a := 0; a < t; a++ {
				e = format.Event{Ev: format.EvChild, Head: head, Dir: dirNames[dir], Arg: ts.Name(a), Unit: unit, Value: p.Child[p.ChildIndex(h, dir, a)]}
				if err := emit(&e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Table is a set of events read back into dense form.
type Table struct {
	Tags   *TagSet
	Params *Params
	Unit   format.Unit
	Stats  *format.Stats // the stats record, when the stream had one
	// Of counts read by ReadCounts: the model hash their E-steps ran
	// with, the order-free sum of their shards' corpus hashes, and how
	// many shards were added.
	Model, Corpus string
	Shards        int
	events        int // event records read
}

// TableBuilder collects event records (a model, or count shards) into a
// Table. Tags are those the events mention, in sorted order.
type TableBuilder struct {
	events []tableEvent
	stats  *format.Stats
	unit   format.Unit
	// Sum adds repeated events and stats records (count shards); without
	// it a repeated event or stats record is an error (a model).
	Sum bool
}

// tableEvent is the part of an event a table keeps (a format.Event is
// several times its size, and a model has thousands).
type tableEvent struct {
	ev        string
	head, arg string
	dir       int
	adj       bool
	value     float64
}

func (e *tableEvent) event() format.Event {
	return format.Event{Ev: e.ev, Head: e.head, Dir: dirNames[e.dir], Arg: e.arg, Adj: e.adj}
}

// Add takes one event. Headers are the readers' business (io.go) and
// are passed over.
func (b *TableBuilder) Add(e format.Event) error { return b.add(&e) }

func (b *TableBuilder) add(e *format.Event) error {
	if e.Ev == format.EvHeader {
		return nil
	}
	if err := e.Validate(); err != nil {
		return err
	}
	if e.Ev == format.EvStats {
		if b.stats != nil && !b.Sum {
			return fmt.Errorf("a second stats record")
		}
		if b.stats == nil {
			s := *e.Stats
			b.stats = &s
			return nil
		}
		b.stats.Sentences += e.Stats.Sentences
		b.stats.Tokens += e.Stats.Tokens
		b.stats.Loglik += e.Stats.Loglik
		return nil
	}
	if b.unit == 0 {
		b.unit = e.Unit
	} else if e.Unit != b.unit {
		return fmt.Errorf("event carries %q but earlier events carry %q", string(e.Unit), string(b.unit))
	}
	if e.Value < 0 && e.Unit != format.Weight || e.Value != e.Value {
		return fmt.Errorf("%s event has invalid value %v", e.Ev, e.Value)
	}
	b.events = append(b.events, tableEvent{ev: e.Ev, head: e.Head, arg: e.Arg, dir: dirIndex(e.Dir), adj: e.Adj, value: e.Value})
	return nil
}

// Build makes the table. It fails when there were no events.
func (b *TableBuilder) Build() (*Table, error) {
	if len(b.events) == 0 {
		return nil, fmt.Errorf("no events")
	}
	seen := map[string]bool{}
	var names []string
	last := "" // events come grouped by head: most lookups are the last name's
	for i := range b.events {
		e := &b.events[i]
		for _, n := range [2]string{e.head, e.arg} {
			if n != "" && n != last && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
			if n != "" {
				last = n
			}
		}
	}
	ts := SortedTagSet(names)
	p := NewParams(ts.Len())
	// which entries are set, by a key over all four tables
	set := make([]bool, len(p.Root)+len(p.Child)+len(p.Stop)+len(p.Cont))
	lastHead, lastH := "", 0
	head := func(name string) int { // events come grouped by head
		if name != lastHead || lastHead == "" {
			lastHead = name
			lastH, _ = ts.Index(name)
		}
		return lastH
	}
	for k := range b.events {
		e := &b.events[k]
		var tab []float64
		var i, key int
		switch e.ev {
		case format.EvRoot:
			a, _ := ts.Index(e.arg)
			tab, i, key = p.Root, a, a
		case format.EvChild:
			h := head(e.head)
			a, _ := ts.Index(e.arg)
			i = p.ChildIndex(h, e.dir, a)
			tab, key = p.Child, len(p.Root)+i
		case format.EvStop, format.EvCont:
			h := head(e.head)
			v := NonAdj
			if e.adj {
				v = Adj
			}
			i = DecisionIndex(h, e.dir, v)
			tab, key = p.Stop, len(p.Root)+len(p.Child)+i
			if e.ev == format.EvCont {
				tab, key = p.Cont, key+len(p.Stop)
			}
		}
		if set[key] && !b.Sum {
			return nil, fmt.Errorf("event given twice: %s", describe(e.event()))
		}
		set[key] = true
		tab[i] += e.value
	}
	return &Table{Tags: ts, Params: p, Unit: b.unit, Stats: b.stats, events: len(b.events)}, nil
}

// describe names an event for "given twice" (built without fmt: the
// count readers key every event by it).
func describe(e format.Event) string { return string(appendDescribe(nil, &e)) }

// appendDescribe appends describe's text to dst.
func appendDescribe(dst []byte, e *format.Event) []byte {
	switch e.Ev {
	case format.EvRoot:
		return append(append(dst, "root "...), e.Arg...)
	case format.EvChild:
		dst = append(append(dst, "child "...), e.Head...)
		dst = append(append(dst, ' '), e.Dir...)
		return append(append(dst, ' '), e.Arg...)
	}
	dst = append(append(dst, e.Ev...), ' ')
	dst = append(append(dst, e.Head...), ' ')
	dst = append(append(dst, e.Dir...), " adj="...)
	return strconv.AppendBool(dst, e.Adj)
}

// SumTolerance is how far from 1 a multinomial of a probability model may
// sum when read: models written by grind sum to 1 within a few ulps, so
// anything farther was edited, truncated to too few digits, or is not a
// model.
const SumTolerance = 1e-6

// CheckDistribution checks that p is a DMV over ts: every probability
// finite and in [0, 1], and each multinomial (root; child(h, dir); the
// stop/cont decision of (h, dir, valence)) summing to 1 within
// SumTolerance. The error names the first multinomial that does not.
func CheckDistribution(ts *TagSet, p *Params) error {
	for _, tab := range p.Tables() {
		for _, v := range tab {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("probability %v out of [0, 1]", v)
			}
		}
	}
	check := func(what string, sum float64) error {
		if math.Abs(sum-1) > SumTolerance {
			return fmt.Errorf("%s sums to %.17g, not 1 (tolerance %g): not a normalised model", what, sum, SumTolerance)
		}
		return nil
	}
	sum := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s
	}
	t := ts.Len()
	if err := check("root", sum(p.Root)); err != nil {
		return err
	}
	for h := 0; h < t; h++ {
		for dir := Left; dir <= Right; dir++ {
			if err := check(fmt.Sprintf("child %s %s", ts.Name(h), dirNames[dir]), sum(p.Child[p.ChildIndex(h, dir, 0):p.ChildIndex(h, dir, t)])); err != nil {
				return err
			}
			for v := Adj; v <= NonAdj; v++ {
				i := DecisionIndex(h, dir, v)
				if err := check(fmt.Sprintf("stop+cont %s %s adj=%v", ts.Name(h), dirNames[dir], v == Adj), p.Stop[i]+p.Cont[i]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// CheckTotals checks that every multinomial's total of counts plus λ per
// entry is finite, so an M-step over counts can normalise them: counts
// that are each finite can still add up beyond floating point.
func CheckTotals(ts *TagSet, counts *Params, lambda float64) error {
	total := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x + lambda
		}
		return s
	}
	bad := func(what string, s float64) error {
		if math.IsInf(s, 0) || math.IsNaN(s) {
			return fmt.Errorf("M-step overflow: the counts of %s add up to %v, beyond floating point", what, s)
		}
		return nil
	}
	t := ts.Len()
	if err := bad("root", total(counts.Root)); err != nil {
		return err
	}
	for h := 0; h < t; h++ {
		for dir := Left; dir <= Right; dir++ {
			if err := bad(fmt.Sprintf("child %s %s", ts.Name(h), dirNames[dir]), total(counts.Child[counts.ChildIndex(h, dir, 0):counts.ChildIndex(h, dir, t)])); err != nil {
				return err
			}
			for v := Adj; v <= NonAdj; v++ {
				i := DecisionIndex(h, dir, v)
				if err := bad(fmt.Sprintf("stop+cont %s %s adj=%v", ts.Name(h), dirNames[dir], v == Adj), counts.Stop[i]+counts.Cont[i]+2*lambda); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
