package anneal

import (
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/schedule"
	"github.com/grind-nlp/grind/stages/train"
)

// udEnglish10 is the accuracy tables' training set, UD English ≤10.
func udEnglish10(b *testing.B) *dmv.Corpus { return corpora.UDEnglish(b, 10) }

// BenchmarkEStepReweighted measures one E-step over UD English ≤10 as a
// training loop takes it: the weight table for the iteration (β, skew)
// plus the pass over the corpus (δ's distance factors, Model S's
// segments). Compare each with plain; the targets are ≤ 1.15× for β, skew
// and δ, ≤ 1.5× for Model S.
func BenchmarkEStepReweighted(b *testing.B) {
	c := udEnglish10(b)
	// As in SDA: the skew is the km start, the model a few EM iterations on.
	skew, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	res, err := (&train.EM{Corpus: c, MaxIter: 5}).Run(skew)
	if err != nil {
		b.Fatal(err)
	}
	model := res.Model
	for _, bc := range []struct {
		name string
		r    dmv.Reweighting
	}{
		{"plain", dmv.Plain()},
		{"beta", dmv.Reweighting{Beta: 0.1}},
		{"skew", dmv.Reweighting{Beta: 0.1, Skew: skew}},
		{"delta", dmv.Reweighting{Beta: 1, Delta: -0.6}},
		{"segments", dmv.Reweighting{Beta: 1, Segmented: true, SegBeta: -0.5}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := dmv.NewEStepper(c)
			opts := bc.r.EStep(dmv.EStepOptions{Workers: 1})
			for b.Loop() {
				e.Run(bc.r.Weights(model), opts)
			}
		})
	}
}

// BenchmarkSASchedule is Smith's best English schedule on UD English ≤10,
// start to finish: zero init, λ = 10, δ from −0.6 to +0.1 by 0.1, EM to
// convergence in each of the 8 epochs, with every core.
func BenchmarkSASchedule(b *testing.B) {
	c := udEnglish10(b)
	values, _ := schedule.Linear(-0.6, 0.1, 0.1)
	iters := 0
	for b.Loop() {
		start, err := dmv.InitialModel(c, dmv.InitZero, dmv.InitOptions{})
		if err != nil {
			b.Fatal(err)
		}
		a := &Annealer{EM: train.EM{Corpus: c, Lambda: 10}, Anneals: Delta}
		for _, v := range values {
			a.Stages = append(a.Stages, dmv.Reweighting{Beta: 1, Delta: v})
		}
		res, err := a.Run(start)
		if err != nil {
			b.Fatal(err)
		}
		iters = res.Iterations
	}
	b.ReportMetric(float64(iters), "iterations")
}
