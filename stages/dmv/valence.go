package dmv

import (
	"fmt"

	"github.com/grind-nlp/grind/format"
)

// Valence is how many valences a DMV tells apart: Stop for its stop and
// continue decisions, Child for its child distributions (pr-toolkit's
// -dvalency and -cvalency; Headden, Johnson & McClosky 2009's extended
// valence grammar is Stop 2, Child 2). A head with k children already
// generated on a side, nearest first, takes its next decision at valence
// min(k, Stop − 1) and draws its next child at valence min(k, Child − 1):
// 1 tells nothing apart, 2 "no child yet" from "some", 3 none, one, and
// two or more. The plain DMV is Stop 2, Child 1.
type Valence struct{ Stop, Child int }

// DMVValence is the plain DMV's: adjacency for the decisions, one child
// distribution.
var DMVValence = Valence{Stop: 2, Child: 1}

// IsDMV says whether v is the plain DMV's.
func (v Valence) IsDMV() bool { return v == DMVValence }

// OrDMV is v, or the plain DMV's settings when v is not given (zero).
func (v Valence) OrDMV() Valence {
	if v == (Valence{}) {
		return DMVValence
	}
	return v
}

// twoChildValences is Headden et al.'s extended valence grammar's
// setting, the one beside the plain DMV's that the DMV's own chart and
// its lanes run (Chart.attachTwoChild); every other goes to vchart.
var twoChildValences = Valence{Stop: 2, Child: 2}

// onDMVChart says whether the DMV's own chart (and lanes) run v.
func (v Valence) onDMVChart() bool { return v.IsDMV() || v == twoChildValences }

// Check refuses settings outside 1..format.MaxValence.
func (v Valence) Check() error {
	if v.Stop < 1 || v.Child < 1 || v.Stop > format.MaxValence || v.Child > format.MaxValence {
		return fmt.Errorf("valences %d (stop) and %d (child): each must be 1 to %d", v.Stop, v.Child, format.MaxValence)
	}
	return nil
}

// States is how many counts of children the chart keeps apart.
func (v Valence) States() int { return max(v.Stop, v.Child) }

// String names v as the flags do.
func (v Valence) String() string {
	return fmt.Sprintf("stop valence %d, child valence %d", v.Stop, v.Child)
}

// header writes v into a model's or counts' header (nothing for the
// plain DMV, whose files stay as they were).
func (v Valence) header(h *format.Header) *format.Header {
	if !v.IsDMV() {
		h.StopValence, h.ChildValence = v.Stop, v.Child
	}
	return h
}

// headerValence reads the valence settings of a header.
func headerValence(h *format.Header) (Valence, error) {
	if h.StopValence == 0 && h.ChildValence == 0 {
		return DMVValence, nil
	}
	v := Valence{h.StopValence, h.ChildValence}
	return v, v.Check()
}

// RefuseValence is the error of the stages that know only the plain DMV
// (contrastive estimation's lattices, Model S's segments, the depth bound,
// sampling) when given a model with valence settings; nil for the plain
// DMV.
func RefuseValence(v Valence, what string) error {
	if v.IsDMV() {
		return nil
	}
	return fmt.Errorf("%s is for the plain DMV only, not a model with %s", what, v)
}
