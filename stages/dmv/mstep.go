package dmv

import (
	"fmt"
)

// MStep turns expected counts into probabilities: within each multinomial
// (root; child(h, dir, valence); the stop/cont decision of (h, dir,
// valence)) add lambda to every count and normalise. A multinomial with
// no mass at all (lambda = 0 and no count) becomes uniform: its
// probabilities are never used by the data, and uniform keeps the model a
// distribution.
func MStep(counts *Params, lambda float64) *Params {
	p := NewValenceParams(counts.T, counts.V)
	normalize(p.Root, counts.Root, lambda)
	t := counts.T
	for c := 0; c < len(counts.Child)/max(t, 1); c++ {
		lo, hi := c*t, (c+1)*t
		normalize(p.Child[lo:hi], counts.Child[lo:hi], lambda)
	}
	for i := range counts.Stop {
		s, k := counts.Stop[i]+lambda, counts.Cont[i]+lambda
		if total := s + k; total > 0 {
			p.Stop[i], p.Cont[i] = s/total, k/total
		} else {
			p.Stop[i], p.Cont[i] = 0.5, 0.5
		}
	}
	return p
}

// CheckBackoff refuses a child back-off weight outside [0, 1].
func CheckBackoff(w float64) error {
	if !(w >= 0 && w <= 1) {
		return fmt.Errorf("the child back-off weight must be in [0, 1], not %v", w)
	}
	return nil
}

// MStepBackoff is MStep with every child distribution interpolated with
// a back-off distribution that forgets the head, as pr-toolkit's
// -child-backoff does after each M-step (DepProbMatrix.addChildBackoff):
//
//	P(a | h, dir, v) = (1 − w)·P̂(a | h, dir, v) + w·P̂(a | dir, v)
//
// P̂(a | h, dir, v) is MStep's (counts plus λ, normalised); P̂(a | dir, v)
// normalises the counts of a summed over every head, plus λ. w = 0 is
// MStep. The weight is fixed, not learnt (Headden et al. 2009 learn theirs).
func MStepBackoff(counts *Params, lambda, w float64) *Params {
	p := MStep(counts, lambda)
	if w == 0 {
		return p
	}
	t, v := counts.T, counts.V
	back := make([]float64, t)
	for dir := Left; dir <= Right; dir++ {
		for cv := 0; cv < v.Child; cv++ {
			clear(back)
			for h := 0; h < t; h++ {
				addTo(back, counts.Child[counts.ChildAt(h, dir, cv, 0):counts.ChildAt(h, dir, cv, t)])
			}
			normalize(back, back, lambda)
			for h := 0; h < t; h++ {
				row := p.Child[p.ChildAt(h, dir, cv, 0):p.ChildAt(h, dir, cv, t)]
				for a := range row {
					row[a] = (1-w)*row[a] + w*back[a]
				}
			}
		}
	}
	return p
}

func normalize(dst, counts []float64, lambda float64) {
	total := 0.0
	for _, c := range counts {
		total += c + lambda
	}
	if total <= 0 {
		for i := range dst {
			dst[i] = 1 / float64(len(dst))
		}
		return
	}
	for i, c := range counts {
		dst[i] = (c + lambda) / total
	}
}
