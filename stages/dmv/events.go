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
	// Only the fields that change are set: the record is large, and
	// thousands are written on every step of a shell loop.
	e := format.Event{Ev: format.EvRoot, Unit: unit}
	for a := 0; a < t; a++ {
		e.Arg, e.Value = ts.Name(a), p.Root[a]
		if err := emit(&e); err != nil {
			return err
		}
	}
	for h := 0; h < t; h++ {
		e.Head, e.Arg = ts.Name(h), ""
		for dir := Left; dir <= Right; dir++ {
			e.Dir = dirNames[dir]
			for v := Adj; v <= NonAdj; v++ {
				i := DecisionIndex(h, dir, v)
				e.Adj = v == Adj
				e.Ev, e.Value = format.EvStop, p.Stop[i]
				if err := emit(&e); err != nil {
					return err
				}
				e.Ev, e.Value = format.EvCont, p.Cont[i]
				if err := emit(&e); err != nil {
					return err
				}
			}
		}
		e.Ev, e.Adj = format.EvChild, false
		for dir := Left; dir <= Right; dir++ {
			e.Dir = dirNames[dir]
			for a := 0; a < t; a++ {
				e.Arg, e.Value = ts.Name(a), p.Child[p.ChildIndex(h, dir, a)]
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
//
// Models and counts are read on every step of a shell loop, so events go
// straight into dense tables indexed by their tags' order of first
// appearance (no record kept per event, no string looked up twice);
// Build sorts the tags and moves the entries to their places.
type TableBuilder struct {
	ids   map[string]int32 // tag → its number here (order of appearance)
	names []string         // by number
	tags  []builderTag     // by number
	// The numbers of the last head and argument looked up: events come
	// grouped by head, their arguments in the order of the root events.
	lastHead, lastArg int32
	n                 int    // events added
	twice             string // the first event given twice (a model), for Build
	stats             *format.Stats
	unit              format.Unit
	// Sum adds repeated events and stats records (count shards); without
	// it a repeated event or stats record is an error (a model).
	Sum bool
}

// builderTag holds the entries of one tag: as a root's argument, and as
// a head its stop and cont decisions (decisionSlot) and its children by
// direction and argument number.
type builderTag struct {
	used     bool // mentioned by an event added (not only looked up)
	root     entry
	decision [8]entry
	child    [2][]entry
}

type entry struct {
	value float64
	set   bool
}

func decisionSlot(dir, valence int, cont bool) int {
	i := (dir*2 + valence) * 2
	if cont {
		i++
	}
	return i
}

// expect makes room for the tags of a model or shard of n events.
func (b *TableBuilder) expect(n int) {
	if b.tags != nil {
		return
	}
	t := 0
	for NumEvents(t) < n {
		t++
	}
	b.ids = make(map[string]int32, t)
	b.names = make([]string, 0, t)
	b.tags = make([]builderTag, 0, t)
}

// tag numbers name, giving it the next number when new. last is the
// number of the tag last looked up in the same role: most lookups are
// of it or of the next one, and take no map.
func (b *TableBuilder) tag(name string, last *int32) int32 {
	n := *last
	switch {
	case int(n) < len(b.names) && b.names[n] == name:
	case int(n)+1 < len(b.names) && b.names[n+1] == name:
		n++
	default:
		var ok bool
		if n, ok = b.ids[name]; !ok {
			if b.ids == nil {
				b.ids = map[string]int32{}
			}
			n = int32(len(b.names))
			b.ids[name] = n
			b.names = append(b.names, name)
			b.tags = append(b.tags, builderTag{})
		}
	}
	*last = n
	return n
}

// id is a number that tells a DMV event from every other (eventio's
// "given twice" check): its kind, direction, valence and tags' numbers.
func (b *TableBuilder) id(e *format.Event) uint64 {
	var kind, head, arg uint64
	switch e.Ev {
	case format.EvRoot:
		kind, arg = 1, uint64(b.tag(e.Arg, &b.lastArg))
	case format.EvChild:
		kind, head, arg = 2, uint64(b.tag(e.Head, &b.lastHead)), uint64(b.tag(e.Arg, &b.lastArg))
	case format.EvStop, format.EvCont:
		kind, head = 3, uint64(b.tag(e.Head, &b.lastHead))
		if e.Ev == format.EvCont {
			kind = 4
		}
	default:
		return 0 // not an event of the DMV: add refuses it
	}
	id := kind<<60 | head<<30 | arg
	if dirIndex(e.Dir) == Right {
		id |= 1 << 63
	}
	if e.Adj {
		id |= 1 << 59
	}
	return id
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
	return b.addValid(e)
}

// addValid is add for the readers of eventio, which validate every event
// before they pass it on.
func (b *TableBuilder) addValid(e *format.Event) error {
	if e.Ev == format.EvHeader {
		return nil
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
	switch e.Ev {
	case format.EvRoot, format.EvChild, format.EvStop, format.EvCont:
	default:
		return fmt.Errorf("a %q event in a DMV model or counts", e.Ev)
	}
	if b.unit == 0 {
		b.unit = e.Unit
	} else if e.Unit != b.unit {
		return fmt.Errorf("event carries %q but earlier events carry %q", string(e.Unit), string(b.unit))
	}
	if e.Value < 0 && e.Unit != format.Weight || e.Value != e.Value {
		return fmt.Errorf("%s event has invalid value %v", e.Ev, e.Value)
	}
	var at *entry
	dir := dirIndex(e.Dir)
	switch e.Ev {
	case format.EvRoot:
		at = &b.tags[b.use(e.Arg, &b.lastArg)].root
	case format.EvChild:
		h, a := b.use(e.Head, &b.lastHead), b.use(e.Arg, &b.lastArg)
		kids := &b.tags[h].child[dir]
		switch {
		case int(a) < len(*kids):
		case int(a) < cap(*kids):
			*kids = (*kids)[:a+1]
		default:
			// room for every tag known so far (a model's root events
			// have named them all before its first child event)
			grown := make([]entry, int(a)+1, max(2*int(a)+1, len(b.tags)))
			copy(grown, *kids)
			*kids = grown
		}
		at = &(*kids)[a]
	default:
		v := NonAdj
		if e.Adj {
			v = Adj
		}
		at = &b.tags[b.use(e.Head, &b.lastHead)].decision[decisionSlot(dir, v, e.Ev == format.EvCont)]
	}
	if at.set && !b.Sum && b.twice == "" {
		b.twice = describe(format.Event{Ev: e.Ev, Head: e.Head, Dir: dirNames[dir], Arg: e.Arg, Adj: e.Adj})
	}
	at.set = true
	at.value += e.Value
	b.n++
	return nil
}

// use numbers a tag an added event mentions.
func (b *TableBuilder) use(name string, last *int32) int32 {
	n := b.tag(name, last)
	b.tags[n].used = true
	return n
}

// Build makes the table. It fails when there were no events.
func (b *TableBuilder) Build() (*Table, error) {
	if b.n == 0 {
		return nil, fmt.Errorf("no events")
	}
	if b.twice != "" {
		return nil, fmt.Errorf("event given twice: %s", b.twice)
	}
	var names []string
	for n, name := range b.names {
		if b.tags[n].used {
			names = append(names, name)
		}
	}
	ts := SortedTagSet(names)
	// to[n] is the tag numbered n here in ts (-1: not used)
	to := make([]int, len(b.tags))
	for i := range to {
		to[i] = -1
	}
	for i, name := range ts.Names() {
		to[b.ids[name]] = i
	}
	p := NewParams(ts.Len())
	for n := range b.tags {
		bt, h := &b.tags[n], to[n]
		if h < 0 {
			continue
		}
		p.Root[h] = bt.root.value
		for dir := Left; dir <= Right; dir++ {
			for v := Adj; v <= NonAdj; v++ {
				i := DecisionIndex(h, dir, v)
				p.Stop[i] = bt.decision[decisionSlot(dir, v, false)].value
				p.Cont[i] = bt.decision[decisionSlot(dir, v, true)].value
			}
			for a, kid := range bt.child[dir] {
				if kid.set {
					p.Child[p.ChildIndex(h, dir, to[a])] = kid.value
				}
			}
		}
	}
	return &Table{Tags: ts, Params: p, Unit: b.unit, Stats: b.stats, events: b.n}, nil
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
	// what names the multinomial, made only for the error (a model has
	// hundreds of multinomials, read and written every step of a loop).
	check := func(sum float64, what func() string) error {
		if math.Abs(sum-1) > SumTolerance {
			return fmt.Errorf("%s sums to %.17g, not 1 (tolerance %g): not a normalised model", what(), sum, SumTolerance)
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
	if err := check(sum(p.Root), func() string { return "root" }); err != nil {
		return err
	}
	for h := 0; h < t; h++ {
		for dir := Left; dir <= Right; dir++ {
			if err := check(sum(p.Child[p.ChildIndex(h, dir, 0):p.ChildIndex(h, dir, t)]), func() string { return childName(ts, h, dir) }); err != nil {
				return err
			}
			for v := Adj; v <= NonAdj; v++ {
				i := DecisionIndex(h, dir, v)
				if err := check(p.Stop[i]+p.Cont[i], func() string { return decisionName(ts, h, dir, v) }); err != nil {
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
	bad := func(s float64, what func() string) error {
		if math.IsInf(s, 0) || math.IsNaN(s) {
			return fmt.Errorf("M-step overflow: the counts of %s add up to %v, beyond floating point", what(), s)
		}
		return nil
	}
	t := ts.Len()
	if err := bad(total(counts.Root), func() string { return "root" }); err != nil {
		return err
	}
	for h := 0; h < t; h++ {
		for dir := Left; dir <= Right; dir++ {
			if err := bad(total(counts.Child[counts.ChildIndex(h, dir, 0):counts.ChildIndex(h, dir, t)]), func() string { return childName(ts, h, dir) }); err != nil {
				return err
			}
			for v := Adj; v <= NonAdj; v++ {
				i := DecisionIndex(h, dir, v)
				if err := bad(counts.Stop[i]+counts.Cont[i]+2*lambda, func() string { return decisionName(ts, h, dir, v) }); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// childName and decisionName name a multinomial in the errors of
// CheckDistribution and CheckTotals.
func childName(ts *TagSet, h, dir int) string {
	return fmt.Sprintf("child %s %s", ts.Name(h), dirNames[dir])
}

func decisionName(ts *TagSet, h, dir, v int) string {
	return fmt.Sprintf("stop+cont %s %s adj=%v", ts.Name(h), dirNames[dir], v == Adj)
}
