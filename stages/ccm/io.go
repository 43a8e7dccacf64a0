package ccm

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
)

// Family names of the headers of CCM models and counts: "ccm" for
// Klein's model, "ccm2" for Smith & Eisner's model 2, "ccm-classes" for
// Klein's multi-class CCM of two constituent classes or more (one is the
// CCM, written as "ccm").
const (
	Family        = "ccm"
	Family2       = "ccm2"
	FamilyClasses = "ccm-classes"
)

// FamilyOf is the header family of variant v.
func FamilyOf(v Variant) string {
	if v == Model2 {
		return Family2
	}
	return Family
}

// Family is m's header family: FamilyOf its variant, or FamilyClasses
// for two constituent classes or more.
func (m *Model) Family() string {
	if len(m.Classes) > 1 {
		return FamilyClasses
	}
	return FamilyOf(m.Variant)
}

// countsFamily is the header family of counts of variant v.
func countsFamily(cnt *Counts, v Variant) string {
	if len(cnt.Classes) > 1 {
		return FamilyClasses
	}
	return FamilyOf(v)
}

// headerClasses is the header's "classes" of a model or counts of these
// constituent classes: K, the distituent label one of them; 0 (not
// written) for the CCM's one.
func headerClasses(classes int) int {
	if classes > 1 {
		return classes + 1
	}
	return 0
}

func variantOf(family string) Variant {
	if family == Family2 {
		return Model2
	}
	return Model1
}

var bracketName = [2]string{Distituent: "distituent", Constituent: "constituent"}

func bracketOf(constituent bool) int {
	if constituent {
		return Constituent
	}
	return Distituent
}

// label is the tables of one label of a model: the distituent, the CCM's
// constituent, or one constituent class of a multi-class model (class 1
// …; 0 for the other two).
type label struct {
	constituent   bool
	class         int
	span, context []float64
	unseenSpan    []float64 // by length under ccm2
	unseenContext float64
}

// labels are m's tables by label, the constituent ones first: the CCM's
// constituent, or each class (one class is the CCM's constituent,
// written without its number), then the distituent.
func (m *Model) labels() []label {
	var out []label
	switch {
	case m.Classes == nil:
		out = append(out, label{true, 0, m.Span[Constituent], m.Context[Constituent], m.unseenSpan[Constituent], m.unseenContext[Constituent]})
	default:
		for l, cl := range m.Classes {
			class := l + 1
			if len(m.Classes) == 1 {
				class = 0
			}
			out = append(out, label{true, class, cl.Span, cl.Context, []float64{cl.unseenSpan}, cl.unseenContext})
		}
	}
	return append(out, label{false, 0, m.Span[Distituent], m.Context[Distituent], m.unseenSpan[Distituent], m.unseenContext[Distituent]})
}

// EachEvent calls fn with the model's parameters with unit p, in Sym's
// order: each yield as a constituent (of each class) and as a
// distituent, each context likewise, then the probabilities of unseen
// yields (by length under ccm2) and contexts. fn must not keep the
// event: the records of a corpus of long sentences (n²/2 yields of up to
// n tags each) are made one at a time, never held together.
func (m *Model) EachEvent(fn func(e *format.Event) error) error {
	m.Grow()
	labels := m.labels()
	var e format.Event
	var yield []string
	for y := range m.Sym.NumYields() {
		yield = m.Sym.appendYield(yield[:0], y)
		for _, l := range labels {
			e = format.Event{Ev: format.EvSpan, Yield: yield, Constituent: l.constituent, Class: l.class, Unit: format.Prob, Value: l.span[y]}
			if err := fn(&e); err != nil {
				return err
			}
		}
	}
	for x := range m.Sym.NumContexts() {
		left, right := m.Sym.Context(x)
		for _, l := range labels {
			e = format.Event{Ev: format.EvContext, Left: left, Right: right, Constituent: l.constituent, Class: l.class, Unit: format.Prob, Value: l.context[x]}
			if err := fn(&e); err != nil {
				return err
			}
		}
	}
	for _, l := range labels {
		for g, p := range l.unseenSpan {
			e = format.Event{Ev: format.EvUnseenSpan, Constituent: l.constituent, Class: l.class, Length: g, Unit: format.Prob, Value: p}
			if err := fn(&e); err != nil {
				return err
			}
		}
	}
	for _, l := range labels {
		e = format.Event{Ev: format.EvUnseenContext, Constituent: l.constituent, Class: l.class, Unit: format.Prob, Value: l.unseenContext}
		if err := fn(&e); err != nil {
			return err
		}
	}
	return nil
}

