package hmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/vec8"
)

// sampledCorpus draws sentences from a random bitag HMM with sparse
// emissions, keeping the states as gold tags.
func sampledCorpus(t testing.TB, sents, k, v int, seed uint64) *Corpus {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	trans := make([][]float64, k+1)
	for p := range trans {
		trans[p] = make([]float64, k+1)
		for q := range trans[p] {
			trans[p][q] = math.Pow(rng.Float64(), 3)
		}
		trans[p][k] *= 0.3
	}
	draw := func(w []float64) int {
		tot := 0.0
		for _, x := range w {
			tot += x
		}
		u := rng.Float64() * tot
		for i, x := range w {
			if u -= x; u < 0 {
				return i
			}
		}
		return len(w) - 1
	}
	var recs []*format.Sentence
	for len(recs) < sents {
		var words, tags []string
		p := k
		for len(words) < 40 {
			startRow := append([]float64(nil), trans[p]...)
			if p == k {
				startRow[k] = 0
			}
			q := draw(startRow)
			if q == k {
				break
			}
			// State q emits one of "its" words (q, q+k, q+2k, …) or, rarely, any.
			w := q + k*rng.IntN(v/k)
			if rng.Float64() < 0.05 {
				w = rng.IntN(v)
			}
			words = append(words, fmt.Sprintf("w%d", w))
			tags = append(tags, fmt.Sprintf("T%d", q))
			p = q
		}
		if len(words) > 0 {
			recs = append(recs, &format.Sentence{Words: words, Tags: tags})
		}
	}
	c, err := NewCorpus(recs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEMNeverLowersLikelihood for bitag and trigram models, with and
// without a dictionary.
func TestEMNeverLowersLikelihood(t *testing.T) {
	c := sampledCorpus(t, 150, 3, 15, 1)
	for _, order := range []int{1, 2} {
		for _, dict := range []bool{false, true} {
			o := Options{Order: order, States: 4, Estimator: EM, Iterations: 30, Seed: 5, Noise: 0.1, Workers: 2}
			if dict {
				d, err := BuildDict(c, 2)
				if err != nil {
					t.Fatal(err)
				}
				o.Dict = d
			}
			var objs []float64
			o.Progress = func(it format.Iteration) { objs = append(objs, float64(it.Objective)) }
			if _, err := Train(c, o); err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(objs); i++ {
				if objs[i] < objs[i-1]-1e-9*math.Abs(objs[i-1]) {
					t.Fatalf("order %d dict %v: log-likelihood fell at iteration %d: %v → %v", order, dict, i+1, objs[i-1], objs[i])
				}
			}
			if !(objs[len(objs)-1] > objs[0]+1) {
				t.Fatalf("order %d dict %v: EM did not learn: %v → %v", order, dict, objs[0], objs[len(objs)-1])
			}
		}
	}
}

// TestVBNeverLowersBound: the variational bound Σ log Z̃ − KL rises.
func TestVBNeverLowersBound(t *testing.T) {
	c := sampledCorpus(t, 150, 3, 15, 2)
	for _, order := range []int{1, 2} {
		for _, alpha := range []float64{0.1, 1} {
			var objs []float64
			o := Options{Order: order, States: 4, Estimator: VB, Iterations: 30, Seed: 3, Noise: 0.1,
				AlphaT: alpha, AlphaE: alpha / 2, Workers: 2,
				Progress: func(it format.Iteration) { objs = append(objs, float64(it.Objective)) }}
			if _, err := Train(c, o); err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(objs); i++ {
				if objs[i] < objs[i-1]-1e-9*math.Abs(objs[i-1]) {
					t.Fatalf("order %d α %v: the bound fell at iteration %d: %v → %v", order, alpha, i+1, objs[i-1], objs[i])
				}
			}
		}
	}
}

// TestVBBoundBelowEvidence: on a one-sentence corpus small enough to
// enumerate, the bound is below log p(x) = log Σ_y P(x, y) with θ
// integrated out — the quantity it bounds.
func TestVBBoundBelowEvidence(t *testing.T) {
	c := tinyCorpus(t, []string{"a", "b", "a"})
	s, _ := NewSpace(1, 2, 2, nil)
	const alphaT, alphaE = 0.5, 0.5
	ev := 0.0
	for code := 0; code < 8; code++ {
		tags := [][]int32{{int32(code & 1), int32(code >> 1 & 1), int32(code >> 2 & 1)}}
		ev += math.Exp(CollapsedLogJoint(s, CountsOf(c, s, tags), alphaT, alphaE))
	}
	var last float64
	o := Options{Order: 1, States: 2, Estimator: VB, Iterations: 50, Seed: 1, Noise: 0.5, AlphaT: alphaT, AlphaE: alphaE,
		Progress: func(it format.Iteration) { last = float64(it.Objective) }}
	if _, err := Train(c, o); err != nil {
		t.Fatal(err)
	}
	if last > math.Log(ev)+1e-9 {
		t.Fatalf("bound %v above the log evidence %v", last, math.Log(ev))
	}
	if last < math.Log(ev)-2 {
		t.Fatalf("bound %v far below the log evidence %v", last, math.Log(ev))
	}
}

// TestEStepSameForWorkers: counts and likelihood are bit for bit the
// same whatever the number of workers, on fb.go's path and on the vector
// kernel.
func TestEStepSameForWorkers(t *testing.T) {
	c := sampledCorpus(t, 300, 3, 15, 4)
	for _, kern := range []string{"", vec8.Kernel} {
		withKernel(t, kern, func() {
			for _, order := range []int{1, 2} {
				s, _ := NewSpace(order, 5, len(c.Words), nil)
				p := s.NoisyUniform(0.3, 9)
				want := NewEStepper(c, s, 1).Run(p)
				for _, w := range []int{2, 3, 8} {
					got := NewEStepper(c, s, w).Run(p)
					if got.LogLik != want.LogLik {
						t.Fatalf("kernel %q, order %d, %d workers: log-likelihood %v, 1 worker %v", kern, order, w, got.LogLik, want.LogLik)
					}
					if !slices.Equal(got.Counts.Emit, want.Counts.Emit) || !slices.Equal(got.Counts.Trans, want.Counts.Trans) {
						t.Fatalf("kernel %q, order %d, %d workers: the counts differ from 1 worker's", kern, order, w)
					}
				}
			}
		})
	}
}

// TestEstimatorsRun trains every estimator briefly and checks the
// tagging's shape and that DA/SDA end at β = 1.
func TestEstimatorsRun(t *testing.T) {
	c := sampledCorpus(t, 100, 3, 15, 6)
	for _, est := range Estimators {
		var betas []float64
		o := Options{Order: 1, States: 3, Estimator: est, Iterations: 5, Seed: 2, Noise: 0.1, Lambda: 0.1,
			AlphaT: 0.1, AlphaE: 0.1, Beta0: 0.1, BetaGrowth: 3, Temp0: 2, Samples: 2,
			Progress: func(it format.Iteration) {
				if it.Beta != nil {
					betas = append(betas, *it.Beta)
				}
			}}
		r, err := Train(c, o)
		if err != nil {
			t.Fatalf("%s: %v", est, err)
		}
		if len(r.Tags) != len(c.Sents) {
			t.Fatalf("%s: %d taggings for %d sentences", est, len(r.Tags), len(c.Sents))
		}
		if (est == DA || est == SDA) && betas[len(betas)-1] != 1 {
			t.Fatalf("%s: last β %v", est, betas[len(betas)-1])
		}
		if est == Gibbs && betas[len(betas)-1] != 1 {
			t.Fatalf("gibbs: last temperature %v", betas[len(betas)-1])
		}
	}
}

// TestTrainSameForWorkers: a whole run gives the same objective and
// tagging whatever the number of workers.
func TestTrainSameForWorkers(t *testing.T) {
	c := sampledCorpus(t, 200, 3, 15, 8)
	for _, est := range []Estimator{EM, VB, SDA} {
		var want *Result
		for _, w := range []int{1, 3} {
			r, err := Train(c, Options{Order: 2, States: 4, Estimator: est, Iterations: 8, Seed: 4, Noise: 1,
				AlphaT: 0.1, AlphaE: 0.1, Beta0: 0.5, BetaGrowth: 2, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = r
				continue
			}
			if r.Objective != want.Objective {
				t.Fatalf("%s: objective %v with %d workers, %v with 1", est, r.Objective, w, want.Objective)
			}
			for i := range r.Tags {
				for j := range r.Tags[i] {
					if r.Tags[i][j] != want.Tags[i][j] {
						t.Fatalf("%s: sentence %d token %d tagged %d with %d workers, %d with 1", est, i, j, r.Tags[i][j], w, want.Tags[i][j])
					}
				}
			}
		}
	}
}
