package anneal

import (
	"math"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/schedule"
	"github.com/grind-nlp/grind/stages/train"
)

// Smith's tables' schedules end at the last β₀γ^k < 1 (docs/results.md):
// 0.1 by 2.25 is 0.1, 0.225, 0.50625.
func TestBelowOne(t *testing.T) {
	betas, err := schedule.DA(0.1, 2.25)
	if err != nil {
		t.Fatal(err)
	}
	got, err := BelowOne(betas)
	if err != nil || len(got) != 3 || math.Abs(got[2]-0.50625) > 1e-12 {
		t.Fatalf("0.1 by 2.25 below one: %v, %v", got, err)
	}
	if _, err := BelowOne([]float64{1}); err == nil {
		t.Fatal("β₀ = 1 below one: no error")
	}
}

func TestParamFormat(t *testing.T) {
	if Delta.Format(0.1) != "+0.100" || Delta.Format(-0.6) != "-0.600" || Beta.Format(0.001) != "0.001" {
		t.Errorf("formats: %s %s %s", Delta.Format(0.1), Delta.Format(-0.6), Beta.Format(0.001))
	}
}

// record is what the tests keep of an iteration.
type record struct {
	stage int
	value float64
	obj   float64
	model *dmv.Params
}

func recordInto(out *[]record) func(format.Iteration, *dmv.Params) error {
	return func(it format.Iteration, m *dmv.Params) error {
		v := math.NaN()
		switch {
		case it.Beta != nil:
			v = *it.Beta
		case it.Delta != nil:
			v = *it.Delta
		case it.SegBeta != nil:
			v = *it.SegBeta
		}
		*out = append(*out, record{stage: it.Stage, value: v, obj: float64(it.Objective), model: m})
		return nil
	}
}

// Within a stage, EM with a re-weighted E-step climbs the stage's
// objective: for DA the tempered (1/β)·Σ log Σ_y p^β (λ₀^(1−β) for SDA),
// for Models L and S the biased Σ log Z. It must never decrease.
func checkStagesClimb(t *testing.T, name string, recs []record) {
	t.Helper()
	for i := 1; i < len(recs); i++ {
		a, b := recs[i-1], recs[i]
		if a.stage == b.stage && b.obj < a.obj-1e-10*math.Abs(a.obj) {
			t.Fatalf("%s: stage %d (%v): objective fell from %.12g to %.12g at its iteration record %d", name, b.stage, b.value, a.obj, b.obj, i+1)
		}
	}
}

