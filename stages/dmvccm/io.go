package dmvccm

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
)

// Family names the headers of DMV+CCM models and counts. Their events are
// the DMV's (root, child, stop, cont) followed by the CCM's (span,
// context, and in a model unseen_span and unseen_context), each as that
// family writes them, so jq reads either half with the other's filters.
const Family = "dmvccm"

// FamilyRightFirst names DMV+CCM with the DMV alone's attachment order
// (Options.RightFirst): the same records.
const FamilyRightFirst = "dmvccm-right-first"

// FamilyMixture names DMV+CCM under Klein's ½/½ mixture of right-first
// and left-first heads (Order Mixture): the same records.
const FamilyMixture = "dmvccm-mixture"

// FamilyFootnote8 names DMV+CCM under footnote 8's order (Order
// Footnote8): the DMV's records (its stop and cont decisions unused,
// written as the DMV's), footnote 8's halt and go decisions, then the
// CCM's.
const FamilyFootnote8 = "dmvccm-footnote8"

// FamilyOf is the header family of the product with or without the
// right-first order.
func FamilyOf(rightFirst bool) string {
	if rightFirst {
		return FamilyRightFirst
	}
	return Family
}

// FamilyOfOrder is the header family of the product under an order.
func FamilyOfOrder(o Order) string {
	switch o {
	case RightFirstOrder:
		return FamilyRightFirst
	case Mixture:
		return FamilyMixture
	case Footnote8:
		return FamilyFootnote8
	}
	return Family
}

// OrderOfFamily is the order of a DMV+CCM family's name.
func OrderOfFamily(family string) (Order, bool) {
	for o := range OrderNames {
		if FamilyOfOrder(Order(o)) == family {
			return Order(o), true
		}
	}
	return 0, false
}

// Families are DMV+CCM's family names, by order.
var Families = []string{Family, FamilyRightFirst, FamilyMixture, FamilyFootnote8}

// family is m's header family.
func (m *Model) family() string {
	if m.rightFirst {
		return FamilyRightFirst
	}
	return FamilyOfOrder(m.order)
}

// EachEvent calls fn with the model's parameters: the DMV's, as a DMV
// model lists them, then the CCM's, as a CCM model does (one at a time:
// fn must not keep them).
func (m *Model) EachEvent(fn func(e *format.Event) error) error {
	evs := dmv.Events(m.Tags, m.DMV, format.Prob)
	for i := range evs {
		if err := fn(&evs[i]); err != nil {
			return err
		}
	}
	if m.order == Footnote8 {
		if err := eachFn8(m.Tags, m.Fn8, format.Prob, fn); err != nil {
			return err
		}
	}
	return m.CCM.EachEvent(fn)
}

// WriteModel writes m: its header and its events (EachEvent). A DMV that
// is not a distribution, or a CCM probability outside [0, 1], is refused
// before anything is written.
func WriteModel(w io.Writer, m *Model) error {
	if m.headChoice {
		return errors.New("a model trained with the head-choice factor: its file would not say so, and would decode without it")
	}
	if m.flat {
		return errors.New("a model with a flat CCM: no model family carries it")
	}
	if err := dmv.CheckDistribution(m.Tags, m.DMV); err != nil {
		return fmt.Errorf("the model made is not valid (%v): nothing written", err)
	}
	n := dmv.NumEvents(m.Tags.Len(), dmv.DMVValence) + m.CCM.NumEvents()
	if m.order == Footnote8 {
		if err := CheckFn8(m.Tags, m.Fn8); err != nil {
			return fmt.Errorf("the model made is not valid (%v): nothing written", err)
		}
		n += NumFn8Events(m.Tags.Len())
	}
	if err := m.CCM.EachEvent(ccm.CheckEvent); err != nil {
		return err
	}
	return eventio.WriteEach(w, &format.Header{Family: m.family(), Unit: format.Prob}, n, m.EachEvent, nil)
}

// Hash identifies a model by its content (both halves), as 16 hex
// digits: count headers carry it.
func (m *Model) Hash() string {
	h := eventio.NewHasher()
	h.String(m.family())
	h.String(m.table().Hash())
	if m.order == Footnote8 {
		hashFn8(h, m.Fn8)
	}
	h.String(m.CCM.Hash())
	return h.Sum()
}

