package dmv

import (
	"fmt"
	"math"

	"github.com/grind-nlp/grind/format"
)

// ExpWeights is the potential table of a log-linear DMV (contrastive
// estimation's model, unit "w"): exp(w) for every event. The chart is
// the same for both kinds of model; only the numbers fed to it differ,
// and a tree's score exp(Σ weights of its events) need not sum to 1.
func ExpWeights(w *Params) *Params {
	p := w.Clone()
	p.apply(math.Exp)
	return p
}

// Potentials is what the chart is loaded with for a model table:
// probabilities as they are, log-linear weights exponentiated. Counts are
// not a model.
func (t *Table) Potentials() (*Params, error) {
	switch t.Unit {
	case format.Prob:
		return t.Params, nil
	case format.Weight:
		return ExpWeights(t.Params), nil
	}
	return nil, fmt.Errorf("a table of %q values is not a model", string(t.Unit))
}