// NumEvents is how many events EachEvent gives.
func (m *Model) NumEvents() int {
	m.Grow()
	n := 0
	for _, l := range m.labels() {
		n += len(l.span) + len(l.context) + len(l.unseenSpan) + 1
	}
	return n
}

// CheckEvent refuses a probability that is not a number in [0, 1], for
// the writers, which check every event before writing any.
func CheckEvent(e *format.Event) error {
	if !(e.Value >= 0 && e.Value <= 1) {
		return fmt.Errorf("the model made is not valid (%s probability %v): nothing written", describe(e), e.Value)
	}
	return nil
}

// WriteModel writes m: its header and its events (EachEvent). A
// probability that is not a number in [0, 1] is refused before anything
// is written.
func WriteModel(w io.Writer, m *Model) error {
	if err := m.EachEvent(CheckEvent); err != nil {
		return err
	}
	return eventio.WriteEach(w, &format.Header{Family: m.Family(), Unit: format.Prob, Classes: headerClasses(len(m.Classes))}, m.NumEvents(), m.EachEvent, nil)
}

// WriteCounts writes one shard of counts over sym: its header (the
// hashes of the model its E-step ran with and of its sentences), each
// yield's and context's expected count as a constituent (of each class of
// a multi-class model) and as a distituent, and the stats record.
func WriteCounts(w io.Writer, cnt *Counts, sym *Symbols, v Variant, model, corpus string) error {
	if err := EachCount(cnt, sym, CheckCount); err != nil {
		return err
	}
	stats := &format.Stats{Sentences: cnt.Sentences, Tokens: cnt.Tokens, Loglik: cnt.LogLik}
	hdr := &format.Header{Family: countsFamily(cnt, v), Unit: format.Count, Model: model, Corpus: corpus, Classes: headerClasses(len(cnt.Classes))}
	return eventio.WriteEach(w, hdr, NumCounts(cnt, sym),
		func(emit func(*format.Event) error) error { return EachCount(cnt, sym, emit) }, stats)
}

// EachCount calls fn with the counts over sym as WriteCounts writes them,
// each yield's and context's expected count as a constituent (of each
// class, with two or more) and as a distituent; fn must not keep the
// event.
func EachCount(cnt *Counts, sym *Symbols, fn func(e *format.Event) error) error {
	// each calls emit with id's count under each label (the classes'
	// with two or more), the constituent ones first.
	each := func(plain func(b, id int) float64, ofClass func(ClassCounts) []float64, id int, emit func(constituent bool, class int, v float64) error) error {
		if len(cnt.Classes) < 2 {
			if err := emit(true, 0, plain(Constituent, id)); err != nil {
				return err
			}
		} else {
			for l, cc := range cnt.Classes {
				if err := emit(true, l+1, ofClass(cc)[id]); err != nil {
					return err
				}
			}
		}
		return emit(false, 0, plain(Distituent, id))
	}
	var e format.Event
	var yield []string
	for y := range sym.NumYields() {
		yield = sym.appendYield(yield[:0], y)
		if err := each(cnt.SpanCount, func(cc ClassCounts) []float64 { return cc.Span }, y, func(constituent bool, class int, v float64) error {
			e = format.Event{Ev: format.EvSpan, Yield: yield, Constituent: constituent, Class: class, Unit: format.Count, Value: v}
			return fn(&e)
		}); err != nil {
			return err
		}
	}
	for x := range sym.NumContexts() {
		left, right := sym.Context(x)
		if err := each(cnt.ContextCount, func(cc ClassCounts) []float64 { return cc.Context }, x, func(constituent bool, class int, v float64) error {
			e = format.Event{Ev: format.EvContext, Left: left, Right: right, Constituent: constituent, Class: class, Unit: format.Count, Value: v}
			return fn(&e)
		}); err != nil {
			return err
		}
	}
	return nil
}

