package dmv

import (
	"fmt"
	"math"
)

// Reweighting is what the annealing estimators of Smith & Eisner change in
// an E-step (DESIGN.md §5.4–5.5): the weights fed to the chart, never the
// chart. The factors compose: the score of a tree is
//
//	∏ over its events  p^β · λ₀^(1−β)     (DA; SDA when Skew is set)
//	× ∏ over its non-root edges  e^{δ·|i−j|}   (Model L)
//	× e^{SegBeta·(trees − 1)}                  (Model S, when Segmented)
//
// and the E-step's posterior over structures is proportional to it.
type Reweighting struct {
	// Beta raises every probability to β (deterministic annealing). 1 is
	// the plain DMV — not 0, which would make every tree equally likely.
	Beta float64
	// Skew, when not nil, is skewed DA's λ₀ (the initializer's model): the
	// weight of an event is p^β·λ₀^(1−β). Same tags as the model.
	Skew *Params
	// Delta is Model L's locality bias δ: each edge between positions i
	// and j is multiplied by e^{δ·|i−j|}. 0 is no bias.
	Delta float64
	// Segmented is Model S: a sentence is a sequence of trees over
	// contiguous segments, each root drawn from root, with weight
	// e^SegBeta for each tree beyond the first.
	Segmented bool
	SegBeta   float64
}

// Plain is the reweighting that changes nothing: the ordinary E-step.
func Plain() Reweighting { return Reweighting{Beta: 1} }

// IsPlain says whether r leaves the DMV unchanged.
func (r Reweighting) IsPlain() bool {
	return r.Beta == 1 && r.Skew == nil && r.Delta == 0 && !r.Segmented
}

// Check reports settings no E-step can use.
func (r Reweighting) Check() error {
	switch {
	case !(r.Beta > 0) || math.IsInf(r.Beta, 0):
		return fmt.Errorf("β must be a positive number, not %v", r.Beta)
	case math.IsNaN(r.Delta) || math.IsInf(r.Delta, 0):
		return fmt.Errorf("δ must be a finite number, not %v", r.Delta)
	case r.Segmented && (math.IsNaN(r.SegBeta) || math.IsInf(r.SegBeta, 0)):
		return fmt.Errorf("the segmentation weight must be a finite number, not %v", r.SegBeta)
	}
	return nil
}

// Weights is the table the chart is loaded with for model: model itself
// at β = 1 (where the skew vanishes, even where λ₀ is 0), else
// p^β·λ₀^(1−β) entry by entry. An impossible event stays impossible
// (0^β = 0 for β > 0).
func (r Reweighting) Weights(model *Params) *Params {
	if r.Beta == 1 {
		return model
	}
	w := NewValenceParams(model.T, model.V)
	dst, src := w.Tables(), model.Tables()
	var skew [4][]float64
	if r.Skew != nil {
		skew = r.Skew.Tables()
	}
	// In log space: one Exp and a Log or two per entry cost less than
	// math.Pow, and this table is made once per EM iteration.
	for k := range dst {
		for i, p := range src[k] {
			if p == 0 {
				continue
			}
			l := r.Beta * math.Log(p)
			if r.Skew != nil {
				l += (1 - r.Beta) * math.Log(skew[k][i])
			}
			dst[k][i] = math.Exp(l)
		}
	}
	if model.Backoff != nil {
		annealBackoff(w, model, r)
	}
	return w
}

// annealBackoff sets the weights of a model that learns its back-off:
// the choice of distribution is an event of the tree like any other, so
// each of an attachment's two ways — through the full distribution
// (P − q) and through the back-off (q) — is raised to β (and skewed by
// the attachment's λ₀) on its own, and the attachment's weight is their
// sum. The E-step's split (SplitBackoff) then gives the annealed posterior
// of the choice.
func annealBackoff(w, model *Params, r Reweighting) {
	w.Backoff = make([]float64, len(model.Backoff))
	pow := func(x float64, i int) float64 {
		if x <= 0 {
			return 0
		}
		l := r.Beta * math.Log(x)
		if r.Skew != nil {
			l += (1 - r.Beta) * math.Log(r.Skew.Child[i])
		}
		return math.Exp(l)
	}
	for i, q := range model.Backoff {
		w.Backoff[i] = pow(q, i)
		w.Child[i] = pow(model.Child[i]-q, i) + w.Backoff[i]
	}
}

// DistanceFactors is Model L's factor e^{δ·d} of an attachment of
// distance d, for d = 0..maxDist, as the lattice charts take it (nil
// when δ = 0: no factor).
func DistanceFactors(delta float64, maxDist int) []float64 {
	if delta == 0 {
		return nil
	}
	dist := make([]float64, maxDist+1)
	for d := range dist {
		dist[d] = math.Exp(delta * float64(d))
	}
	return dist
}

// EStep sets the structural parts of r (Model L's distance factor, Model
// S's segmentation) on the E-step options opts.
func (r Reweighting) EStep(opts EStepOptions) EStepOptions {
	if r.Delta != 0 {
		delta := r.Delta
		opts.Dist = func(d int) float64 { return math.Exp(delta * float64(d)) }
	}
	opts.Segment, opts.SegBeta = r.Segmented, r.SegBeta
	return opts
}

// AlignTags returns the table of other (over tags of its own) indexed by
// ts instead, for a skew model read from its own file: every tag of ts
// must be in other's tag set; tags only other knows are dropped.
func AlignTags(ts *TagSet, other *TagSet, p *Params) (*Params, error) {
	t := ts.Len()
	index := make([]int, t)
	for i, name := range ts.Names() {
		j, ok := other.Index(name)
		if !ok {
			return nil, fmt.Errorf("tag %q is not in the model", name)
		}
		index[i] = j
	}
	q := NewValenceParams(t, p.V)
	if p.Backoff != nil {
		q.Backoff = make([]float64, len(q.Child))
	}
	for a := 0; a < t; a++ {
		q.Root[a] = p.Root[index[a]]
	}
	for h := 0; h < t; h++ {
		for dir := Left; dir <= Right; dir++ {
			for v := 0; v < p.V.Child; v++ {
				for a := 0; a < t; a++ {
					q.Child[q.ChildAt(h, dir, v, a)] = p.Child[p.ChildAt(index[h], dir, v, index[a])]
					if p.Backoff != nil {
						q.Backoff[q.ChildAt(h, dir, v, a)] = p.Backoff[p.ChildAt(index[h], dir, v, index[a])]
					}
				}
			}
			for v := 0; v < p.V.Stop; v++ {
				q.Stop[q.DecisionAt(h, dir, v)] = p.Stop[p.DecisionAt(index[h], dir, v)]
				q.Cont[q.DecisionAt(h, dir, v)] = p.Cont[p.DecisionAt(index[h], dir, v)]
			}
		}
	}
	return q, nil
}
