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
// decisions (left adj, left non-adj, right adj, right non-adj) and its
// left and right children. Zero entries are written too, so a model file
// says every parameter explicitly.
func Events(ts *TagSet, p *Params, unit format.Unit) []format.Event {
	evs := make([]format.Event, 0, NumEvents(ts.Len()))
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
	return eachEntry(ts, p, func(ev string, h, dir int, adj bool, a int, v float64) error {
		e.Ev, e.Head, e.Dir, e.Adj, e.Arg, e.Value = ev, "", "", adj, "", v
		if ev != format.EvRoot {
			e.Head, e.Dir = ts.Name(h), dirNames[dir]
		}
		if ev == format.EvRoot || ev == format.EvChild {
			e.Arg = ts.Name(a)
		}
		return emit(&e)
	})
}

// eachLine gives the lines of eachEvent's events (format.AppendDMV), a
// newline ending each, in one reused buffer.
func eachLine(ts *TagSet, p *Params, unit format.Unit, emit func(line []byte) error) error {
	quoted := make([][]byte, ts.Len()) // each tag as a JSON string, made once
	for i := range quoted {
		quoted[i] = format.AppendQuoted(nil, ts.Name(i))
	}
	var line []byte
	return eachEntry(ts, p, func(ev string, h, dir int, adj bool, a int, v float64) error {
		var head, arg []byte
		if ev != format.EvRoot {
			head = quoted[h]
		}
		if ev == format.EvRoot || ev == format.EvChild {
			arg = quoted[a]
		}
		line = append(format.AppendDMV(line[:0], ev, head, dirNames[dir], adj, arg, unit, v), '\n')
		return emit(line)
	})
}

// eachEntry gives every entry of p, in Events' order, to fn: its event
// kind, head and direction (not of root), adjacency (stop and cont),
// argument (root and child) and value; it stops at fn's first error.
func eachEntry(ts *TagSet, p *Params, fn func(ev string, h, dir int, adj bool, a int, v float64) error) error {
	t := ts.Len()
	for a := 0; a < t; a++ {
		if err := fn(format.EvRoot, 0, 0, false, a, p.Root[a]); err != nil {
			return err
		}
	}
	for h := 0; h < t; h++ {
		for dir := Left; dir <= Right; dir++ {
			for v := Adj; v <= NonAdj; v++ {
				i := DecisionIndex(h, dir, v)
				if err := fn(format.EvStop, h, dir, v == Adj, 0, p.Stop[i]); err != nil {
					return err
				}
				if err := fn(format.EvCont, h, dir, v == Adj, 0, p.Cont[i]); err != nil {
					return err
				}
			}
		}
		for dir := Left; dir <= Right; dir++ {
			for a := 0; a < t; a++ {
				if err := fn(format.EvChild, h, dir, false, a, p.Child[p.ChildIndex(h, dir, a)]); err != nil {
					return err
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
	events        int // event records read
}

// Describe names an event for "given twice" (root A, child A left B, stop A left adj=true).
func Describe(e format.Event) string {
	switch e.Ev {
	case format.EvRoot:
		return "root " + e.Arg
	case format.EvChild:
		return "child " + e.Head + " " + e.Dir + " " + e.Arg
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
		if math.Abs(sum-1) > SumTolerance {
			return fmt.Errorf("%s sums to %.17g, not 1 (tolerance %g): not a normalised model", what(), sum, SumTolerance)
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
			if err := check(sum(p.Child[p.ChildIndex(h, dir, 0):p.ChildIndex(h, dir, t)]), func() string { return childName(ts, h, dir) }); err != nil {
				return err
			}
			for v := Adj; v <= NonAdj; v++ {
				i := DecisionIndex(h, dir, v)
				if err := check(p.Stop[i]+p.Cont[i], func() string { return decisionName(ts, h, dir, v) }); err != nil {
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
			if err := bad(total(counts.Child[counts.ChildIndex(h, dir, 0):counts.ChildIndex(h, dir, t)]), func() string { return childName(ts, h, dir) }); err != nil {
				return err
			}
			for v := Adj; v <= NonAdj; v++ {
				i := DecisionIndex(h, dir, v)
				if err := bad(counts.Stop[i]+counts.Cont[i]+2*lambda, func() string { return decisionName(ts, h, dir, v) }); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// childName and decisionName name a multinomial in the errors of
// CheckDistribution and CheckTotals.
func childName(ts *TagSet, h, dir int) string {
	return fmt.Sprintf("child %s %s", ts.Name(h), dirNames[dir])
}

func decisionName(ts *TagSet, h, dir, v int) string {
	return fmt.Sprintf("stop+cont %s %s adj=%v", ts.Name(h), dirNames[dir], v == Adj)
}