// NumCounts is how many events EachCount gives.
func NumCounts(cnt *Counts, sym *Symbols) int {
	return (max(len(cnt.Classes), 1) + 1) * (sym.NumYields() + sym.NumContexts())
}

// CheckCount refuses a negative or infinite count (EachCount's events),
// before anything is written.
func CheckCount(e *format.Event) error {
	if !(e.Value >= 0) || math.IsInf(e.Value, 1) {
		return fmt.Errorf("a count of %s is %v: nothing written", describe(e), e.Value)
	}
	return nil
}

func describe(e *format.Event) string {
	b := "distituent"
	if e.Constituent {
		b = "constituent"
	}
	if e.Class > 0 {
		b = fmt.Sprintf("constituent class %d", e.Class)
	}
	// Tags quoted: the description is the key of "given twice", and a tag
	// may hold a space ("A B" is not the yield A, B).
	switch e.Ev {
	case format.EvSpan:
		return fmt.Sprintf("span %s %s", quoted(e.Yield), b)
	case format.EvContext:
		return fmt.Sprintf("context %q _ %q %s", e.Left, e.Right, b)
	case format.EvUnseenSpan:
		return fmt.Sprintf("unseen span of length %d %s", e.Length, b)
	}
	return fmt.Sprintf("%s %s", e.Ev, b)
}

// quoted writes tags as a list of quoted strings: ["DT" "NN"].
func quoted(tags []string) string {
	q := make([]string, len(tags))
	for i, t := range tags {
		q[i] = strconv.Quote(t)
	}
	return "[" + strings.Join(q, " ") + "]"
}

// builder collects CCM events into tables indexed by a Symbols, one
// table of each kind per label: [Distituent], then the constituent's
// ([Constituent]) or each class's (1 … classes).
type builder struct {
	sym     *Symbols
	sum     bool // counts: shards add up
	classes int  // constituent classes of a ccm-classes header; 0: the CCM's one
	headers int  // headers seen (count shards)
	span    []map[int32]float64
	context []map[int32]float64
	unseen  []map[int]float64 // unseen span probability by length
	unseenX []*float64
}

func newBuilder(sym *Symbols, sum bool) *builder {
	b := &builder{sym: sym, sum: sum}
	b.setLabels(2)
	return b
}

func (b *builder) setLabels(n int) {
	b.span, b.context, b.unseen, b.unseenX = make([]map[int32]float64, n), make([]map[int32]float64, n), make([]map[int]float64, n), make([]*float64, n)
	for i := range n {
		b.span[i], b.context[i], b.unseen[i] = map[int32]float64{}, map[int32]float64{}, map[int]float64{}
	}
}

func (b *builder) kind() eventio.Kind {
	return eventio.Kind{Families: []string{Family, Family2, FamilyClasses}, Add: b.add, Key: describe, Header: b.header}
}

// header takes a model's or count shard's number of classes: a
// ccm-classes header's K, none elsewhere, and one K in a count stream.
func (b *builder) header(h *format.Header) error {
	classes := 0
	switch {
	case h.Family == FamilyClasses && h.Classes < 3:
		return fmt.Errorf("a %s header with \"classes\" %d: want 3 or more (2 classes are the CCM, family %s)", FamilyClasses, h.Classes, Family)
	case h.Family == FamilyClasses:
		classes = h.Classes - 1
	case h.Classes != 0:
		return fmt.Errorf("a %s header with \"classes\": the multi-class CCM's family is %s", h.Family, FamilyClasses)
	}
	if b.headers++; b.headers > 1 {
		if classes != b.classes {
			return fmt.Errorf("counts of %d classes mixed with earlier shards' %d", headerClasses(classes), headerClasses(b.classes))
		}
		return nil
	}
	b.classes = classes
	if classes > 0 {
		b.setLabels(1 + classes)
	}
	return nil
}

