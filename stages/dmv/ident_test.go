package dmv

import (
	"testing"

	"github.com/grind-nlp/grind/format"
)

// ident must tell events apart exactly as describe does: mstep finds
// repeated events by ident and reports them by describe.
func TestIdentAgreesWithDescribe(t *testing.T) {
	var evs []format.Event
	for _, h := range []string{"A", "B"} {
		evs = append(evs, format.Event{Ev: format.EvRoot, Arg: h})
		for _, dir := range []string{format.Left, format.Right} {
			for _, adj := range []bool{true, false} {
				evs = append(evs,
					format.Event{Ev: format.EvStop, Head: h, Dir: dir, Adj: adj},
					format.Event{Ev: format.EvCont, Head: h, Dir: dir, Adj: adj},
					// describe leaves adj out of child events: so must ident.
					format.Event{Ev: format.EvChild, Head: h, Dir: dir, Adj: adj, Arg: "A"},
					format.Event{Ev: format.EvChild, Head: h, Dir: dir, Adj: adj, Arg: "B"})
			}
		}
	}
	for i := range evs {
		for j := range evs {
			sameText := describe(evs[i]) == describe(evs[j])
			sameID := ident(&evs[i]) == ident(&evs[j])
			if sameText != sameID {
				t.Errorf("%q and %q: describe equal %v, ident equal %v", describe(evs[i]), describe(evs[j]), sameText, sameID)
			}
		}
	}
}
