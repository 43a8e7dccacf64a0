package dmv

import (
	"errors"
	"fmt"
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/memory"
)

// TableBuilder collects event records (a model, or count shards) into a
// Table. Tags are those the events mention, in sorted order.
//
// Models and counts are read on every step of a shell loop, so events go
// straight into dense tables indexed by their tags' order of first
// appearance (no record kept per event, no string looked up twice), and
// the readers' plain lines need no format.Event at all (scanLine); Build
// sorts the tags and moves the entries to their places.
type TableBuilder struct {
	ids   map[string]int32 // tag → its number here (order of appearance)
	names []string         // by number
	tags  []builderTag     // by number
	// The numbers of the last head and argument looked up: events come
	// grouped by head, their arguments in the order of the root events.
	lastHead, lastArg int32
	held              heldEvent // for commit
	lastID            int32     // the last ID given to an entry
	n                 int       // events added
	twice             string    // the first event given twice (a model), for Build
	stats             *format.Stats
	unit              format.Unit
	// val is the valence settings the headers gave (zero: none read yet,
	// the plain DMV's).
	val Valence
	// backoff says whether a backoff event was added (Params.Backoff).
	backoff bool
	// Sum adds repeated events and stats records (count shards); without
	// it a repeated event or stats record is an error (a model).
	Sum bool
	// MaxMemory bounds the dense tables Build makes (bytes; ≤ 0: no
	// bound): counts may name many tags in few records, and a table of t
	// tags has 2t² entries. A model names every entry, so its tables are
	// as large as its file.
	MaxMemory int64
}

// valence is the settings of the events read: the headers', else the
// plain DMV's.
func (b *TableBuilder) valence() Valence { return b.val.OrDMV() }

// header takes a header's valence settings (eventio.Kind.Header): every
// shard of a count stream must have the same.
func (b *TableBuilder) header(h *format.Header) error {
	v, err := headerValence(h)
	switch {
	case err != nil:
		return err
	case b.val != (Valence{}) && v != b.val:
		return fmt.Errorf("this shard's valence settings (%s) are not those of the earlier shards (%s)", v, b.val)
	}
	b.val = v
	return nil
}

// builderTag holds the entries of one tag: as a root's argument, and as
// a head its stop and cont decisions (decisionSlot) and its children by
// direction and argument number.
type builderTag struct {
	used     bool // mentioned by an event added (not only looked up)
	root     entry
	decision [8]entry
	child    [2][]entry
	// With valence settings: the decision slots beyond 8, and the child
	// entries of valences beyond the first ([dir·(Child−1) + valence−1]).
	moreDecision []entry
	moreChild    [][]entry
	// backoff holds the backoff entries ([dir·Child + valence]), made at
	// the first.
	backoff [][]entry
}

// decisionEntry is the entry of a decision of bt in slot i (decisionSlot).
func (bt *builderTag) decisionEntry(i int, v Valence) *entry {
	if i < len(bt.decision) {
		return &bt.decision[i]
	}
	if bt.moreDecision == nil {
		bt.moreDecision = make([]entry, 4*v.Stop-len(bt.decision))
	}
	return &bt.moreDecision[i-len(bt.decision)]
}

// kids are the child entries of bt on side dir at valence cv.
func (bt *builderTag) kids(dir, cv int, v Valence) *[]entry {
	if cv == 0 {
		return &bt.child[dir]
	}
	if bt.moreChild == nil {
		bt.moreChild = make([][]entry, 2*(v.Child-1))
	}
	return &bt.moreChild[dir*(v.Child-1)+cv-1]
}

type entry struct {
	value float64
	set   bool
	id    int32 // the event's ID, from 1 in order of first sight (0: none yet)
}

func decisionSlot(dir, valence, stopValences int, cont bool) int {
	i := (dir*stopValences + valence) * 2
	if cont {
		i++
	}
	return i
}

// heldEvent is an event hold has found its entry for: kind (an Ev
// constant), head and direction (not of root), argument (of root and
// child), adjacency (of stop and cont), unit and value.
type heldEvent struct {
	at        *entry // valid until the next hold
	ev        string
	head, arg int32
	dir       int
	adj       bool
	val       int // of a model with valence settings
	unit      format.Unit
	value     float64
}

// expect makes room for the tags of a model or shard of n events.
func (b *TableBuilder) expect(n int) {
	if b.tags != nil {
		return
	}
	t := 0
	for NumEvents(t, b.valence()) < n {
		t++
	}
	b.ids = make(map[string]int32, t)
	b.names = make([]string, 0, t)
	b.tags = make([]builderTag, 0, t)
}

// tag numbers name, giving it the next number when new. last is the
// number of the tag last looked up in the same role: most lookups are
// of it or of the next one, and take no map.
func (b *TableBuilder) tag(name []byte, last *int32) int32 {
	n := *last
	switch {
	case int(n) < len(b.names) && b.names[n] == string(name):
	case int(n)+1 < len(b.names) && b.names[n+1] == string(name):
		n++
	default:
		var ok bool
		if n, ok = b.ids[string(name)]; !ok {
			if b.ids == nil {
				b.ids = map[string]int32{}
			}
			n = int32(len(b.names))
			b.ids[string(name)] = n
			b.names = append(b.names, string(name))
			b.tags = append(b.tags, builderTag{})
		}
	}
	*last = n
	return n
}