// label is the table index of e: Distituent, Constituent or its class.
func (b *builder) label(e *format.Event) (int, error) {
	switch {
	case !e.Constituent:
		return Distituent, nil
	case b.classes == 0 && e.Class > 0:
		return 0, fmt.Errorf("a constituent of class %d in a CCM of one constituent label: the multi-class CCM's family is %s", e.Class, FamilyClasses)
	case b.classes == 0:
		return Constituent, nil
	case e.Class == 0:
		return 0, fmt.Errorf("a constituent event without its \"class\" in a %s model or counts", FamilyClasses)
	case e.Class > b.classes:
		return 0, fmt.Errorf("a constituent of class %d where the header's %d classes have constituent classes 1 to %d", e.Class, b.classes+1, b.classes)
	}
	return e.Class, nil
}

func (b *builder) add(e *format.Event) error {
	br, err := b.label(e)
	if err != nil {
		return err
	}
	set := func(m map[int32]float64, id int32) error {
		if _, dup := m[id]; dup && !b.sum {
			return fmt.Errorf("event given twice: %s", describe(e))
		}
		m[id] += e.Value
		return nil
	}
	switch e.Ev {
	case format.EvSpan:
		var key []byte
		for _, t := range e.Yield {
			switch t {
			case Boundary:
				return fmt.Errorf("the boundary tag %q inside a yield", Boundary)
			case "":
				return errors.New("an empty tag inside a yield")
			}
			id := b.sym.tag(t)
			if int(id) >= maxTags {
				return fmt.Errorf("more than %d distinct tags", maxTags-1)
			}
			key = append(key, byte(id), byte(id>>8))
		}
		return set(b.span[br], b.sym.yield(key))
	case format.EvContext:
		return set(b.context[br], b.sym.context(b.sym.tag(e.Left), b.sym.tag(e.Right)))
	case format.EvUnseenSpan, format.EvUnseenContext:
		if b.sum {
			return fmt.Errorf("%q in counts: counts hold spans and contexts only", e.Ev)
		}
		if e.Ev == format.EvUnseenContext {
			if b.unseenX[br] != nil {
				return fmt.Errorf("event given twice: %s", describe(e))
			}
			v := e.Value
			b.unseenX[br] = &v
			return nil
		}
		if _, dup := b.unseen[br][e.Length]; dup {
			return fmt.Errorf("event given twice: %s", describe(e))
		}
		b.unseen[br][e.Length] = e.Value
		return nil
	}
	return fmt.Errorf("a %q event in a CCM model or counts (a DMV's?)", e.Ev)
}

// labelName names table index br in errors.
func (b *builder) labelName(br int) string {
	switch {
	case br == Distituent:
		return "distituent"
	case b.classes == 0:
		return "constituent"
	}
	return fmt.Sprintf("constituent class %d", br)
}

// tables are the collected values by label, dense over the Symbols;
// every id must have been given each label's value.
func (b *builder) tables() (span, context [][]float64, err error) {
	given := 0
	for br := range b.span {
		given += len(b.span[br]) + len(b.context[br])
	}
	if given == 0 {
		// Not one missing event but all of them (a DMV's model under a
		// dmvccm header, say): the first yield's would be named instead.
		return nil, nil, errors.New("no span or context event at all")
	}
	span, context = make([][]float64, len(b.span)), make([][]float64, len(b.span))
	for br := range b.span {
		span[br] = make([]float64, b.sym.NumYields())
		for y := range span[br] {
			v, ok := b.span[br][int32(y)]
			if !ok {
				return nil, nil, fmt.Errorf("yield [%s] has no %s event", strings.Join(b.sym.Yield(y), " "), b.labelName(br))
			}
			span[br][y] = v
		}
		context[br] = make([]float64, b.sym.NumContexts())
		for x := range context[br] {
			v, ok := b.context[br][int32(x)]
			if !ok {
				l, r := b.sym.Context(x)
				return nil, nil, fmt.Errorf("context %s _ %s has no %s event", l, r, b.labelName(br))
			}
			context[br][x] = v
		}
	}
	return span, context, nil
}

