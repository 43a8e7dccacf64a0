package dmvccm

import (
	"fmt"

	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Snapshot is a pair in the form a run directory's checkpoint stores: the
// DMV's four tables and the CCM's snapshot, float64s that encoding/json
// writes and reads back exactly. The corpus, tags and symbols are the
// training corpus's, rebuilt on --resume.
type Snapshot struct {
	RightFirst bool         `json:"right_first"`
	Root       []float64    `json:"root"`
	Child      []float64    `json:"child"`
	Stop       []float64    `json:"stop"`
	Cont       []float64    `json:"cont"`
	CCM        ccm.Snapshot `json:"ccm"`
	// Order is the order's name under the mixture and footnote 8 (""
	// under the released and right-first orders, which RightFirst tells
	// apart); Halt and Go are footnote 8's tables (Fn8Params).
	Order string    `json:"order,omitempty"`
	Halt  []float64 `json:"halt,omitempty"`
	Go    []float64 `json:"go,omitempty"`
}

// Snapshot is m as a Snapshot (sharing its tables).
func (m *Model) Snapshot() Snapshot {
	s := Snapshot{RightFirst: m.rightFirst, Root: m.DMV.Root, Child: m.DMV.Child, Stop: m.DMV.Stop, Cont: m.DMV.Cont, CCM: m.CCM.Snapshot()}
	if m.order == Mixture || m.order == Footnote8 {
		s.Order = m.order.String()
	}
	if m.Fn8 != nil {
		s.Halt, s.Go = m.Fn8.Halt, m.Fn8.Go
	}
	return s
}

// FromSnapshot is the snapshot's pair over the training corpus of m (a
// pair Start or NewLoop gave, with the same options).
func (m *Model) FromSnapshot(s Snapshot) (*Model, error) {
	order := Released
	if s.RightFirst {
		order = RightFirstOrder
	}
	if s.Order != "" {
		o, ok := ParseOrder(s.Order)
		if !ok || o == Released || o == RightFirstOrder || s.RightFirst {
			return nil, fmt.Errorf("a checkpoint of order %q (right_first %v): not one this program writes", s.Order, s.RightFirst)
		}
		order = o
	}
	if order != m.family0() {
		return nil, fmt.Errorf("a %s checkpoint, not %s", FamilyOfOrder(order), m.family())
	}
	t := m.DMV.T
	if len(s.Root) != t || len(s.Child) != 2*t*t || len(s.Stop) != 4*t || len(s.Cont) != 4*t {
		return nil, fmt.Errorf("a DMV of %d tags, not of this corpus's %d", len(s.Root), t)
	}
	d := &dmv.Params{T: t, Root: s.Root, Child: s.Child, Stop: s.Stop, Cont: s.Cont}
	if err := dmv.CheckDistribution(m.Tags, d); err != nil {
		return nil, fmt.Errorf("its DMV: %w", err)
	}
	var fn8 *Fn8Params
	if order == Footnote8 {
		fn8 = &Fn8Params{T: t, Halt: s.Halt, Go: s.Go}
		if err := CheckFn8(m.Tags, fn8); err != nil {
			return nil, fmt.Errorf("its footnote 8: %w", err)
		}
	} else if s.Halt != nil || s.Go != nil {
		return nil, fmt.Errorf("a %s checkpoint with footnote 8's tables", FamilyOfOrder(order))
	}
	c, err := s.CCM.Model(m.CCM.Sym)
	if err != nil {
		return nil, err
	}
	if c.Variant != ccm.Model1 {
		return nil, fmt.Errorf("the CCM of a checkpoint of %s is %s", m.family(), ccm.FamilyOf(c.Variant))
	}
	n := *m
	d.V = dmv.DMVValence
	n.DMV = d
	n.CCM = c
	n.Fn8 = fn8
	return &n, nil
}

// family0 is m's order as its family tells it (RightFirstOrder when
// rightFirst).
func (m *Model) family0() Order {
	if m.rightFirst {
		return RightFirstOrder
	}
	return m.order
}