// hold finds the entry of an event of kind ev (an Ev constant of the
// DMV), numbering its tags, and holds the event for commit; it returns
// the event's ID: a number from 1 that tells it from every other DMV
// event, given in order of first sight (eventio's "given twice" check
// indexes a table by it). The fields an event's kind has not (a root's
// head and direction, a child's adjacency) are not looked at, as for
// describe.
func (b *TableBuilder) hold(ev string, head, arg []byte, dir string, adj bool, val int, unit format.Unit, value float64) uint64 {
	h := heldEvent{ev: ev, unit: unit, value: value, val: val}
	v := b.valence()
	if ev != format.EvRoot {
		h.head, h.dir = b.tag(head, &b.lastHead), dirIndex(dir)
	}
	if ev == format.EvStop || ev == format.EvCont {
		h.adj = adj
		if v.IsDMV() {
			h.val = NonAdj
			if adj {
				h.val = Adj
			}
		}
	}
	if ev == format.EvRoot || ev == format.EvChild || ev == format.EvBackoff {
		h.arg = b.tag(arg, &b.lastArg)
	}
	switch ev {
	case format.EvRoot:
		h.at = &b.tags[h.arg].root
	case format.EvChild, format.EvBackoff:
		bt := &b.tags[h.head]
		kids := bt.kids(h.dir, h.val, v)
		if ev == format.EvBackoff {
			if bt.backoff == nil {
				bt.backoff = make([][]entry, 2*v.Child)
			}
			kids = &bt.backoff[h.dir*v.Child+h.val]
		}
		switch a := int(h.arg); {
		case a < len(*kids):
		case a < cap(*kids):
			*kids = (*kids)[:a+1]
		default:
			// room for every tag known so far (a model's root events
			// have named them all before its first child event)
			// (written when made: an entry is read before it is set,
			// memory.Zeroed)
			grown := memory.Zeroed[entry](max(2*a+1, len(b.tags)))[:a+1]
			copy(grown, *kids)
			*kids = grown
		}
		h.at = &(*kids)[h.arg]
	default:
		h.at = b.tags[h.head].decisionEntry(decisionSlot(h.dir, h.val, v.Stop, ev == format.EvCont), v)
	}
	if h.at.id == 0 {
		b.lastID++
		h.at.id = b.lastID
	}
	b.held = h
	return uint64(h.at.id)
}

// IsEvent tells the event kinds of the DMV (root, child, stop, cont,
// and backoff of one that learns its back-off).
func IsEvent(ev string) bool {
	switch ev {
	case format.EvRoot, format.EvChild, format.EvStop, format.EvCont, format.EvBackoff:
		return true
	}
	return false
}

// id is the ID of an event read the long way (eventio.Kind.ID).
func (b *TableBuilder) id(e *format.Event) uint64 {
	if !IsEvent(e.Ev) || b.checkValence(e) != nil {
		return 0 // not an event of this DMV: add refuses it
	}
	return b.hold(e.Ev, []byte(e.Head), []byte(e.Arg), e.Dir, e.Adj, e.Val, e.Unit, e.Value)
}

// checkValence says whether e's valence fits the settings of the
// headers: none (adj on stop and cont) for the plain DMV, a val below
// the setting for every stop, cont and child event otherwise.
func (b *TableBuilder) checkValence(e *format.Event) error {
	v := b.valence()
	switch {
	case e.Ev == format.EvRoot:
		if e.HasVal {
			return errors.New(`a root event has no "val"`)
		}
	case v.IsDMV():
		if e.HasVal {
			return errors.New(`an event with "val" where the header has no valence settings (a DMV's events have none; its stop and cont events carry "adj")`)
		}
	case !e.HasVal:
		return fmt.Errorf(`an event without "val" in a model or counts with %s (the header's)`, v)
	case (e.Ev == format.EvChild || e.Ev == format.EvBackoff) && e.Val >= v.Child:
		return fmt.Errorf("child valence %d where the header's child valence is %d (valences 0 to %d)", e.Val, v.Child, v.Child-1)
	case e.Ev != format.EvChild && e.Ev != format.EvBackoff && e.Val >= v.Stop:
		return fmt.Errorf("decision valence %d where the header's stop valence is %d (valences 0 to %d)", e.Val, v.Stop, v.Stop-1)
	}
	return nil
}