// ReadModel reads a CCM model file. Its yields and contexts are interned
// in sym (a new Symbols when nil), so a second model (SDA's skew) can be
// read onto the first one's ids; every yield and context of sym must be
// in the file then.
func ReadModel(path string, sym *Symbols) (*Model, error) {
	if sym == nil {
		sym = NewSymbols()
	}
	b := newBuilder(sym, false)
	hdr, err := eventio.ReadModel(pipeline.Source{Names: []string{path}}, path, b.kind())
	if err != nil {
		return nil, err
	}
	if hdr.Unit != format.Prob {
		return nil, fmt.Errorf("%s: a CCM model holds probabilities (\"p\"), not %q", path, string(hdr.Unit))
	}
	m, err := b.model(variantOf(hdr.Family))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func (b *builder) model(v Variant) (*Model, error) {
	span, context, err := b.tables()
	if err != nil {
		return nil, err
	}
	if b.classes > 0 && v != Model1 {
		return nil, fmt.Errorf("the multi-class CCM is Klein's model 1 only, not %s", FamilyOf(v))
	}
	unseenSpan := make([][]float64, len(span))
	unseenContext := make([]float64, len(span))
	for br := range span {
		of := "each bracket value" // the CCM's errors as they were
		if b.classes > 0 {
			of = "the " + b.labelName(br)
		}
		groups := len(b.unseen[br])
		if v == Model1 && groups != 1 || groups == 0 {
			return nil, fmt.Errorf("%d unseen_span events of %s: %s has one per yield length from 0 (ccm: one, length 0)", groups, of, FamilyOf(v))
		}
		unseenSpan[br] = make([]float64, groups)
		for g := range groups {
			p, ok := b.unseen[br][g]
			if !ok {
				return nil, fmt.Errorf("no unseen_span of length %d", g)
			}
			unseenSpan[br][g] = p
		}
		if b.unseenX[br] == nil {
			return nil, fmt.Errorf("no unseen_context event for %s", of)
		}
		unseenContext[br] = *b.unseenX[br]
	}
	m := &Model{Variant: v, Sym: b.sym}
	m.Span[Distituent], m.Context[Distituent] = span[Distituent], context[Distituent]
	m.unseenSpan[Distituent], m.unseenContext[Distituent] = unseenSpan[Distituent], unseenContext[Distituent]
	if b.classes == 0 {
		m.Span[Constituent], m.Context[Constituent] = span[Constituent], context[Constituent]
		m.unseenSpan[Constituent], m.unseenContext[Constituent] = unseenSpan[Constituent], unseenContext[Constituent]
	} else {
		for l := 1; l <= b.classes; l++ {
			m.Classes = append(m.Classes, Class{Span: span[l], Context: context[l], unseenSpan: unseenSpan[l][0], unseenContext: unseenContext[l]})
		}
	}
	if err := m.CheckDistribution(); err != nil {
		return nil, err
	}
	return m, nil
}

// SumTolerance is how far from 1 a multinomial of a model may sum (the
// DMV's).
const SumTolerance = dmv.SumTolerance

// CheckDistribution is the CCM's own check of a model read (the CCM is
// deficient: the probabilities of the yields and contexts a model has
// not seen come on top of its tables): for each bracket value, the
// yields it lists (under ccm2 those of each length) and the contexts it
// lists each sum to 1 within SumTolerance, as every M-step leaves them.
func (m *Model) CheckDistribution() error {
	groups := 1
	if m.Variant == Model2 {
		for y := range m.Sym.NumYields() {
			groups = max(groups, m.Sym.YieldLen(y)+1)
		}
	}
	check := func(sum float64, what func() string) error {
		if math.Abs(sum-1) > SumTolerance {
			return fmt.Errorf("%s sum to %.17g, not 1 (tolerance %g): not a normalised model", what(), sum, SumTolerance)
		}
		return nil
	}
	for _, l := range m.labels() {
		name := bracketName[bracketOf(l.constituent)]
		if l.class > 0 {
			name = fmt.Sprintf("class %d's constituent", l.class)
		}
		sums, members := make([]float64, groups), make([]int, groups)
		for y, p := range l.span {
			g := 0
			if m.Variant == Model2 {
				g = m.Sym.YieldLen(y)
			}
			sums[g] += p
			members[g]++
		}
		for g, sum := range sums {
			if members[g] == 0 {
				continue
			}
			if err := check(sum, func() string {
				if m.Variant == Model2 {
					return fmt.Sprintf("the %s spans of length %d", name, g)
				}
				return fmt.Sprintf("the %s spans", name)
			}); err != nil {
				return err
			}
		}
		sum := 0.0
		for _, p := range l.context {
			sum += p
		}
		if err := check(sum, func() string { return fmt.Sprintf("the %s contexts", name) }); err != nil {
			return err
		}
	}
	return nil
}

// Hash identifies a model by its content (family, symbols and every
// probability's bits), as 16 hex digits (FNV-1a): count headers carry it.
func (m *Model) Hash() string {
	h := eventio.NewHasher()
	h.String(m.Family())
	m.EachEvent(func(e *format.Event) error {
		h.String(describe(e))
		h.Float(e.Value)
		return nil
	})
	return h.Sum()
}

// CountTable is count shards of one variant read and added.
type CountTable struct {
	Sym     *Symbols
	Counts  *Counts
	Variant Variant
	Shards  eventio.Shards
}

// ReadCounts reads and adds CCM count shards (eventio.ReadCounts).
func ReadCounts(src pipeline.Source) (*CountTable, error) {
	b := newBuilder(NewSymbols(), true)
	shards, err := eventio.ReadCounts(src, b.kind())
	if err != nil {
		return nil, err
	}
	return b.countTable(src, shards)
}

// Events collects the CCM's events of a stream that holds another
// family's too (DMV+CCM's models and counts hold the DMV's and the
// CCM's): its reader gives each CCM event to Add.
type Events struct{ b *builder }

// NewEvents collects a model's events (counts: count shards, which add
// up), interning yields and contexts in sym (a new Symbols when nil), as
// ReadModel does.
func NewEvents(sym *Symbols, counts bool) *Events {
	if sym == nil {
		sym = NewSymbols()
	}
	return &Events{newBuilder(sym, counts)}
}

// Add takes one span, context, unseen_span or unseen_context event.
func (e *Events) Add(ev *format.Event) error { return e.b.add(ev) }

// Key describes an event, for "given twice".
func (e *Events) Key(ev *format.Event) string { return describe(ev) }

// Model is the model of variant v the events gave (NewEvents(false)).
func (e *Events) Model(v Variant) (*Model, error) { return e.b.model(v) }

// Counts are the counts the events gave (NewEvents(true)), of the shards
// src's reader added.
func (e *Events) Counts(src pipeline.Source, shards eventio.Shards) (*CountTable, error) {
	return e.b.countTable(src, shards)
}

func (b *builder) countTable(src pipeline.Source, shards eventio.Shards) (*CountTable, error) {
	span, context, err := b.tables()
	if err == nil && shards.Stats == nil {
		err = errors.New("no stats record")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	cnt := &Counts{Sentences: shards.Stats.Sentences, Tokens: shards.Stats.Tokens, LogLik: shards.Stats.Loglik}
	if b.classes == 0 {
		// A distituent count is occurrences − constituent count.
		cnt.SpanT, cnt.ContextT = span[Constituent], context[Constituent]
		cnt.SpanN, cnt.ContextN = make([]float64, len(span[0])), make([]float64, len(context[0]))
		for y := range cnt.SpanN {
			cnt.SpanN[y] = span[Constituent][y] + span[Distituent][y]
		}
		for x := range cnt.ContextN {
			cnt.ContextN[x] = context[Constituent][x] + context[Distituent][x]
		}
	} else {
		// The classes' constituent counts as they are, and the
		// distituents' as they are (a constituent count of 0 beside
		// them), not an occurrence count less a sum that rounds.
		cnt.SpanT, cnt.ContextT = make([]float64, len(span[0])), make([]float64, len(context[0]))
		cnt.SpanN, cnt.ContextN = span[Distituent], context[Distituent]
		for l := 1; l <= b.classes; l++ {
			cnt.Classes = append(cnt.Classes, ClassCounts{Span: span[l], Context: context[l]})
		}
	}
	for _, xs := range [][]float64{cnt.SpanN, cnt.ContextN} {
		for _, v := range xs {
			if math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: counts overflow: a total is %v, beyond floating point", pipeline.DescribeInputs(src.Names), v)
			}
		}
	}
	return &CountTable{Sym: b.sym, Counts: cnt, Variant: variantOf(shards.Family), Shards: shards}, nil
}
