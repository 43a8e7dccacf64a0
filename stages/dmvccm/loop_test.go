package dmvccm

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/rundir"
)

// The sentences' log-probabilities (select-model's) add up to the E-step's
// log-likelihood on a corpus the model did not train on (with tags it
// never saw), for both orders.
func TestLogProbsSumToEStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	train, dev := randomSentences(rng, 30, 7, 4), randomSentences(rng, 20, 8, 6)
	for _, rightFirst := range []bool{false, true} {
		m, _, err := Train(train, Options{MaxIter: 3, RightFirst: rightFirst})
		if err != nil {
			t.Fatal(err)
		}
		c, err := m.NewCorpus(dev)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Unseen) == 0 || c.UnseenTokens() == 0 {
			t.Fatalf("the dev corpus should have unseen tags")
		}
		sum := 0.0
		for k := range c.Len() {
			sum += c.LogProb(m, k)
		}
		_, cc := c.EStep(m, 2)
		if math.IsInf(cc.LogLik, 0) || math.Abs(sum-cc.LogLik) > 1e-9*math.Abs(cc.LogLik) {
			t.Errorf("right-first %v: Σ LogProb %v, the E-step's log-likelihood %v", rightFirst, sum, cc.LogLik)
		}
	}
}

// Train on emloop keeps the product's EM: the log-likelihoods Observe
// sees are those of the E-steps of the models Observe is given, the change
// is signed against the previous one, and a run continued from a
// checkpoint sent through JSON (a run directory's) ends with the same
// model and iterations.
func TestTrainObserveAndResume(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	sents := randomSentences(rng, 25, 6, 4)
	var its []format.Iteration
	var states []rundir.State[Snapshot]
	opts := Options{MaxIter: 6, Tol: 1e-300, Observe: func(it format.Iteration, m *Model) error {
		_, cc := NewEStepper(m.dmvData, m.ccmData).EStep(m.DMV, m.CCM, 1)
		if float64(it.Objective) != cc.LogLik {
			t.Errorf("iteration %d: objective %v, the E-step of its model %v", it.Iter, it.Objective, cc.LogLik)
		}
		its = append(its, it)
		return nil
	}, Checkpoint: func(st rundir.State[*Model]) error {
		b, err := json.Marshal(st.Model.Snapshot())
		if err != nil {
			return err
		}
		var s Snapshot
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		states = append(states, rundir.State[Snapshot]{Stage: st.Stage, StageIters: st.StageIters, Before: st.Before, Prev: st.Prev, Model: s})
		return nil
	}}
	want, iters, err := Train(sents, opts)
	if err != nil {
		t.Fatal(err)
	}
	if iters != 6 || len(its) != 6 || len(states) != 5 {
		t.Fatalf("%d iterations, %d observed, %d checkpoints; want 6, 6, 5", iters, len(its), len(states))
	}
	for i, it := range its {
		if (i == 0) != (it.Change == nil) {
			t.Fatalf("iteration %d: change %v", i+1, it.Change)
		}
		if i > 0 {
			prev := float64(its[i-1].Objective)
			if got := float64(*it.Change); got != (float64(it.Objective)-prev)/math.Abs(prev) {
				t.Errorf("iteration %d: change %v, not signed (L − L′)/|L′|", i+1, got)
			}
		}
	}
	wantSnap, _ := json.Marshal(want.Snapshot())
	for _, st := range []rundir.State[Snapshot]{states[0], states[3]} {
		var resumed []format.Iteration
		o := opts
		o.Checkpoint = nil
		o.Observe = func(it format.Iteration, _ *Model) error { resumed = append(resumed, it); return nil }
		start, loop, err := NewLoop(sents, o)
		if err != nil {
			t.Fatal(err)
		}
		from, err := start.FromSnapshot(st.Model)
		if err != nil {
			t.Fatal(err)
		}
		loop.Resume = &rundir.State[*Model]{Stage: st.Stage, StageIters: st.StageIters, Before: st.Before, Prev: st.Prev, Model: from}
		res, err := loop.Run(start)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(res.Model.Snapshot())
		if string(got) != string(wantSnap) || res.Iterations != 6 {
			t.Errorf("resumed after %d iterations: another model (or %d iterations)", st.StageIters, res.Iterations)
		}
		for i, it := range resumed {
			w := its[st.StageIters+i]
			if it.Iter != w.Iter || it.Objective != w.Objective || *it.Change != *w.Change {
				t.Errorf("resumed after %d: iteration %+v, want %+v", st.StageIters, it, w)
			}
		}
	}
	// A checkpoint of the other order is refused.
	rf, err := Start(sents, Options{RightFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rf.FromSnapshot(states[0].Model); err == nil {
		t.Error("a dmvccm checkpoint resumed a dmvccm-right-first run")
	}
}

// DA whose schedule is β = 1 alone is EM, to the bit; SDA at β < 1 starts
// from the start pair's own E-step (p^β·p^(1−β) = p, up to rounding).
func TestAnnealingEndsAsEM(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sents := randomSentences(rng, 20, 6, 4)
	em, _, err := Train(sents, Options{MaxIter: 4, Tol: 1e-300})
	if err != nil {
		t.Fatal(err)
	}
	da, _, err := Train(sents, Options{MaxIter: 4, Tol: 1e-300, Estimator: ccm.DA, Beta0: 1, Gamma: 2})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(em.Snapshot())
	b, _ := json.Marshal(da.Snapshot())
	if string(a) != string(b) {
		t.Error("DA at β = 1 differs from EM")
	}
	var first []float64
	if _, _, err := Train(sents, Options{MaxIter: 1, Estimator: ccm.SDA, Beta0: 0.3, Gamma: 2, Observe: func(it format.Iteration, _ *Model) error {
		first = append(first, float64(it.Objective))
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	// The first SDA stage's E-step, at the start, is the start's E-step
	// scaled by 1/β: the log-likelihood again.
	var emFirst float64
	if _, _, err := Train(sents, Options{MaxIter: 1, Observe: func(it format.Iteration, _ *Model) error {
		emFirst = float64(it.Objective)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if len(first) != 3 || math.Abs(first[0]*0.3-emFirst) > 1e-9*math.Abs(emFirst) {
		t.Errorf("SDA's first objective %v (of %d stages), want the start's log-likelihood %v divided by 0.3", first, len(first), emFirst)
	}
}