func TestDATemperedObjectiveNeverDecreases(t *testing.T) {
	c := corpora.Sampled(t, 300, 5, 3, 10, 0.4, 3)
	for _, cfg := range []struct {
		name, init   string
		skew         bool
		beta0, gamma float64
	}{
		{"DA zero", dmv.InitZero, false, 0.01, 1.5},
		{"SDA km", dmv.InitKM, true, 0.1, 2},
		{"SDA random", dmv.InitRandom, true, 0.05, 3},
	} {
		start, err := dmv.InitialModel(c, cfg.init, dmv.InitOptions{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		betas, _ := schedule.DA(cfg.beta0, cfg.gamma)
		var skew *dmv.Params
		if cfg.skew {
			skew = start
		}
		var recs []record
		a := &Annealer{EM: train.EM{Corpus: c, MaxIter: 25, Tol: 1e-12, Observe: recordInto(&recs)}, Anneals: Beta}
		for _, b := range betas {
			a.Stages = append(a.Stages, dmv.Reweighting{Beta: b, Skew: skew})
		}
		res, err := a.Run(start)
		if err != nil {
			t.Fatal(err)
		}
		checkStagesClimb(t, cfg.name, recs)
		last := recs[len(recs)-1]
		if last.stage != len(betas) || last.value != 1 {
			t.Fatalf("%s: the last iteration ran in stage %d at β = %v, want stage %d at β = 1", cfg.name, last.stage, last.value, len(betas))
		}
		if res.Iterations != len(recs) {
			t.Fatalf("%s: %d iterations reported, %d observed", cfg.name, res.Iterations, len(recs))
		}
		// At β = 1 the objective is the plain log-likelihood, skew or not.
		plain := dmv.NewEStepper(c).Run(last.model, dmv.EStepOptions{LogLikOnly: true}).LogLik
		if math.Abs(plain-last.obj) > 1e-9*math.Abs(plain) {
			t.Fatalf("%s: last objective %v, plain log-likelihood %v", cfg.name, last.obj, plain)
		}
		// The tempered objective is Σ log Z under p^β·λ₀^(1−β), over β.
		first := recs[0]
		r := dmv.Reweighting{Beta: betas[0], Skew: skew}
		logZ := dmv.NewEStepper(c).Run(r.Weights(first.model), dmv.EStepOptions{LogLikOnly: true}).LogLik
		if math.Abs(logZ/betas[0]-first.obj) > 1e-9*math.Abs(first.obj) {
			t.Fatalf("%s: first objective %v, want Σ log Z / β = %v", cfg.name, first.obj, logZ/betas[0])
		}
	}
}

func TestStructuralEpochsNeverDecrease(t *testing.T) {
	c := corpora.Sampled(t, 300, 5, 3, 10, 0.4, 7)
	start, _ := dmv.InitialModel(c, dmv.InitZero, dmv.InitOptions{})
	for _, cfg := range []struct {
		name   string
		p      Parameter
		values []float64
	}{
		{"Model L", Delta, []float64{-0.6, -0.3, 0, 0.1}},
		{"Model S", SegBeta, []float64{0.5, 0, -1, -3}},
	} {
		var recs []record
		a := &Annealer{EM: train.EM{Corpus: c, MaxIter: 25, Tol: 1e-12, Lambda: 0, Observe: recordInto(&recs)}, Anneals: cfg.p}
		for _, v := range cfg.values {
			r := dmv.Plain()
			if cfg.p == Delta {
				r.Delta = v
			} else {
				r.Segmented, r.SegBeta = true, v
			}
			a.Stages = append(a.Stages, r)
		}
		if _, err := a.Run(start); err != nil {
			t.Fatal(err)
		}
		checkStagesClimb(t, cfg.name, recs)
		for _, r := range recs {
			if r.value != cfg.values[r.stage-1] {
				t.Fatalf("%s: stage %d logged %v, want %v", cfg.name, r.stage, r.value, cfg.values[r.stage-1])
			}
		}
	}
}

// A schedule of one stage at β = 1 is EM itself.
func TestDAAtBetaOneIsEM(t *testing.T) {
	c := corpora.Sampled(t, 200, 4, 3, 10, 0.4, 9)
	start, _ := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	em := train.EM{Corpus: c, MaxIter: 15, Lambda: 0.5}
	want, err := em.Run(start)
	if err != nil {
		t.Fatal(err)
	}
	a := &Annealer{EM: em, Stages: []dmv.Reweighting{{Beta: 1, Skew: start}}}
	got, err := a.Run(start)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Model.Child, want.Model.Child) || got.Iterations != want.Iterations {
		t.Fatal("DA at β = 1 differs from EM")
	}
}

// The number of workers changes nothing, to the last bit, for every
// re-weighting.
func TestAnnealingWorkersGiveIdenticalModels(t *testing.T) {
	c := corpora.Sampled(t, 500, 6, 3, 10, 0.4, 11)
	start, _ := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	stages := []dmv.Reweighting{{Beta: 0.3, Skew: start}, {Beta: 1, Delta: -0.4}, {Beta: 1, Segmented: true, SegBeta: -0.5}}
	corpora.SameForWorkers(t, c.Tags, func(workers int) (*dmv.Params, error) {
		a := &Annealer{EM: train.EM{Corpus: c, EStep: dmv.EStepOptions{Workers: workers}, MaxIter: 4}, Stages: stages}
		res, err := a.Run(start)
		if err != nil {
			return nil, err
		}
		return res.Model, nil
	})
}

func TestAnnealerRejectsBadStages(t *testing.T) {
	c := corpora.Sampled(t, 20, 3, 3, 10, 0.4, 1)
	start, _ := dmv.InitialModel(c, dmv.InitZero, dmv.InitOptions{})
	if _, err := (&Annealer{EM: train.EM{Corpus: c}}).Run(start); err == nil {
		t.Error("an empty schedule must be an error")
	}
	if _, err := (&Annealer{EM: train.EM{Corpus: c}, Stages: []dmv.Reweighting{{}}}).Run(start); err == nil {
		t.Error("β = 0 must be an error")
	}
}