func (m *Model) table() *dmv.Table {
	return &dmv.Table{Tags: m.Tags, Params: m.DMV, Unit: format.Prob}
}

// reader sends each event of a DMV+CCM stream to the half it belongs to.
type reader struct {
	dmv       dmv.TableBuilder
	dmvEvents int
	ccm       *ccm.Events
	fn8       fn8Reader
	family    string // the last header's
}

func newReader(sym *ccm.Symbols, counts bool) *reader {
	return &reader{dmv: dmv.TableBuilder{Sum: counts}, ccm: ccm.NewEvents(sym, counts)}
}

func (r *reader) kind() eventio.Kind {
	return eventio.Kind{
		Families: Families,
		Header: func(h *format.Header) error {
			r.family = h.Family
			return nil
		},
		Add: func(e *format.Event) error {
			if dmv.IsEvent(e.Ev) {
				r.dmvEvents++
				return r.dmv.Add(*e)
			}
			if isFn8Event(e.Ev) {
				if r.family != FamilyFootnote8 {
					return fmt.Errorf("a %q event (footnote 8's decision) in a model or counts of family %q: only %s has them", e.Ev, r.family, FamilyFootnote8)
				}
				r.fn8.add(e)
				return nil
			}
			switch e.Ev {
			case format.EvSpan, format.EvContext, format.EvUnseenSpan, format.EvUnseenContext:
				return r.ccm.Add(e)
			}
			return fmt.Errorf("a %q event in a DMV+CCM model or counts", e.Ev)
		},
		Key: func(e *format.Event) string {
			if dmv.IsEvent(e.Ev) {
				return dmv.Describe(*e)
			}
			if isFn8Event(e.Ev) {
				return fn8Key(e)
			}
			return r.ccm.Key(e)
		},
	}
}

