package lbfgs

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ce"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// L-BFGS never accepts a worse point: the logged objective does not
// decrease, at one δ and along a schedule.
func TestTrainingRaisesTheObjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := corpora.Random(t, rng, 80, 7, 4)
	p, err := ce.NewProblem(c, nbhd.Del1OrTrans1, 2)
	if err != nil {
		t.Fatal(err)
	}
	start, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []Trainer{
		{Problem: p, Settings: Settings{MaxIter: 30}},
		{Problem: p, Settings: Settings{MaxIter: 10, Sigma2: 1, Delta: -0.2, DeltaFinal: 0, DeltaStep: 0.1}},
	} {
		var log []format.Iteration
		tr.Observe = func(it format.Iteration, w *dmv.Params) error {
			log = append(log, it)
			return nil
		}
		res, err := tr.Run(ce.LogWeights(start))
		if err != nil {
			t.Fatal(err)
		}
		stage, prev := 0, math.Inf(-1)
		for _, it := range log {
			if it.Stage != stage {
				stage, prev = it.Stage, math.Inf(-1) // a new δ, a new objective
			}
			if float64(it.Objective) < prev-1e-9*math.Abs(prev) {
				t.Fatalf("iteration %d: objective fell from %v to %v", it.Iter, prev, it.Objective)
			}
			prev = float64(it.Objective)
		}
		if len(log) < 3 || float64(log[len(log)-1].Objective) <= float64(log[0].Objective) && tr.DeltaStep == 0 {
			t.Fatalf("no progress: %d iterations, %v → %v", len(log), log[0].Objective, log[len(log)-1].Objective)
		}
		if tr.DeltaStep != 0 && (log[len(log)-1].Delta == nil || *log[len(log)-1].Delta != 0 || log[0].Stage != 1) {
			t.Fatalf("schedule: first stage %d, last δ %v", log[0].Stage, log[len(log)-1].Delta)
		}
		if res.Objective != float64(log[len(log)-1].Objective) && res.Objective < float64(log[len(log)-1].Objective) {
			t.Fatalf("result objective %v, last logged %v", res.Objective, log[len(log)-1].Objective)
		}
	}
}

func TestDeltaSchedule(t *testing.T) {
	tr := Settings{Delta: -0.2, DeltaFinal: 0, DeltaStep: 0.05}
	ds, err := tr.Deltas()
	if err != nil || len(ds) != 5 || ds[0] != -0.2 || ds[4] != 0 {
		t.Fatalf("%v %v", ds, err)
	}
	tr.DeltaStep = -0.1
	if _, err := tr.Deltas(); err == nil {
		t.Fatal("a step away from the final δ is accepted")
	}
	tr = Settings{Delta: -0.4}
	if ds, _ := tr.Deltas(); len(ds) != 1 || ds[0] != -0.4 {
		t.Fatalf("fixed δ: %v", ds)
	}
}

// The weights train-ce writes do not depend on the number of workers,
// bit for bit, along a δ schedule too.
func TestWorkersGiveIdenticalWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	c := corpora.Random(t, rng, 120, 8, 4)
	start, err := dmv.InitialModel(c, dmv.InitLocal, dmv.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got [2][]float64
	for k, workers := range []int{1, 3} {
		p, err := ce.NewProblem(c, nbhd.Del1OrTrans1, workers)
		if err != nil {
			t.Fatal(err)
		}
		tr := Trainer{Problem: p, Settings: Settings{MaxIter: 15, Sigma2: 2, Delta: -0.2, DeltaFinal: 0, DeltaStep: 0.2}, Workers: workers}
		res, err := tr.Run(ce.LogWeights(start))
		if err != nil {
			t.Fatal(err)
		}
		got[k] = ce.Vector(res.Weights, nil)
	}
	for i := range got[0] {
		if got[0][i] != got[1][i] {
			t.Fatalf("weight %d: %v with 1 worker, %v with 3", i, got[0][i], got[1][i])
		}
	}
}

// δ schedules are capped as train-sa's: a step of 1e-9 is refused, not
// run for a billion stages.
func TestDeltaScheduleCapped(t *testing.T) {
	tr := Settings{Delta: -1, DeltaFinal: 0, DeltaStep: 1e-9}
	if ds, err := tr.Deltas(); err == nil {
		t.Fatalf("a schedule of %d stages is accepted", len(ds))
	}
}
