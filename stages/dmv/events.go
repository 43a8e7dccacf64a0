package dmv

import (
	"fmt"
	"math"
	"strconv"

	"github.com/grind-nlp/grind/format"
)

var dirNames = [2]string{format.Left, format.Right}

func dirIndex(name string) int {
	if name == format.Left {
		return Left
	}
	return Right
}

// Events lists every entry of p as an event record carrying unit, in a
// fixed order: root events, then for each head its stop and cont
// decisions (left adj, left non-adj, right adj, right non-adj; with
// valence settings, each direction's valences in order) and its left and
// right children (with valence settings, each direction's by valence).
// Zero entries are written too, so a model file says every parameter
// explicitly. The plain DMV's stop and cont events carry adj; those of a
// model with valence settings, and its child events, carry val. A table
// with a Backoff has each head's backoff events after its children, in
// their order.
func Events(ts *TagSet, p *Params, unit format.Unit) []format.Event {
	evs := make([]format.Event, 0, p.numEvents())
	eachEvent(ts, p, unit, func(e *format.Event) error {
		evs = append(evs, *e)
		return nil
	})
	return evs
}

// eachEvent gives the events of Events one by one to emit, in one reused
// record, and stops at emit's first error.
func eachEvent(ts *TagSet, p *Params, unit format.Unit, emit func(*format.Event) error) error {
	e := format.Event{Unit: unit}
	valued := !p.V.IsDMV()
	return eachEntry(ts, p, func(ev string, h, dir, val, a int, v float64) error {
		e.Ev, e.Head, e.Dir, e.Adj, e.Val, e.HasVal, e.Arg, e.Value = ev, "", "", false, 0, false, "", v
		if ev != format.EvRoot {
			e.Head, e.Dir = ts.Name(h), dirNames[dir]
			if valued {
				e.Val, e.HasVal = val, true
			} else {
				e.Adj = val == Adj && ev != format.EvChild && ev != format.EvBackoff
			}
		}
		if ev == format.EvRoot || ev == format.EvChild || ev == format.EvBackoff {
			e.Arg = ts.Name(a)
		}
		return emit(&e)
	})
}

// eachLine gives the lines of eachEvent's events (format.AppendDMV), a
// newline ending each, in one reused buffer.
func eachLine(ts *TagSet, p *Params, unit format.Unit, emit func(line []byte) error) error {
	var line []byte
	if !p.V.IsDMV() || p.Backoff != nil { // the long way: valences and back-off are not AppendDMV's
		return eachEvent(ts, p, unit, func(e *format.Event) error {
			line = append(e.AppendJSON(line[:0]), '\n')
			return emit(line)
		})
	}
	quoted := make([][]byte, ts.Len()) // each tag as a JSON string, made once
	for i := range quoted {
		quoted[i] = format.AppendQuoted(nil, ts.Name(i))
	}
	return eachEntry(ts, p, func(ev string, h, dir, val, a int, v float64) error {
		var head, arg []byte
		if ev != format.EvRoot {
			head = quoted[h]
		}
		if ev == format.EvRoot || ev == format.EvChild {
			arg = quoted[a]
		}
		line = append(format.AppendDMV(line[:0], ev, head, dirNames[dir], val == Adj, arg, unit, v), '\n')
		return emit(line)
	})
}

