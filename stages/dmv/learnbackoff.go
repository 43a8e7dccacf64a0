package dmv

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Learned back-off (Headden, Johnson & McClosky 2009's smoothing of the
// extended valence grammar): each argument a of head h on side dir at
// child valence v is drawn either from the full distribution
// P_f(a | h, dir, v) or from a back-off that forgets the head,
// P_b(a | dir, v); which one is a hidden binary choice, back-off with
// probability λ(h, dir, v). So
//
//	P(a | h, dir, v) = (1 − λ)·P_f(a | h, dir, v) + λ·P_b(a | dir, v)
//
// and EM learns P_f, P_b and λ from expected counts of the choices, as of
// any other hidden event. A model keeps P in its child entries (every
// chart, decoder and reader uses it unchanged) and q = λ·P_b(a | dir, v)
// in its Backoff entries: given that h took a on that side at that
// valence, the choice was the back-off with probability q / P,
// independently of the rest of the tree, so the E-step's expected choice
// counts are the attachment counts times q / P (SplitBackoff) — exact,
// and no change to the chart.
//
// The M-step (MStepLearnedBackoff) is the M-step of the model with the
// choices as events: P_f normalises the attachments made through the full
// distribution (plus add-λ), P_b those made through the back-off summed
// over every head (over every valence: LearnedBackoff.ForgetValence; plus
// add-λ), and λ(h, dir, v) the choices plus the prior's pseudo-counts. EM's guarantee holds for the objective log p(x) + log
// prior (tested).

// LearnedBackoff is how a model learns its back-off: what the back-off
// forgets, and the pseudo-count added to the expected choices of each λ
// in the M-step — Full to the choices of the full distribution, Back to
// those of the back-off — that is, the MAP estimate under a Beta(Full + 1,
// Back + 1) prior on λ, as add-λ is under a Dirichlet(λ + 1). A start
// gives every λ its prior mean Back / (Full + Back).
//
// The back-off forgets the head, P_b(a | dir, v), or with ForgetValence
// the valence, P_b(a | h, dir): a head's later arguments lean on its first
// (it needs child valences to forget). Both are recalled as Headden et
// al.'s, not checked against their text (README, "Learned back-off").
type LearnedBackoff struct {
	Full, Back    float64
	ForgetValence bool
}

// DefaultLearnedBackoff forgets the head and favours the back-off: a head
// seen a few times leans on what every head does on that side, one seen
// thousands of times on its own counts (README, "Learned back-off", for
// why these numbers).
var DefaultLearnedBackoff = LearnedBackoff{Full: 1, Back: 10}

// Check refuses pseudo-counts that are not finite numbers ≥ 0.
func (bp LearnedBackoff) Check() error {
	for _, x := range []float64{bp.Full, bp.Back} {
		if !(x >= 0) || math.IsInf(x, 1) {
			return fmt.Errorf("the back-off prior's pseudo-counts must be finite numbers ≥ 0, not %v", x)
		}
	}
	return nil
}

// CheckFor refuses to forget the valence of a model with one child
// valence: its back-off would be the full distribution itself.
func (bp LearnedBackoff) CheckFor(v Valence) error {
	if bp.ForgetValence && v.Child < 2 {
		return fmt.Errorf("a back-off that forgets the valence needs child valences to forget (--child-valence 2 or more), not %s", v)
	}
	return nil
}

// String writes bp's pseudo-counts as ParseBackoffPrior reads them.
func (bp LearnedBackoff) String() string {
	return strconv.FormatFloat(bp.Full, 'g', -1, 64) + "," + strconv.FormatFloat(bp.Back, 'g', -1, 64)
}

// ParseBackoffPrior reads pseudo-counts "FULL,BACK" (the flags' form);
// the back-off forgets the head.
func ParseBackoffPrior(s string) (LearnedBackoff, error) {
	f, b, ok := strings.Cut(s, ",")
	var bp LearnedBackoff
	var err1, err2 error
	bp.Full, err1 = strconv.ParseFloat(strings.TrimSpace(f), 64)
	bp.Back, err2 = strconv.ParseFloat(strings.TrimSpace(b), 64)
	if !ok || err1 != nil || err2 != nil {
		return bp, fmt.Errorf("the back-off prior %q: want two pseudo-counts FULL,BACK (e.g. 1,10)", s)
	}
	return bp, bp.Check()
}

// mean is λ's prior mean, ½ when the prior has no mass.
func (bp LearnedBackoff) mean() float64 {
	if bp.Full+bp.Back == 0 {
		return 0.5
	}
	return bp.Back / (bp.Full + bp.Back)
}

// SplitBackoff sets the expected choices of the back-off in counts (an
// E-step's, on weights w): each attachment count times w's back-off share
// of it. Nothing when w does not learn its back-off.
func SplitBackoff(counts, w *Params) {
	if w.Backoff == nil {
		return
	}
	counts.Backoff = make([]float64, len(counts.Child))
	for i, c := range counts.Child {
		if c != 0 { // an attachment counted has weight > 0
			counts.Backoff[i] = c * w.Backoff[i] / w.Child[i]
		}
	}
}

// groups are the child rows (offsets of ChildAt(h, dir, v, 0)) that share
// a back-off distribution: every head's on a side at a valence, or with
// ForgetValence every valence's of a head on a side.
func (bp LearnedBackoff) groups(p *Params) [][]int {
	var gs [][]int
	for dir := Left; dir <= Right; dir++ {
		if bp.ForgetValence {
			for h := 0; h < p.T; h++ {
				g := make([]int, p.V.Child)
				for v := range g {
					g[v] = p.ChildAt(h, dir, v, 0)
				}
				gs = append(gs, g)
			}
			continue
		}
		for v := 0; v < p.V.Child; v++ {
			g := make([]int, p.T)
			for h := range g {
				g[h] = p.ChildAt(h, dir, v, 0)
			}
			gs = append(gs, g)
		}
	}
	return gs
}

// StartBackoff makes a model that learns its back-off from p (one that
// does not): its child distributions become the full ones, the back-off of
// each group (groups) their mean, and every λ the prior's mean.
func StartBackoff(p *Params, bp LearnedBackoff) *Params {
	q := p.Clone()
	q.Backoff = make([]float64, len(q.Child))
	t, lambda := p.T, bp.mean()
	back := make([]float64, t)
	for _, g := range bp.groups(p) {
		clear(back)
		for _, lo := range g {
			addTo(back, p.Child[lo:lo+t])
		}
		for a := range back {
			back[a] /= float64(len(g))
		}
		for _, lo := range g {
			mix(q, lo, back, lambda)
		}
	}
	return q
}

// mix sets q's child row at lo to (1 − λ)·full + λ·back, full being the
// row as it is, and its Backoff row to λ·back.
func mix(q *Params, lo int, back []float64, lambda float64) {
	for a := range back {
		q.Backoff[lo+a] = lambda * back[a]
		q.Child[lo+a] = (1-lambda)*q.Child[lo+a] + q.Backoff[lo+a]
	}
}

// MStepLearnedBackoff is the M-step of a model that learns its back-off,
// from counts with their choices (SplitBackoff): root and decisions as
// MStep; P_f from the attachments through the full distribution plus
// lambda; each back-off from those through it summed over its group
// (groups) plus lambda; each λ from its row's choices plus bp's
// pseudo-counts.
func MStepLearnedBackoff(counts *Params, lambda float64, bp LearnedBackoff) *Params {
	full := counts.Clone()
	if counts.Backoff == nil {
		full.Backoff = make([]float64, len(counts.Child))
	}
	for i, b := range full.Backoff {
		// rounding may leave a back-off share a hair above its whole
		full.Child[i] = max(full.Child[i]-b, 0)
	}
	p := MStep(full, lambda)
	p.Backoff = make([]float64, len(p.Child))
	t := counts.T
	back := make([]float64, t)
	for _, g := range bp.groups(counts) {
		clear(back)
		for _, lo := range g {
			addTo(back, full.Backoff[lo:lo+t])
		}
		normalize(back, back, lambda)
		for _, lo := range g {
			nb, nf := sum(full.Backoff[lo:lo+t])+bp.Back, sum(full.Child[lo:lo+t])+bp.Full
			l := 0.5
			if nb+nf > 0 {
				l = nb / (nb + nf)
			}
			mix(p, lo, back, l)
		}
	}
	return p
}

// Renormalise makes p a distribution again (MStep with λ = 0), each
// back-off share scaled as its child entry is.
func Renormalise(p *Params) *Params {
	q := MStep(p, 0)
	if p.Backoff != nil {
		q.Backoff = make([]float64, len(p.Backoff))
		for i, b := range p.Backoff {
			if b > 0 {
				q.Backoff[i] = b * q.Child[i] / p.Child[i]
			}
		}
	}
	return q
}

// MStepSmoothed is the M-step of counts as their model smooths its child
// distributions: the learned back-off's with prior when the counts carry
// its choices (their E-step's model learns it), else MStepBackoff's fixed
// weight w (0: MStep).
func MStepSmoothed(counts *Params, lambda, w float64, prior LearnedBackoff) *Params {
	if counts.Backoff != nil {
		return MStepLearnedBackoff(counts, lambda, prior)
	}
	return MStepBackoff(counts, lambda, w)
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// checkBackoff checks a model's back-off entries against its child
// entries: each share in [0, its child entry] (within SumTolerance).
func checkBackoff(ts *TagSet, p *Params) error {
	for h := 0; h < p.T; h++ {
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < p.V.Child; v++ {
				for a := 0; a < p.T; a++ {
					i := p.ChildAt(h, dir, v, a)
					if q := p.Backoff[i]; q > p.Child[i]+SumTolerance {
						return fmt.Errorf("the back-off share of %s → %s is %v, more than the whole %v", childName(ts, p.V, h, dir, v), ts.Name(a), q, p.Child[i])
					}
				}
			}
		}
	}
	return nil
}
