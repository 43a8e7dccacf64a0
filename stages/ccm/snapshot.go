package ccm

import "fmt"

// Snapshot is a model in the form a run directory's checkpoint stores:
// every table, and the unseen probabilities Grow gives a test corpus's new
// ids, as float64s that encoding/json writes and reads back exactly. A
// multi-class model's constituent tables are its Classes' (two or more;
// one class is stored as the CCM it is).
type Snapshot struct {
	Variant       Variant         `json:"variant"`
	Span          [2][]float64    `json:"span"`
	Context       [2][]float64    `json:"context"`
	UnseenSpan    [2][]float64    `json:"unseen_span"`
	UnseenContext [2]float64      `json:"unseen_context"`
	Classes       []ClassSnapshot `json:"classes,omitempty"`
}

// ClassSnapshot is one constituent class of a Snapshot.
type ClassSnapshot struct {
	Span          []float64 `json:"span"`
	Context       []float64 `json:"context"`
	UnseenSpan    float64   `json:"unseen_span"`
	UnseenContext float64   `json:"unseen_context"`
}

// Snapshot is m as a Snapshot (sharing its tables).
func (m *Model) Snapshot() Snapshot {
	s := Snapshot{Variant: m.Variant, Span: m.Span, Context: m.Context, UnseenSpan: m.unseenSpan, UnseenContext: m.unseenContext}
	switch {
	case len(m.Classes) == 1:
		cl := m.Classes[0]
		s.Span[Constituent], s.Context[Constituent] = cl.Span, cl.Context
		s.UnseenSpan[Constituent], s.UnseenContext[Constituent] = []float64{cl.unseenSpan}, cl.unseenContext
	case len(m.Classes) > 1:
		for _, cl := range m.Classes {
			s.Classes = append(s.Classes, ClassSnapshot{cl.Span, cl.Context, cl.unseenSpan, cl.unseenContext})
		}
	}
	return s
}

// Model is the snapshot's model over sym, the symbols of the corpus it
// was trained on (which must have as many yields and contexts).
func (s Snapshot) Model(sym *Symbols) (*Model, error) {
	if s.Variant != Model1 && s.Variant != Model2 {
		return nil, fmt.Errorf("not a CCM snapshot (variant %d)", s.Variant)
	}
	if len(s.Classes) == 1 || len(s.Classes) > 1 && (s.Variant != Model1 || s.Span[Constituent] != nil) {
		return nil, fmt.Errorf("not a CCM snapshot (%d classes of %s, constituent tables %v)", len(s.Classes), FamilyOf(s.Variant), s.Span[Constituent] != nil)
	}
	fits := func(span, context []float64) error {
		if len(span) != sym.NumYields() || len(context) != sym.NumContexts() {
			return fmt.Errorf("a model of %d yields and %d contexts, not of this corpus's %d and %d",
				len(span), len(context), sym.NumYields(), sym.NumContexts())
		}
		return nil
	}
	m := &Model{Variant: s.Variant, Sym: sym, Span: s.Span, Context: s.Context, unseenSpan: s.UnseenSpan, unseenContext: s.UnseenContext}
	for _, cl := range s.Classes {
		if err := fits(cl.Span, cl.Context); err != nil {
			return nil, err
		}
		m.Classes = append(m.Classes, Class{Span: cl.Span, Context: cl.Context, unseenSpan: cl.UnseenSpan, unseenContext: cl.UnseenContext})
	}
	for _, l := range m.labels() {
		if err := fits(l.span, l.context); err != nil {
			return nil, err
		}
		if len(l.unseenSpan) == 0 {
			return nil, fmt.Errorf("no unseen yield probability of the %s", bracketName[bracketOf(l.constituent)])
		}
		for _, tab := range [][]float64{l.span, l.context, l.unseenSpan, {l.unseenContext}} {
			for _, p := range tab {
				if !(p >= 0 && p <= 1) {
					return nil, fmt.Errorf("a CCM probability %v out of [0, 1]", p)
				}
			}
		}
	}
	return m, m.CheckDistribution()
}
