package dmvccm

import (
	"math"

	"github.com/grind-nlp/grind/stages/dmv"
)

// Fn8Params are footnote 8's decision tables over T tags (Order
// Footnote8): in valence state s = (vL, vR) (Adj: no dependent yet on
// that side), a head of tag t stops entirely with probability
// Halt[t·4 + vL·2 + vR], or goes on and takes its next dependent on side
// d with probability Go[(t·4 + vL·2 + vR)·2 + d]; the three sum to 1. As
// counts, the same tables hold expected events. The argument choice
// P(a | h, d) and the root stay the DMV's (dmv.Params).
//
// Footnote 8 names the decisions (stop entirely; if not, a side) but not
// what they are conditioned on; the head and its valence on both sides is
// the DMV's adjacency carried over to a decision that is no longer made
// per side, and what a chart item (i, j, h) knows. EM estimates them as
// it does the DMV's STOP: the expected number of each outcome in each
// (tag, state), over their sum.
type Fn8Params struct {
	T        int
	Halt, Go []float64
}

// NewFn8 is a zero table over t tags.
func NewFn8(t int) *Fn8Params {
	return &Fn8Params{T: t, Halt: make([]float64, 4*t), Go: make([]float64, 8*t)}
}

func fn8State(t, vL, vR int) int { return t*4 + vL*2 + vR }

// Fn8FromDMV is footnote 8's start from a DMV's: in each state the
// released process's weights of its three moves — STOP on both sides,
// CONT left, CONT right (Stop[L][vL]·Stop[R][vR], Cont[L][vL],
// Cont[R][vR]) — normalised. It starts footnote 8 from the same DMV as
// the other orders.
func Fn8FromDMV(p *dmv.Params) *Fn8Params {
	f := NewFn8(p.T)
	for t := range p.T {
		for vL := range 2 {
			for vR := range 2 {
				s := fn8State(t, vL, vR)
				halt := p.Stop[dmv.DecisionIndex(t, Left, vL)] * p.Stop[dmv.DecisionIndex(t, Right, vR)]
				l, r := p.Cont[dmv.DecisionIndex(t, Left, vL)], p.Cont[dmv.DecisionIndex(t, Right, vR)]
				f.Halt[s], f.Go[2*s+Left], f.Go[2*s+Right] = halt, l, r
				f.normalize(s)
			}
		}
	}
	return f
}

// normalize makes state s's three outcomes a distribution (thirds when
// they are all 0: a state never visited).
func (f *Fn8Params) normalize(s int) {
	total := f.Halt[s] + f.Go[2*s] + f.Go[2*s+1]
	if !(total > 0) {
		f.Halt[s], f.Go[2*s], f.Go[2*s+1] = 1.0/3, 1.0/3, 1.0/3
		return
	}
	f.Halt[s] /= total
	f.Go[2*s] /= total
	f.Go[2*s+1] /= total
}

// Fn8MStep is the relative frequency of each outcome in each state.
func Fn8MStep(counts *Fn8Params) *Fn8Params {
	f := &Fn8Params{T: counts.T, Halt: append([]float64(nil), counts.Halt...), Go: append([]float64(nil), counts.Go...)}
	for s := range f.Halt {
		f.normalize(s)
	}
	return f
}

// Add adds counts o into f.
func (f *Fn8Params) Add(o *Fn8Params) {
	for i, v := range o.Halt {
		f.Halt[i] += v
	}
	for i, v := range o.Go {
		f.Go[i] += v
	}
}

// Zero clears the table.
func (f *Fn8Params) Zero() {
	clear(f.Halt)
	clear(f.Go)
}

// weights looks up the decisions for a sentence's tag numbers (a negative
// tag gets 0 throughout).
func (f *Fn8Params) weights(tags []int) *Fn8Weights {
	n := len(tags)
	w := &Fn8Weights{}
	for vL := range 2 {
		for vR := range 2 {
			w.Halt[vL][vR] = make([]float64, n)
			for d := range 2 {
				w.Go[d][vL][vR] = make([]float64, n)
			}
			for h, t := range tags {
				if t < 0 {
					continue
				}
				s := fn8State(t, vL, vR)
				w.Halt[vL][vR][h] = f.Halt[s]
				w.Go[Left][vL][vR][h], w.Go[Right][vL][vR][h] = f.Go[2*s+Left], f.Go[2*s+Right]
			}
		}
	}
	return w
}

// addCounts adds one sentence's positional footnote-8 events to the tag
// tables.
func (f *Fn8Params) addCounts(tags []int, c *Fn8Weights) {
	for h, t := range tags {
		for vL := range 2 {
			for vR := range 2 {
				s := fn8State(t, vL, vR)
				f.Halt[s] += c.Halt[vL][vR][h]
				f.Go[2*s+Left] += c.Go[Left][vL][vR][h]
				f.Go[2*s+Right] += c.Go[Right][vL][vR][h]
			}
		}
	}
}

// extend is f over the tags of to (names), a tag of from's kept, any
// other getting the average of from's tags' decisions in each state (as
// dmv.Table.Extend backs an unseen tag off to the DMV's average tag).
func (f *Fn8Params) extend(from, to *dmv.TagSet) *Fn8Params {
	avg := NewFn8(1)
	for t := range f.T {
		for s := range 4 {
			avg.Halt[s] += f.Halt[t*4+s] / float64(f.T)
			avg.Go[2*s] += f.Go[2*(t*4+s)] / float64(f.T)
			avg.Go[2*s+1] += f.Go[2*(t*4+s)+1] / float64(f.T)
		}
	}
	names := to.Names()
	out := NewFn8(len(names))
	for u, name := range names {
		src, t := avg, 0
		if i, ok := from.Index(name); ok {
			src, t = f, i
		}
		for s := range 4 {
			out.Halt[u*4+s] = src.Halt[t*4+s]
			out.Go[2*(u*4+s)] = src.Go[2*(t*4+s)]
			out.Go[2*(u*4+s)+1] = src.Go[2*(t*4+s)+1]
		}
	}
	return out
}

// tempered is f with every probability p raised to β, times skew's to
// 1 − β (skew nil: p^β), for annealing's E-step (Model.Tempered).
func (f *Fn8Params) tempered(beta float64, skew *Fn8Params) *Fn8Params {
	out := NewFn8(f.T)
	for i, v := range f.Halt {
		out.Halt[i] = math.Pow(v, beta)
		if skew != nil {
			out.Halt[i] *= math.Pow(skew.Halt[i], 1-beta)
		}
	}
	for i, v := range f.Go {
		out.Go[i] = math.Pow(v, beta)
		if skew != nil {
			out.Go[i] *= math.Pow(skew.Go[i], 1-beta)
		}
	}
	return out
}
