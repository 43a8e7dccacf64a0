package train

import (
	"bytes"
	"math"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/dmv"
)

// VB's guarantee: the variational bound never decreases, for any
// Dirichlet hyperparameter (sparse ones below 1 included) and from any
// start — an initializer's counts through the VB M-step, a normalised
// model, or zero's all-ones weights.
func TestVBNeverLowersTheBound(t *testing.T) {
	c := corpora.Sampled(t, 300, 5, 1, 10, 1, 11)
	for _, alpha := range []float64{0.001, 0.01, 0.1, 0.5, 1, 3} {
		starts := map[string]*dmv.Params{}
		for _, init := range []string{dmv.InitKM, dmv.InitLocal, dmv.InitRandom} {
			st, err := dmv.InitialStart(c, init, dmv.InitOptions{VBAlpha: alpha, Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			starts[init] = st.Params
		}
		starts["km-normalised"], _ = dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
		zero, _ := dmv.Initialize(c, dmv.InitZero, dmv.InitOptions{})
		starts["zero-weights"] = zero.Params
		for name, start := range starts {
			var bounds []float64
			em := &EM{Corpus: c, VBAlpha: alpha, MaxIter: 30, Tol: 1e-14, Observe: func(it format.Iteration, _ *dmv.Params) error {
				bounds = append(bounds, float64(it.Objective))
				return nil
			}}
			if _, err := em.Run(start); err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(bounds); i++ {
				if bounds[i] < bounds[i-1]-1e-10*math.Abs(bounds[i-1]) {
					t.Fatalf("α=%v from %s: the bound fell from %.12g to %.12g at iteration %d", alpha, name, bounds[i-1], bounds[i], i+1)
				}
			}
			if len(bounds) < 5 || math.IsInf(bounds[len(bounds)-1], 0) {
				t.Fatalf("α=%v from %s: %d iterations, last bound %v", alpha, name, len(bounds), bounds[len(bounds)-1])
			}
		}
	}
}

// VB's models do not depend on the number of workers either.
func TestVBWorkersGiveIdenticalModels(t *testing.T) {
	c := corpora.Sampled(t, 1000, 6, 1, 12, 1, 7)
	var first []byte
	for _, workers := range []int{1, 2, 3} {
		st, err := dmv.InitialStart(c, dmv.InitKM, dmv.InitOptions{VBAlpha: 0.1, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		em := &EM{Corpus: c, EStep: dmv.EStepOptions{Workers: workers}, VBAlpha: 0.1, MaxIter: 5}
		res, err := em.Run(st.Params)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		bound := res.Objective
		if err := dmv.WriteVB(&b, c.Tags, res.Model, dmv.VB{Alpha: 0.1, Bound: &bound}); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b.Bytes()
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Fatalf("%d workers give another model than 1", workers)
		}
	}
}
