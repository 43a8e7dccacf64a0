package train

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/dmv"
)

// EM's guarantee: the log-likelihood never decreases, from any start.
func TestEMNeverLowersTheLikelihood(t *testing.T) {
	c := corpora.Sampled(t, 400, 5, 1, 12, 1, 3)
	for _, init := range dmv.Initializers {
		start, err := dmv.InitialModel(c, init, dmv.InitOptions{Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		var objectives []float64
		em := &EM{Corpus: c, MaxIter: 40, Tol: 1e-12, Observe: func(it format.Iteration, _ *dmv.Params) error {
			objectives = append(objectives, float64(it.Objective))
			return nil
		}}
		if _, err := em.Run(start); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(objectives); i++ {
			if objectives[i] < objectives[i-1]-1e-9*math.Abs(objectives[i-1]) {
				t.Fatalf("%s: log-likelihood fell from %v to %v at iteration %d", init, objectives[i-1], objectives[i], i+1)
			}
		}
		if len(objectives) < 5 {
			t.Fatalf("%s: only %d iterations", init, len(objectives))
		}
	}
}

// Viterbi EM never lowers the probability of the best parses either.
func TestViterbiEMNeverLowersItsObjective(t *testing.T) {
	c := corpora.Sampled(t, 300, 4, 1, 12, 1, 5)
	start, _ := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	prev := math.Inf(-1)
	em := &EM{Corpus: c, EStep: dmv.EStepOptions{Hard: true}, MaxIter: 30, Observe: func(it format.Iteration, _ *dmv.Params) error {
		if float64(it.Objective) < prev-1e-9*math.Abs(prev) {
			return fmt.Errorf("objective fell from %v to %v", prev, float64(it.Objective))
		}
		prev = float64(it.Objective)
		return nil
	}}
	res, err := em.Run(start)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged {
		t.Errorf("Viterbi EM did not converge in 30 iterations")
	}
}

// The number of workers changes nothing, to the last bit.
func TestWorkersGiveIdenticalModels(t *testing.T) {
	c := corpora.Sampled(t, 1000, 6, 1, 12, 1, 7)
	corpora.SameForWorkers(t, c.Tags, func(workers int) (*dmv.Params, error) {
		start, _ := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{Workers: workers})
		em := &EM{Corpus: c, EStep: dmv.EStepOptions{Workers: workers}, MaxIter: 5}
		res, err := em.Run(start)
		if err != nil {
			return nil, err
		}
		return res.Model, nil
	})
}

// A model under which every sentence has probability 0 stops Viterbi EM
// at its second iteration with an error that says so; plain EM calls two
// equal objectives (−∞) converged and returns.
func TestEMStopsOnProbabilityZero(t *testing.T) {
	c := corpora.Sampled(t, 30, 4, 1, 8, 1, 5)
	zero := func(*dmv.Params) *dmv.Params { return dmv.NewParams(c.Tags.Len()) }
	start, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var iters int
	em := &EM{Corpus: c, EStep: dmv.EStepOptions{Hard: true}, MaxIter: 10, Weights: zero,
		Observe: func(format.Iteration, *dmv.Params) error { iters++; return nil }}
	if _, err := em.Run(start); err == nil || !strings.Contains(err.Error(), "iteration 2: 30 sentences have probability 0") {
		t.Errorf("Viterbi EM: %v", err)
	}
	if iters != 2 {
		t.Errorf("Viterbi EM observed %d iterations before the error, want 2 (the failing one logged)", iters)
	}
	em = &EM{Corpus: c, MaxIter: 10, Weights: zero}
	if res, err := em.Run(start); err != nil || !res.Converged || res.Iterations != 2 {
		t.Errorf("EM: %+v, %v", res, err)
	}
}
