package ccm

import "fmt"

// Snapshot is a model in the form a run directory's checkpoint stores:
// every table, and the unseen probabilities Grow gives a test corpus's new
// ids, as float64s that encoding/json writes and reads back exactly.
type Snapshot struct {
	Variant       Variant      `json:"variant"`
	Span          [2][]float64 `json:"span"`
	Context       [2][]float64 `json:"context"`
	UnseenSpan    [2][]float64 `json:"unseen_span"`
	UnseenContext [2]float64   `json:"unseen_context"`
}

// Snapshot is m as a Snapshot (sharing its tables).
func (m *Model) Snapshot() Snapshot {
	return Snapshot{Variant: m.Variant, Span: m.Span, Context: m.Context, UnseenSpan: m.unseenSpan, UnseenContext: m.unseenContext}
}

// Model is the snapshot's model over sym, the symbols of the corpus it
// was trained on (which must have as many yields and contexts).
func (s Snapshot) Model(sym *Symbols) (*Model, error) {
	if s.Variant != Model1 && s.Variant != Model2 {
		return nil, fmt.Errorf("not a CCM snapshot (variant %d)", s.Variant)
	}
	for b := range 2 {
		if len(s.Span[b]) != sym.NumYields() || len(s.Context[b]) != sym.NumContexts() || len(s.UnseenSpan[b]) == 0 {
			return nil, fmt.Errorf("a model of %d yields and %d contexts, not of this corpus's %d and %d",
				len(s.Span[b]), len(s.Context[b]), sym.NumYields(), sym.NumContexts())
		}
	}
	m := &Model{Variant: s.Variant, Sym: sym, Span: s.Span, Context: s.Context, unseenSpan: s.UnseenSpan, unseenContext: s.UnseenContext}
	for b := range 2 {
		for _, tab := range [][]float64{s.Span[b], s.Context[b], s.UnseenSpan[b], {s.UnseenContext[b]}} {
			for _, p := range tab {
				if !(p >= 0 && p <= 1) {
					return nil, fmt.Errorf("a CCM probability %v out of [0, 1]", p)
				}
			}
		}
	}
	return m, m.CheckDistribution()
}
