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
// Klein's model, "ccm2" for Smith & Eisner's model 2.
const (
	Family  = "ccm"
	Family2 = "ccm2"
)

// FamilyOf is the header family of variant v.
func FamilyOf(v Variant) string {
	if v == Model2 {
		return Family2
	}
	return Family
}

func variantOf(family string) Variant {
	if family == Family2 {
		return Model2
	}
	return Model1
}

var bracket = [2]bool{Distituent: false, Constituent: true}

var bracketName = [2]string{Distituent: "distituent", Constituent: "constituent"}

func bracketOf(constituent bool) int {
	if constituent {
		return Constituent
	}
	return Distituent
}

// EachEvent calls fn with the model's parameters with unit p, in Sym's
// order: each yield as a constituent and as a distituent, each context
// likewise, then the probabilities of unseen yields (by length under
// ccm2) and contexts. fn must not keep the event: the records of a
// corpus of long sentences (n²/2 yields of up to n tags each) are made
// one at a time, never held together.
func (m *Model) EachEvent(fn func(e *format.Event) error) error {
	if m.Classes != nil {
		return fmt.Errorf("the multi-class CCM has no model file (train-ccm --classes trains and decodes in-process)")
	}
	m.Grow()
	var e format.Event
	var yield []string
	for y := range m.Sym.NumYields() {
		yield = m.Sym.appendYield(yield[:0], y)
		for _, b := range [2]int{Constituent, Distituent} {
			e = format.Event{Ev: format.EvSpan, Yield: yield, Constituent: bracket[b], Unit: format.Prob, Value: m.Span[b][y]}
			if err := fn(&e); err != nil {
				return err
			}
		}
	}
	for x := range m.Sym.NumContexts() {
		left, right := m.Sym.Context(x)
		for _, b := range [2]int{Constituent, Distituent} {
			e = format.Event{Ev: format.EvContext, Left: left, Right: right, Constituent: bracket[b], Unit: format.Prob, Value: m.Context[b][x]}
			if err := fn(&e); err != nil {
				return err
			}
		}
	}
	for _, b := range [2]int{Constituent, Distituent} {
		for g, p := range m.unseenSpan[b] {
			e = format.Event{Ev: format.EvUnseenSpan, Constituent: bracket[b], Length: g, Unit: format.Prob, Value: p}
			if err := fn(&e); err != nil {
				return err
			}
		}
	}
	for _, b := range [2]int{Constituent, Distituent} {
		e = format.Event{Ev: format.EvUnseenContext, Constituent: bracket[b], Unit: format.Prob, Value: m.unseenContext[b]}
		if err := fn(&e); err != nil {
			return err
		}
	}
	return nil
}

// NumEvents is how many events EachEvent gives.
func (m *Model) NumEvents() int {
	m.Grow()
	return 2*(m.Sym.NumYields()+m.Sym.NumContexts()) + len(m.unseenSpan[0]) + len(m.unseenSpan[1]) + 2
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
	return eventio.WriteEach(w, &format.Header{Family: FamilyOf(m.Variant), Unit: format.Prob}, m.NumEvents(), m.EachEvent, nil)
}

// WriteCounts writes one shard of counts over sym: its header (the
// hashes of the model its E-step ran with and of its sentences), each
// yield's and context's expected count as a constituent and as a
// distituent, and the stats record.
func WriteCounts(w io.Writer, cnt *Counts, sym *Symbols, v Variant, model, corpus string) error {
	if err := EachCount(cnt, sym, CheckCount); err != nil {
		return err
	}
	stats := &format.Stats{Sentences: cnt.Sentences, Tokens: cnt.Tokens, Loglik: cnt.LogLik}
	return eventio.WriteEach(w, &format.Header{Family: FamilyOf(v), Unit: format.Count, Model: model, Corpus: corpus}, NumCounts(sym),
		func(emit func(*format.Event) error) error { return EachCount(cnt, sym, emit) }, stats)
}

// EachCount calls fn with the counts over sym as WriteCounts writes them,
// each yield's and context's expected count as a constituent and as a
// distituent; fn must not keep the event.
func EachCount(cnt *Counts, sym *Symbols, fn func(e *format.Event) error) error {
	var e format.Event
	var yield []string
	for y := range sym.NumYields() {
		yield = sym.appendYield(yield[:0], y)
		for _, b := range [2]int{Constituent, Distituent} {
			e = format.Event{Ev: format.EvSpan, Yield: yield, Constituent: bracket[b], Unit: format.Count, Value: cnt.SpanCount(b, y)}
			if err := fn(&e); err != nil {
				return err
			}
		}
	}
	for x := range sym.NumContexts() {
		left, right := sym.Context(x)
		for _, b := range [2]int{Constituent, Distituent} {
			e = format.Event{Ev: format.EvContext, Left: left, Right: right, Constituent: bracket[b], Unit: format.Count, Value: cnt.ContextCount(b, x)}
			if err := fn(&e); err != nil {
				return err
			}
		}
	}
	return nil
}