// eachEntry gives every entry of p, in Events' order, to fn: its event
// kind, head and direction (not of root), valence (of stop and cont: Adj
// or NonAdj in the plain DMV; of child: 0 there), argument (root and
// child) and value; it stops at fn's first error.
func eachEntry(ts *TagSet, p *Params, fn func(ev string, h, dir, val, a int, v float64) error) error {
	t := ts.Len()
	for a := 0; a < t; a++ {
		if err := fn(format.EvRoot, 0, 0, 0, a, p.Root[a]); err != nil {
			return err
		}
	}
	for h := 0; h < t; h++ {
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < p.V.Stop; v++ {
				i := p.DecisionAt(h, dir, v)
				if err := fn(format.EvStop, h, dir, v, 0, p.Stop[i]); err != nil {
					return err
				}
				if err := fn(format.EvCont, h, dir, v, 0, p.Cont[i]); err != nil {
					return err
				}
			}
		}
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < p.V.Child; v++ {
				for a := 0; a < t; a++ {
					if err := fn(format.EvChild, h, dir, v, a, p.Child[p.ChildAt(h, dir, v, a)]); err != nil {
						return err
					}
				}
			}
		}
		if p.Backoff == nil {
			continue
		}
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < p.V.Child; v++ {
				for a := 0; a < t; a++ {
					if err := fn(format.EvBackoff, h, dir, v, a, p.Backoff[p.ChildAt(h, dir, v, a)]); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// Table is a set of events read back into dense form.
type Table struct {
	Tags   *TagSet
	Params *Params
	Unit   format.Unit
	Stats  *format.Stats // the stats record, when the stream had one
	// Of counts read by ReadCounts: the model hash their E-steps ran
	// with, the order-free sum of their shards' corpus hashes, and how
	// many shards were added.
	Model, Corpus string
	Shards        int
	// VB, when not nil, marks a model of variational Bayes (its header's
	// vb_alpha): Params are sub-normalised weights (CheckSubDistribution).
	VB *VB
	// Refine, when not "", is how the model's readers refine a
	// sentence's tags before they look them up (RefineEnding; its
	// header's "refine").
	Refine string
	events int // event records read
}

// Describe names an event for "given twice" (root A, child A left B, stop A left adj=true).
func Describe(e format.Event) string {
	switch e.Ev {
	case format.EvRoot:
		return "root " + e.Arg
	case format.EvChild, format.EvBackoff:
		if e.HasVal {
			return e.Ev + " " + e.Head + " " + e.Dir + " val=" + strconv.Itoa(e.Val) + " " + e.Arg
		}
		return e.Ev + " " + e.Head + " " + e.Dir + " " + e.Arg
	}
	if e.HasVal {
		return e.Ev + " " + e.Head + " " + e.Dir + " val=" + strconv.Itoa(e.Val)
	}
	return e.Ev + " " + e.Head + " " + e.Dir + " adj=" + strconv.FormatBool(e.Adj)
}

// SumTolerance is how far from 1 a multinomial of a probability model may
// sum when read: models written by grind sum to 1 within a few ulps, so
// anything farther was edited, truncated to too few digits, or is not a
// model.
const SumTolerance = 1e-6

// CheckDistribution checks that p is a DMV over ts: every probability
// finite and in [0, 1], and each multinomial (root; child(h, dir); the
// stop/cont decision of (h, dir, valence)) summing to 1 within
// SumTolerance. The error names the first multinomial that does not.
func CheckDistribution(ts *TagSet, p *Params) error {
	return checkSums(ts, p, func(sum float64) string {
		switch {
		case math.Abs(sum-1) <= SumTolerance:
			return ""
		case sum < 1:
			return fmt.Sprintf("not 1 (tolerance %g): not a normalised model (a model of variational Bayes says so in its header: \"vb_alpha\")", SumTolerance)
		}
		return fmt.Sprintf("not 1 (tolerance %g): not a normalised model", SumTolerance)
	})
}

// CheckSubDistribution checks a model of variational Bayes as
// CheckDistribution checks a normalised one, but for each multinomial
// summing to at most 1 (within SumTolerance): its weights exp E[log θ]
// lose mass (Jensen), the less the more counts a multinomial has.
func CheckSubDistribution(ts *TagSet, p *Params) error {
	return checkSums(ts, p, func(sum float64) string {
		if sum <= 1+SumTolerance {
			return ""
		}
		return fmt.Sprintf("more than 1 (tolerance %g): not a model of variational Bayes", SumTolerance)
	})
}

// checkSums checks every probability in [0, 1] and every multinomial's
// sum by complaint ("" when the sum is right); the error names the first
// that is not.
func checkSums(ts *TagSet, p *Params, complaint func(sum float64) string) error {
	for _, tab := range p.Tables() {
		for _, v := range tab {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("probability %v out of [0, 1]", v)
			}
		}
	}
	// what names the multinomial, made only for the error (a model has
	// hundreds of multinomials, read and written every step of a loop).
	check := func(sum float64, what func() string) error {
		if c := complaint(sum); c != "" {
			return fmt.Errorf("%s sums to %.17g, %s", what(), sum, c)
		}
		return nil
	}
	sum := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s
	}
	t := ts.Len()
	if err := check(sum(p.Root), func() string { return "root" }); err != nil {
		return err
	}
	for h := 0; h < t; h++ {
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < p.V.Child; v++ {
				if err := check(sum(p.Child[p.ChildAt(h, dir, v, 0):p.ChildAt(h, dir, v, t)]), func() string { return childName(ts, p.V, h, dir, v) }); err != nil {
					return err
				}
			}
			for v := 0; v < p.V.Stop; v++ {
				i := p.DecisionAt(h, dir, v)
				if err := check(p.Stop[i]+p.Cont[i], func() string { return decisionName(ts, p.V, h, dir, v) }); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// CheckTotals checks that every multinomial's total of counts plus λ per
// entry is finite, so an M-step over counts can normalise them: counts
// that are each finite can still add up beyond floating point.
func CheckTotals(ts *TagSet, counts *Params, lambda float64) error {
	total := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x + lambda
		}
		return s
	}
	bad := func(s float64, what func() string) error {
		if math.IsInf(s, 0) || math.IsNaN(s) {
			return fmt.Errorf("M-step overflow: the counts of %s add up to %v, beyond floating point", what(), s)
		}
		return nil
	}
	t := ts.Len()
	if err := bad(total(counts.Root), func() string { return "root" }); err != nil {
		return err
	}
	for h := 0; h < t; h++ {
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < counts.V.Child; v++ {
				if err := bad(total(counts.Child[counts.ChildAt(h, dir, v, 0):counts.ChildAt(h, dir, v, t)]), func() string { return childName(ts, counts.V, h, dir, v) }); err != nil {
					return err
				}
			}
			for v := 0; v < counts.V.Stop; v++ {
				i := counts.DecisionAt(h, dir, v)
				if err := bad(counts.Stop[i]+counts.Cont[i]+2*lambda, func() string { return decisionName(ts, counts.V, h, dir, v) }); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// childName and decisionName name a multinomial in the errors of
// CheckDistribution and CheckTotals.
func childName(ts *TagSet, val Valence, h, dir, v int) string {
	if !val.IsDMV() {
		return fmt.Sprintf("child %s %s val=%d", ts.Name(h), dirNames[dir], v)
	}
	return fmt.Sprintf("child %s %s", ts.Name(h), dirNames[dir])
}

func decisionName(ts *TagSet, val Valence, h, dir, v int) string {
	if !val.IsDMV() {
		return fmt.Sprintf("stop+cont %s %s val=%d", ts.Name(h), dirNames[dir], v)
	}
	return fmt.Sprintf("stop+cont %s %s adj=%v", ts.Name(h), dirNames[dir], v == Adj)
}
