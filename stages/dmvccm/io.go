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

// FamilyOf is the header family of the product with or without the
// right-first order.
func FamilyOf(rightFirst bool) string {
	if rightFirst {
		return FamilyRightFirst
	}
	return Family
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
	return m.CCM.EachEvent(fn)
}

// WriteModel writes m: its header and its events (EachEvent). A DMV that
// is not a distribution, or a CCM probability outside [0, 1], is refused
// before anything is written.
func WriteModel(w io.Writer, m *Model) error {
	if m.headChoice {
		return errors.New("a model trained with the head-choice factor: its file would not say so, and would decode without it")
	}
	if m.general() {
		return fmt.Errorf("a model of the %s order or with a flat CCM: no model family carries it", m.order)
	}
	if err := dmv.CheckDistribution(m.Tags, m.DMV); err != nil {
		return fmt.Errorf("the model made is not valid (%v): nothing written", err)
	}
	if err := m.CCM.EachEvent(ccm.CheckEvent); err != nil {
		return err
	}
	n := dmv.NumEvents(m.Tags.Len(), dmv.DMVValence) + m.CCM.NumEvents()
	return eventio.WriteEach(w, &format.Header{Family: FamilyOf(m.rightFirst), Unit: format.Prob}, n, m.EachEvent, nil)
}

// Hash identifies a model by its content (both halves), as 16 hex
// digits: count headers carry it.
func (m *Model) Hash() string {
	h := eventio.NewHasher()
	h.String(FamilyOf(m.rightFirst))
	h.String(m.table().Hash())
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
}

func newReader(sym *ccm.Symbols, counts bool) *reader {
	return &reader{dmv: dmv.TableBuilder{Sum: counts}, ccm: ccm.NewEvents(sym, counts)}
}

func (r *reader) kind() eventio.Kind {
	return eventio.Kind{
		Families: []string{Family, FamilyRightFirst},
		Add: func(e *format.Event) error {
			if dmv.IsEvent(e.Ev) {
				r.dmvEvents++
				return r.dmv.Add(*e)
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
	cm, err := r.ccm.Model(ccm.Model1)
	if err != nil {
		return nil, fmt.Errorf("%s: the CCM's events: %w", path, err)
	}
	return &Model{Tags: t.Tags, DMV: t.Params, CCM: cm, rightFirst: hdr.Family == FamilyRightFirst}, nil
}

// WriteCounts writes one shard of counts: its header (the hashes of the
// model the E-step ran with and of its sentences), the DMV's expected
// counts over tags, the CCM's over sym, and the stats record (the
// product's log-likelihood).
func WriteCounts(w io.Writer, rightFirst bool, tags *dmv.TagSet, d *dmv.Params, c *ccm.Counts, sym *ccm.Symbols, model, corpus string) error {
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
	evs := dmv.Events(tags, d, format.Count)
	each := func(emit func(*format.Event) error) error {
		for i := range evs {
			if err := emit(&evs[i]); err != nil {
				return err
			}
		}
		return ccm.EachCount(c, sym, emit)
	}
	stats := &format.Stats{Sentences: c.Sentences, Tokens: c.Tokens, Loglik: c.LogLik}
	return eventio.WriteEach(w, &format.Header{Family: FamilyOf(rightFirst), Unit: format.Count, Model: model, Corpus: corpus}, len(evs)+ccm.NumCounts(sym), each, stats)
}

// CountTable is count shards read and added: the DMV's counts over Tags
// and the CCM's.
type CountTable struct {
	Tags       *dmv.TagSet
	DMV        *dmv.Params
	CCM        *ccm.CountTable
	RightFirst bool // of family FamilyRightFirst
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
	return &CountTable{Tags: t.Tags, DMV: t.Params, CCM: cc, RightFirst: shards.Family == FamilyRightFirst}, nil
}

// MStep is one M-step on the counts, each half as Train's: the DMV's
// unsmoothed (Klein §6.2), the CCM's with Klein's pseudo-counts.
func (c *CountTable) MStep() (*Model, error) {
	if err := dmv.CheckTotals(c.Tags, c.DMV, 0); err != nil {
		return nil, err
	}
	cm, err := ccm.MStep(c.CCM.Counts, c.CCM.Sym, ccm.Model1, ccm.KleinSmoothing)
	if err != nil {
		return nil, err
	}
	return &Model{Tags: c.Tags, DMV: dmv.MStep(c.DMV, 0), CCM: cm, rightFirst: c.RightFirst}, nil
}