// scanLine is the readers' short road (eventio.Kind.Short): a DMV event
// line as grind writes it (format.ScanDMVLine) carrying unit, held for
// commit when it is one the long road (format.Event, Validate, add)
// would take without error. It returns the event's ID.
func (b *TableBuilder) scanLine(line []byte, unit format.Unit) (uint64, bool) {
	l, ok := format.ScanDMVLine(line)
	v := l.Value
	switch {
	case !ok || l.Unit != unit || b.unit != 0 && b.unit != unit || !b.valence().IsDMV():
		return 0, false
	case math.IsNaN(v) || math.IsInf(v, 0) || v < 0 && unit != format.Weight || v > 1 && unit == format.Prob:
		return 0, false
	case l.Ev != format.EvRoot && len(l.Head) == 0:
		return 0, false
	case (l.Ev == format.EvRoot || l.Ev == format.EvChild) && len(l.Arg) == 0:
		return 0, false
	}
	return b.hold(l.Ev, l.Head, l.Arg, l.Dir, l.Adj, 0, l.Unit, v), true
}

// Add takes one event. Headers are the readers' business (io.go): only
// their valence settings are taken.
func (b *TableBuilder) Add(e format.Event) error { return b.add(&e) }

func (b *TableBuilder) add(e *format.Event) error {
	if e.Ev == format.EvHeader {
		return b.header(e.Header)
	}
	if err := e.Validate(); err != nil {
		return err
	}
	return b.addValid(e)
}

// addValid is add for the readers of eventio, which validate every event
// and take headers themselves before they pass it on.
func (b *TableBuilder) addValid(e *format.Event) error {
	switch {
	case e.Ev == format.EvStats:
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
		b.stats.LeftOut += e.Stats.LeftOut
		return nil
	case !IsEvent(e.Ev):
		return fmt.Errorf("a %q event in a DMV model or counts", e.Ev)
	}
	if b.unit != 0 && e.Unit != b.unit {
		return fmt.Errorf("event carries %q but earlier events carry %q", string(e.Unit), string(b.unit))
	}
	if err := b.checkValence(e); err != nil {
		return err
	}
	b.hold(e.Ev, []byte(e.Head), []byte(e.Arg), e.Dir, e.Adj, e.Val, e.Unit, e.Value)
	b.commit()
	return nil
}

// commit adds the event held by hold (scanLine, or addValid).
func (b *TableBuilder) commit() {
	h := &b.held
	if h.ev != format.EvRoot {
		b.tags[h.head].used = true
	}
	if h.ev == format.EvRoot || h.ev == format.EvChild || h.ev == format.EvBackoff {
		b.tags[h.arg].used = true
	}
	if h.ev == format.EvBackoff {
		b.backoff = true
	}
	if h.at.set && !b.Sum && b.twice == "" {
		b.twice = b.describeHeld()
	}
	h.at.set = true
	h.at.value += h.value
	b.unit = h.unit
	b.n++
}

// describeHeld is describe of the held event.
func (b *TableBuilder) describeHeld() string {
	h := &b.held
	e := format.Event{Ev: h.ev, Dir: dirNames[h.dir], Adj: h.adj, Arg: b.names[h.arg]}
	if !b.valence().IsDMV() && h.ev != format.EvRoot {
		e.Val, e.HasVal = h.val, true
	}
	if h.ev != format.EvRoot {
		e.Head = b.names[h.head]
	}
	return Describe(e)
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
	val := b.valence()
	want := NumEvents(len(names), val)
	if b.backoff {
		want += 2 * val.Child * len(names) * len(names)
	}
	if got := b.n; !b.Sum && got != want {
		return nil, fmt.Errorf("%d events for %d tags, a model has %d: some parameters are missing", got, len(names), want)
	}
	t := int64(len(names))
	// the tables: t roots, 2·Child·t² children, 2·2·Stop·t decisions
	if err := memory.Check(memory.Of(memory.Add(t, memory.Mul(2, int64(val.Child), t, t), memory.Mul(4, int64(val.Stop), t)), 8), b.MaxMemory, func() string {
		return fmt.Sprintf("a DMV table of %d tags", t)
	}, ""); err != nil {
		return nil, err
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
	p := NewValenceParams(ts.Len(), val)
	if b.backoff {
		p.Backoff = make([]float64, len(p.Child))
	}
	for n := range b.tags {
		bt, h := &b.tags[n], to[n]
		if h < 0 {
			continue
		}
		p.Root[h] = bt.root.value
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < val.Stop; v++ {
				i := p.DecisionAt(h, dir, v)
				p.Stop[i] = bt.decisionEntry(decisionSlot(dir, v, val.Stop, false), val).value
				p.Cont[i] = bt.decisionEntry(decisionSlot(dir, v, val.Stop, true), val).value
			}
			for v := 0; v < val.Child; v++ {
				for a, kid := range *bt.kids(dir, v, val) {
					if kid.set {
						p.Child[p.ChildAt(h, dir, v, to[a])] = kid.value
					}
				}
				if bt.backoff == nil {
					continue
				}
				for a, kid := range bt.backoff[dir*val.Child+v] {
					if kid.set {
						p.Backoff[p.ChildAt(h, dir, v, to[a])] = kid.value
					}
				}
			}
		}
	}
	return &Table{Tags: ts, Params: p, Unit: b.unit, Stats: b.stats, events: b.n}, nil
}
