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
}

// Snapshot is m as a Snapshot (sharing its tables).
func (m *Model) Snapshot() Snapshot {
	return Snapshot{RightFirst: m.rightFirst, Root: m.DMV.Root, Child: m.DMV.Child, Stop: m.DMV.Stop, Cont: m.DMV.Cont, CCM: m.CCM.Snapshot()}
}

// FromSnapshot is the snapshot's pair over the training corpus of m (a
// pair Start or NewLoop gave, with the same options).
func (m *Model) FromSnapshot(s Snapshot) (*Model, error) {
	if s.RightFirst != m.rightFirst {
		return nil, fmt.Errorf("a %s checkpoint, not %s", FamilyOf(s.RightFirst), FamilyOf(m.rightFirst))
	}
	t := m.DMV.T
	if len(s.Root) != t || len(s.Child) != 2*t*t || len(s.Stop) != 4*t || len(s.Cont) != 4*t {
		return nil, fmt.Errorf("a DMV of %d tags, not of this corpus's %d", len(s.Root), t)
	}
	d := &dmv.Params{T: t, Root: s.Root, Child: s.Child, Stop: s.Stop, Cont: s.Cont}
	if err := dmv.CheckDistribution(m.Tags, d); err != nil {
		return nil, fmt.Errorf("its DMV: %w", err)
	}
	c, err := s.CCM.Model(m.CCM.Sym)
	if err != nil {
		return nil, err
	}
	if c.Variant != ccm.Model1 {
		return nil, fmt.Errorf("the CCM of a checkpoint of %s is %s", FamilyOf(m.rightFirst), ccm.FamilyOf(c.Variant))
	}
	n := *m
	d.V = dmv.DMVValence
	n.DMV = d
	n.CCM = c
	return &n, nil
}
