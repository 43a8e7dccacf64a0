package dmvccm

import (
	"fmt"
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
)

// fn8Event is footnote 8's decision (tag t, state (vL, vR), move: -1 halt,
// else the side) as a record.
func fn8Event(tags *dmv.TagSet, t, vL, vR, move int, unit format.Unit, v float64) format.Event {
	e := format.Event{Ev: format.EvHalt, Head: tags.Name(t), AdjLeft: vL == Adj, AdjRight: vR == Adj, Unit: unit, Value: v}
	if move >= 0 {
		e.Ev, e.Dir = format.EvGo, format.Left
		if move == Right {
			e.Dir = format.Right
		}
	}
	return e
}

// NumFn8Events is the number of footnote 8's records over t tags: in each
// of a tag's four states, halt and go on either side.
func NumFn8Events(t int) int { return 12 * t }

// eachFn8 calls fn with f's records over tags: per tag (in the tag set's
// order), per state (left_adj, then right_adj, true first), halt, go
// left, go right.
func eachFn8(tags *dmv.TagSet, f *Fn8Params, unit format.Unit, fn func(e *format.Event) error) error {
	for t := range f.T {
		for vL := range 2 {
			for vR := range 2 {
				s := fn8State(t, vL, vR)
				for move, v := range [3]float64{f.Halt[s], f.Go[2*s+Left], f.Go[2*s+Right]} {
					e := fn8Event(tags, t, vL, vR, move-1, unit, v)
					if err := fn(&e); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// CheckFn8 checks that f is footnote 8's decisions over tags: every
// probability in [0, 1], and each state's three outcomes summing to 1
// within dmv.SumTolerance.
func CheckFn8(tags *dmv.TagSet, f *Fn8Params) error {
	if f == nil || f.T != tags.Len() || len(f.Halt) != 4*f.T || len(f.Go) != 8*f.T {
		return fmt.Errorf("footnote 8's decisions are not over the DMV's %d tags", tags.Len())
	}
	for _, tab := range [][]float64{f.Halt, f.Go} {
		for _, v := range tab {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("footnote 8's probability %v out of [0, 1]", v)
			}
		}
	}
	for t := range f.T {
		for vL := range 2 {
			for vR := range 2 {
				s := fn8State(t, vL, vR)
				if sum := f.Halt[s] + f.Go[2*s] + f.Go[2*s+1]; math.Abs(sum-1) > dmv.SumTolerance {
					return fmt.Errorf("footnote 8's decision of %s sums to %.17g, not 1 (tolerance %g): not a normalised model", fn8Name(tags.Name(t), vL == Adj, vR == Adj), sum, dmv.SumTolerance)
				}
			}
		}
	}
	return nil
}

// checkFn8Counts checks footnote 8's counts finite and ≥ 0.
func checkFn8Counts(f *Fn8Params) error {
	for _, tab := range [][]float64{f.Halt, f.Go} {
		for _, v := range tab {
			if !(v >= 0) || math.IsInf(v, 1) {
				return fmt.Errorf("a footnote-8 count is %v: nothing written", v)
			}
		}
	}
	return nil
}

// checkFn8Totals checks that each state's counts add up within floating
// point, so the M-step can normalise them.
func checkFn8Totals(tags *dmv.TagSet, f *Fn8Params) error {
	for t := range f.T {
		for vL := range 2 {
			for vR := range 2 {
				s := fn8State(t, vL, vR)
				if sum := f.Halt[s] + f.Go[2*s] + f.Go[2*s+1]; math.IsInf(sum, 0) || math.IsNaN(sum) {
					return fmt.Errorf("M-step overflow: the counts of footnote 8's decision of %s add up to %v, beyond floating point", fn8Name(tags.Name(t), vL == Adj, vR == Adj), sum)
				}
			}
		}
	}
	return nil
}

func fn8Name(head string, adjL, adjR bool) string {
	return fmt.Sprintf("head %s, left_adj %v, right_adj %v", head, adjL, adjR)
}

func fn8Key(e *format.Event) string {
	k := e.Ev + " " + fn8Name(e.Head, e.AdjLeft, e.AdjRight)
	if e.Ev == format.EvGo {
		k += " dir " + e.Dir
	}
	return k
}

func isFn8Event(ev string) bool { return ev == format.EvHalt || ev == format.EvGo }

// fn8Reader gathers footnote 8's records by tag name until the DMV's tags
// are known.
type fn8Reader struct {
	byTag  map[string]*[12]float64
	events int
}

func (r *fn8Reader) add(e *format.Event) {
	if r.byTag == nil {
		r.byTag = map[string]*[12]float64{}
	}
	x := r.byTag[e.Head]
	if x == nil {
		x = new([12]float64)
		r.byTag[e.Head] = x
	}
	vL, vR := NonAdj, NonAdj
	if e.AdjLeft {
		vL = Adj
	}
	if e.AdjRight {
		vR = Adj
	}
	i := 3 * (vL*2 + vR)
	if e.Ev == format.EvGo {
		i += 1 + Left
		if e.Dir == format.Right {
			i = 3*(vL*2+vR) + 1 + Right
		}
	}
	x[i] += e.Value
	r.events++
}

// table is the records over tags (each of its tags must be one of the
// DMV's); counts leave the missing ones 0.
func (r *fn8Reader) table(tags *dmv.TagSet) (*Fn8Params, error) {
	f := NewFn8(tags.Len())
	for name, x := range r.byTag {
		t, ok := tags.Index(name)
		if !ok {
			return nil, fmt.Errorf("footnote 8's decisions of tag %q, which the DMV's events do not have", name)
		}
		for st := range 4 {
			f.Halt[4*t+st] = x[3*st]
			f.Go[2*(4*t+st)+Left] = x[3*st+1+Left]
			f.Go[2*(4*t+st)+Right] = x[3*st+1+Right]
		}
	}
	return f, nil
}

// hashFn8 adds f's tables to a model's hash.
func hashFn8(h *eventio.Hasher, f *Fn8Params) {
	for _, tab := range [][]float64{f.Halt, f.Go} {
		for _, v := range tab {
			h.Float(v)
		}
	}
}