// ReadModel reads a DMV+CCM model file. The CCM's yields and contexts
// are interned in sym (a new Symbols when nil), so a second model (a skew
// model) can be read onto the first one's ids.
func ReadModel(path string, sym *ccm.Symbols) (*Model, error) {
	r := newReader(sym, false)
	hdr, err := eventio.ReadModel(pipeline.Source{Names: []string{path}}, path, r.kind())
	if err != nil {
		return nil, err
	}
	if hdr.Unit != format.Prob {
		return nil, fmt.Errorf("%s: a DMV+CCM model holds probabilities (\"p\"), not %q", path, string(hdr.Unit))
	}
	t, err := r.dmv.Build()
	if err != nil {
		return nil, fmt.Errorf("%s: the DMV's events: %w", path, err)
	}
	if want := dmv.NumEvents(t.Tags.Len(), dmv.DMVValence); r.dmvEvents != want {
		return nil, fmt.Errorf("%s: %d DMV events for %d tags, a model has %d: some parameters are missing", path, r.dmvEvents, t.Tags.Len(), want)
	}
	if err := dmv.CheckDistribution(t.Tags, t.Params); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	order, _ := OrderOfFamily(hdr.Family)
	m := &Model{Tags: t.Tags, DMV: t.Params, rightFirst: order == RightFirstOrder, order: order}
	if order == Footnote8 {
		if want := NumFn8Events(t.Tags.Len()); r.fn8.events != want {
			return nil, fmt.Errorf("%s: %d footnote-8 events (halt, go) for %d tags, a model has %d: some decisions are missing", path, r.fn8.events, t.Tags.Len(), want)
		}
		if m.Fn8, err = r.fn8.table(t.Tags); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if err := CheckFn8(t.Tags, m.Fn8); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if m.CCM, err = r.ccm.Model(ccm.Model1); err != nil {
		return nil, fmt.Errorf("%s: the CCM's events: %w", path, err)
	}
	return m, nil
}

// WriteCounts writes one shard of counts: its header (the hashes of the
// model the E-step ran with and of its sentences), the DMV's expected
// counts over tags, the CCM's over sym, and the stats record (the
// product's log-likelihood).
func WriteCounts(w io.Writer, rightFirst bool, tags *dmv.TagSet, d *dmv.Params, c *ccm.Counts, sym *ccm.Symbols, model, corpus string) error {
	o := Released
	if rightFirst {
		o = RightFirstOrder
	}
	return WriteOrderCounts(w, o, tags, d, nil, c, sym, model, corpus)
}

// WriteOrderCounts is WriteCounts under any order: footnote 8's counts
// fn8 (over tags) follow the DMV's under Footnote8, nil under the others.
func WriteOrderCounts(w io.Writer, order Order, tags *dmv.TagSet, d *dmv.Params, fn8 *Fn8Params, c *ccm.Counts, sym *ccm.Symbols, model, corpus string) error {
	if (order == Footnote8) != (fn8 != nil) {
		return fmt.Errorf("counts of the %s order with footnote 8's counts %v", order, fn8 != nil)
	}
	for _, tab := range d.Tables() {
		for _, v := range tab {
			if !(v >= 0) || math.IsInf(v, 1) {
				return fmt.Errorf("a DMV count is %v: nothing written", v)
			}
		}
	}
	if err := ccm.EachCount(c, sym, ccm.CheckCount); err != nil {
		return err
	}
	n := 0
	if fn8 != nil {
		if err := checkFn8Counts(fn8); err != nil {
			return err
		}
		if fn8.T != tags.Len() {
			return fmt.Errorf("footnote 8's counts over %d tags, the DMV's over %d", fn8.T, tags.Len())
		}
		n = NumFn8Events(fn8.T)
	}
	evs := dmv.Events(tags, d, format.Count)
	each := func(emit func(*format.Event) error) error {
		for i := range evs {
			if err := emit(&evs[i]); err != nil {
				return err
			}
		}
		if fn8 != nil {
			if err := eachFn8(tags, fn8, format.Count, emit); err != nil {
				return err
			}
		}
		return ccm.EachCount(c, sym, emit)
	}
	stats := &format.Stats{Sentences: c.Sentences, Tokens: c.Tokens, Loglik: c.LogLik}
	return eventio.WriteEach(w, &format.Header{Family: FamilyOfOrder(order), Unit: format.Count, Model: model, Corpus: corpus}, n+len(evs)+ccm.NumCounts(c, sym), each, stats)
}

// CountTable is count shards read and added: the DMV's counts over Tags
// and the CCM's.
type CountTable struct {
	Tags       *dmv.TagSet
	DMV        *dmv.Params
	CCM        *ccm.CountTable
	RightFirst bool // of family FamilyRightFirst
	Order      Order
	Fn8        *Fn8Params // footnote 8's counts over Tags (Footnote8)
}

// ReadCounts reads and adds DMV+CCM count shards (eventio.ReadCounts),
// refusing DMV tables over limit bytes (≤ 0: no limit).
func ReadCounts(src pipeline.Source, limit int64) (*CountTable, error) {
	r := newReader(nil, true)
	r.dmv.MaxMemory = limit
	shards, err := eventio.ReadCounts(src, r.kind())
	if err != nil {
		return nil, err
	}
	t, err := r.dmv.Build()
	if err != nil {
		return nil, fmt.Errorf("%s: the DMV's counts: %w", pipeline.DescribeInputs(src.Names), err)
	}
	cc, err := r.ccm.Counts(src, shards)
	if err != nil {
		return nil, err
	}
	order, _ := OrderOfFamily(shards.Family)
	ct := &CountTable{Tags: t.Tags, DMV: t.Params, CCM: cc, RightFirst: order == RightFirstOrder, Order: order}
	if order == Footnote8 {
		if ct.Fn8, err = r.fn8.table(t.Tags); err != nil {
			return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
		}
	}
	return ct, nil
}

// MStep is one M-step on the counts, each half as Train's: the DMV's
// unsmoothed (Klein §6.2), the CCM's with Klein's pseudo-counts.
func (c *CountTable) MStep() (*Model, error) {
	if err := dmv.CheckTotals(c.Tags, c.DMV, 0); err != nil {
		return nil, err
	}
	var fn8 *Fn8Params
	if c.Order == Footnote8 {
		if err := checkFn8Totals(c.Tags, c.Fn8); err != nil {
			return nil, err
		}
		fn8 = Fn8MStep(c.Fn8)
	}
	cm, err := ccm.MStep(c.CCM.Counts, c.CCM.Sym, ccm.Model1, ccm.KleinSmoothing)
	if err != nil {
		return nil, err
	}
	return &Model{Tags: c.Tags, DMV: dmv.MStep(c.DMV, 0), CCM: cm, rightFirst: c.RightFirst, order: c.Order, Fn8: fn8}, nil
}
