package train

import (
	"math"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/dmv"
)

// EM with valence settings is EM on a bigger model: its log-likelihood
// never decreases either, from every start and for every setting (with
// the child back-off at 0: a fixed interpolation after the M-step is not
// an M-step, and promises nothing).
func TestValenceEMNeverLowersTheLikelihood(t *testing.T) {
	c := corpora.Sampled(t, 200, 5, 3, 10, 0.4, 3)
	for _, v := range []dmv.Valence{{Stop: 1, Child: 1}, {Stop: 3, Child: 1}, {Stop: 2, Child: 2}, {Stop: 3, Child: 2}, {Stop: 1, Child: 3}, {Stop: 3, Child: 3}} {
		for _, init := range []string{dmv.InitKM, dmv.InitZero, dmv.InitRandom} {
			start, err := dmv.Initialize(c, init, dmv.InitOptions{Seed: 4, Valence: v})
			if err != nil {
				t.Fatal(err)
			}
			if start.Params.V != v {
				t.Fatalf("%v %s: a start with %v", v, init, start.Params.V)
			}
			var objectives []float64
			em := &EM{Corpus: c, MaxIter: 25, Tol: 1e-12, Observe: func(it format.Iteration, m *dmv.Params) error {
				objectives = append(objectives, float64(it.Objective))
				return nil
			}}
			res, err := em.Run(start.Params)
			if err != nil {
				t.Fatal(err)
			}
			if res.Model.V != v {
				t.Fatalf("%v: trained a model with %v", v, res.Model.V)
			}
			if len(objectives) < 10 {
				t.Fatalf("%v %s: only %d iterations", v, init, len(objectives))
			}
			for i := 2; i < len(objectives); i++ { // zero's first objective is of weights, not a model
				if objectives[i] < objectives[i-1]-1e-9*math.Abs(objectives[i-1]) {
					t.Fatalf("%v %s: log-likelihood fell from %v to %v at iteration %d", v, init, objectives[i-1], objectives[i], i+1)
				}
			}
		}
	}
}

// More valences can only fit the training data as well or better: from
// the plain DMV's trained model copied into EVG tables (each child
// distribution and decision to every valence it splits into), EM's first
// E-step gives the same likelihood and the rest never lower it.
func TestValenceNestsTheDMV(t *testing.T) {
	c := corpora.Sampled(t, 300, 5, 3, 10, 0.4, 9)
	start, _ := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	res, err := (&EM{Corpus: c, MaxIter: 10}).Run(start)
	if err != nil {
		t.Fatal(err)
	}
	dmvModel := res.Model
	v := dmv.Valence{Stop: 3, Child: 2}
	lifted := dmv.NewValenceParams(dmvModel.T, v)
	copy(lifted.Root, dmvModel.Root)
	for h := 0; h < dmvModel.T; h++ {
		for dir := dmv.Left; dir <= dmv.Right; dir++ {
			for cv := 0; cv < v.Child; cv++ {
				for a := 0; a < dmvModel.T; a++ {
					lifted.Child[lifted.ChildAt(h, dir, cv, a)] = dmvModel.Child[dmvModel.ChildIndex(h, dir, a)]
				}
			}
			for dv := 0; dv < v.Stop; dv++ {
				from := dmv.DecisionIndex(h, dir, min(dv, dmv.NonAdj))
				lifted.Stop[lifted.DecisionAt(h, dir, dv)] = dmvModel.Stop[from]
				lifted.Cont[lifted.DecisionAt(h, dir, dv)] = dmvModel.Cont[from]
			}
		}
	}
	e := dmv.NewEStepper(c)
	want := e.Run(dmvModel, dmv.EStepOptions{}).LogLik
	got := e.Run(lifted, dmv.EStepOptions{}).LogLik
	if math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Fatalf("the DMV in EVG tables: log-likelihood %v, the DMV's %v", got, want)
	}
	evg, err := (&EM{Corpus: c, MaxIter: 10}).Run(lifted)
	if err != nil {
		t.Fatal(err)
	}
	if evg.Objective < got-1e-9*math.Abs(got) {
		t.Fatalf("EVG from the DMV's model fell to %v from %v", evg.Objective, got)
	}
}

// Any number of workers gives the same EVG model to the last bit.
func TestValenceWorkersGiveIdenticalModels(t *testing.T) {
	c := corpora.Sampled(t, 600, 6, 3, 12, 0.4, 7)
	corpora.SameForWorkers(t, c.Tags, func(workers int) (*dmv.Params, error) {
		opts := dmv.InitOptions{Workers: workers, Valence: dmv.Valence{Stop: 3, Child: 2}, ChildBackoff: 0.2}
		start, _ := dmv.InitialModel(c, dmv.InitKM, opts)
		em := &EM{Corpus: c, EStep: dmv.EStepOptions{Workers: workers}, MaxIter: 4, Backoff: 0.2}
		res, err := em.Run(start)
		if err != nil {
			return nil, err
		}
		return res.Model, nil
	})
}