// NumCounts is how many events EachCount gives.
func NumCounts(sym *Symbols) int { return 2 * (sym.NumYields() + sym.NumContexts()) }

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

// builder collects CCM events into tables indexed by a Symbols.
type builder struct {
	sym     *Symbols
	sum     bool // counts: shards add up
	span    [2]map[int32]float64
	context [2]map[int32]float64
	unseen  [2]map[int]float64 // unseen span probability by length
	unseenX [2]*float64
}

func newBuilder(sym *Symbols, sum bool) *builder {
	b := &builder{sym: sym, sum: sum}
	for i := range 2 {
		b.span[i], b.context[i], b.unseen[i] = map[int32]float64{}, map[int32]float64{}, map[int]float64{}
	}
	return b
}

func (b *builder) kind() eventio.Kind {
	return eventio.Kind{Families: []string{Family, Family2}, Add: b.add, Key: describe}
}

func (b *builder) add(e *format.Event) error {
	br := bracketOf(e.Constituent)
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

// tables are the collected values, dense over the Symbols; every id must
// have been given both bracket values.
func (b *builder) tables() (span, context [2][]float64, err error) {
	if len(b.span[0])+len(b.span[1])+len(b.context[0])+len(b.context[1]) == 0 {
		// Not one missing event but all of them (a DMV's model under a
		// dmvccm header, say): the first yield's would be named instead.
		return span, context, errors.New("no span or context event at all")
	}
	for br := range 2 {
		span[br] = make([]float64, b.sym.NumYields())
		for y := range span[br] {
			v, ok := b.span[br][int32(y)]
			if !ok {
				return span, context, fmt.Errorf("yield [%s] has no %s event", strings.Join(b.sym.Yield(y), " "), map[bool]string{true: "constituent", false: "distituent"}[bracket[br]])
			}
			span[br][y] = v
		}
		context[br] = make([]float64, b.sym.NumContexts())
		for x := range context[br] {
			v, ok := b.context[br][int32(x)]
			if !ok {
				l, r := b.sym.Context(x)
				return span, context, fmt.Errorf("context %s _ %s has no %s event", l, r, map[bool]string{true: "constituent", false: "distituent"}[bracket[br]])
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
	m := &Model{Variant: v, Sym: b.sym, Span: span, Context: context}
	if err := m.CheckDistribution(); err != nil {
		return nil, err
	}
	for br := range 2 {
		groups := len(b.unseen[br])
		if v == Model1 && groups != 1 || groups == 0 {
			return nil, fmt.Errorf("%d unseen_span events of each bracket value: %s has one per yield length from 0 (ccm: one, length 0)", groups, FamilyOf(v))
		}
		m.unseenSpan[br] = make([]float64, groups)
		for g := range groups {
			p, ok := b.unseen[br][g]
			if !ok {
				return nil, fmt.Errorf("no unseen_span of length %d", g)
			}
			m.unseenSpan[br][g] = p
		}
		if b.unseenX[br] == nil {
			return nil, errors.New("no unseen_context event for each bracket value")
		}
		m.unseenContext[br] = *b.unseenX[br]
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
	for b := range 2 {
		sums, members := make([]float64, groups), make([]int, groups)
		for y, p := range m.Span[b] {
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
					return fmt.Sprintf("the %s spans of length %d", bracketName[b], g)
				}
				return fmt.Sprintf("the %s spans", bracketName[b])
			}); err != nil {
				return err
			}
		}
		sum := 0.0
		for _, p := range m.Context[b] {
			sum += p
		}
		if err := check(sum, func() string { return fmt.Sprintf("the %s contexts", bracketName[b]) }); err != nil {
			return err
		}
	}
	return nil
}

// Hash identifies a model by its content (family, symbols and every
// probability's bits), as 16 hex digits (FNV-1a): count headers carry it.
func (m *Model) Hash() string {
	h := eventio.NewHasher()
	h.String(FamilyOf(m.Variant))
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
	// A distituent count is occurrences − constituent count.
	cnt := &Counts{SpanT: span[Constituent], ContextT: context[Constituent],
		SpanN: make([]float64, len(span[0])), ContextN: make([]float64, len(context[0])),
		Sentences: shards.Stats.Sentences, Tokens: shards.Stats.Tokens, LogLik: shards.Stats.Loglik}
	for y := range cnt.SpanN {
		cnt.SpanN[y] = span[Constituent][y] + span[Distituent][y]
	}
	for x := range cnt.ContextN {
		cnt.ContextN[x] = context[Constituent][x] + context[Distituent][x]
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
