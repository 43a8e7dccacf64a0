package hmm

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/rundir"
)

func tinyCorpus(t *testing.T, sents ...[]string) *Corpus {
	t.Helper()
	var recs []*format.Sentence
	for _, s := range sents {
		recs = append(recs, &format.Sentence{Words: s, Tags: s})
	}
	c, err := NewCorpus(recs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGibbsMatchesExactPosterior runs the sampler on a 5-token corpus
// with 2 states and compares the frequencies of the joint states (32, or 4 when a dictionary
// fixes one word's state) with
// the exact collapsed posterior by a χ² goodness-of-fit test (fixed
// seed; samples thinned to every 10th sweep).
func TestGibbsMatchesExactPosterior(t *testing.T) {
	for _, dict := range []bool{false, true} {
		c := tinyCorpus(t, []string{"a", "b"}, []string{"b", "a", "b"})
		var allowed []bool
		if dict {
			allowed = []bool{true, true, false, true} // "b" is always state 1
		}
		s, _ := NewSpace(1, 2, len(c.Words), allowed)
		const alphaT, alphaE = 0.5, 0.3
		// Exact posterior by enumeration of the 2^5 taggings.
		exact := make([]float64, 32)
		tags := [][]int32{make([]int32, 2), make([]int32, 3)}
		set := func(code int) {
			for j := 0; j < 5; j++ {
				v := int32(code >> j & 1)
				if j < 2 {
					tags[0][j] = v
				} else {
					tags[1][j-2] = v
				}
			}
		}
		z := 0.0
		for code := range exact {
			set(code)
			if !s.allowed(1, int(tags[0][1])) || !s.allowed(1, int(tags[1][0])) || !s.allowed(1, int(tags[1][2])) {
				continue // the dictionary forbids this tagging of "b"
			}
			exact[code] = math.Exp(CollapsedLogJoint(s, CountsOf(c, s, tags), alphaT, alphaE))
			z += exact[code]
		}
		for i := range exact {
			exact[i] /= z
		}
		g, err := NewSampler(c, s, alphaT, alphaE, 7)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			g.Sweep(1)
		}
		const samples = 20000
		freq := make([]float64, 32)
		for i := 0; i < samples*10; i++ {
			g.Sweep(1)
			if i%10 == 0 {
				code := 0
				for j, v := range append(append([]int32(nil), g.Tags[0]...), g.Tags[1]...) {
					code |= int(v) << j
				}
				freq[code]++
			}
		}
		chi2, cells := 0.0, 0
		for i, f := range freq {
			e := exact[i] * samples
			if e == 0 {
				if f != 0 {
					t.Fatalf("dict %v: the sampler visited tagging %05b, which has probability 0", dict, i)
				}
				continue
			}
			cells++
			chi2 += (f - e) * (f - e) / e
		}
		pValue := distuv.ChiSquared{K: float64(cells - 1)}.Survival(chi2)
		if pValue < 0.001 {
			t.Errorf("dict %v: χ² = %.1f over %d degrees of freedom (p = %.2g): the sampler's frequencies do not match the posterior", dict, chi2, cells-1, pValue)
		}
		t.Logf("dict %v: χ² = %.1f over %d degrees of freedom, p = %.2g", dict, chi2, cells-1, pValue)
	}
}

// A Gibbs run resumed from any of its checkpoints (through JSON, as a
// run directory stores them; some within the sweeps kept for decoding)
// ends with the tags and objective of the uninterrupted run, and logs the
// same objectives for the sweeps it runs.
func TestGibbsResumeFromEveryCheckpoint(t *testing.T) {
	c := sampledCorpus(t, 40, 3, 12, 5)
	var states []rundir.State[Snapshot]
	var whole []float64
	o := Options{Order: 1, States: 3, Estimator: Gibbs, Iterations: 12, Seed: 9, AlphaT: 0.3, AlphaE: 0.2, Temp0: 2, Samples: 4,
		Progress: func(it format.Iteration) { whole = append(whole, float64(it.Objective)) },
		Checkpoint: func(st rundir.State[Snapshot]) error {
			b, err := json.Marshal(st.Model)
			if err != nil {
				return err
			}
			st.Model = Snapshot{}
			if err := json.Unmarshal(b, &st.Model); err != nil {
				return err
			}
			states = append(states, st)
			return nil
		}}
	want, err := Train(c, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != o.Iterations-1 {
		t.Fatalf("%d checkpoints for %d sweeps", len(states), o.Iterations)
	}
	o.Checkpoint = nil
	for _, st := range states {
		var objs []float64
		o.Progress = func(it format.Iteration) { objs = append(objs, float64(it.Objective)) }
		o.Resume = &st
		got, err := Train(c, o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Tags, want.Tags) || got.Objective != want.Objective {
			t.Errorf("resumed after sweep %d: other tags or objective (%v, want %v)", st.StageIters, got.Objective, want.Objective)
		}
		if !slices.Equal(objs, whole[st.StageIters:]) {
			t.Errorf("resumed after sweep %d: objectives %v, want %v", st.StageIters, objs, whole[st.StageIters:])
		}
	}
}

// A Gibbs run's model is the posterior mean given its kept samples'
// counts, averaged: (n̄ + α) / (Σn̄ + |row|·α), by hand on the counts of
// the samples (which Train does not return, so one sweep at a time is
// rerun with the same seed), with and without a dictionary.
func TestGibbsModelIsPosteriorMean(t *testing.T) {
	c := tinyCorpus(t, []string{"a", "b"}, []string{"b", "a", "c"}, []string{"c"})
	for _, dict := range []bool{false, true} {
		var d *Dict
		if dict {
			d = &Dict{Tags: []string{"x", "y"}, Allowed: []bool{true, true, false, true, true, true}}
		}
		const alphaT, alphaE, sweeps, samples = 0.5, 0.2, 7, 3
		o := Options{Order: 1, States: 2, Estimator: Gibbs, Iterations: sweeps, Samples: samples, Seed: 3, AlphaT: alphaT, AlphaE: alphaE, Dict: d}
		res, err := Train(c, o)
		if err != nil {
			t.Fatal(err)
		}
		var allowed []bool
		if d != nil {
			allowed = d.Allowed
		}
		s, _ := NewSpace(1, 2, len(c.Words), allowed)
		g, _ := NewSampler(c, s, alphaT, alphaE, 3)
		sum := NewParams(s)
		for i := 0; i < sweeps; i++ {
			g.Sweep(1)
			if i >= sweeps-samples {
				sum.Add(CountsOf(c, s, g.Tags))
			}
		}
		k1 := s.K + 1
		for p := 0; p <= s.K; p++ {
			total, m := 0.0, 0
			for q := 0; q <= s.K; q++ {
				if s.transSupported(p, q) {
					total += sum.Trans[p*k1+q] / samples
					m++
				}
			}
			for q := 0; q <= s.K; q++ {
				want := 0.0
				if s.transSupported(p, q) {
					want = (sum.Trans[p*k1+q]/samples + alphaT) / (total + float64(m)*alphaT)
				}
				if got := res.Params.Trans[p*k1+q]; math.Abs(got-want) > 1e-12 {
					t.Errorf("dict %v: trans %d → %d = %v, by hand %v", dict, p, q, got, want)
				}
			}
		}
		for st := 0; st < s.K; st++ {
			total, m := 0.0, 0
			for w := 0; w < s.V; w++ {
				if s.allowed(w, st) {
					total += sum.Emit[w*s.K+st] / samples
					m++
				}
			}
			for w := 0; w < s.V; w++ {
				want := 0.0
				if s.allowed(w, st) {
					want = (sum.Emit[w*s.K+st]/samples + alphaE) / (total + float64(m)*alphaE)
				}
				if got := res.Params.Emit[w*s.K+st]; math.Abs(got-want) > 1e-12 {
					t.Errorf("dict %v: emit %d → %d = %v, by hand %v", dict, st, w, got, want)
				}
			}
			if want := alphaE / (total + float64(m)*alphaE); math.Abs(res.Unseen[st]-want) > 1e-12 {
				t.Errorf("dict %v: unseen %d = %v, by hand %v", dict, st, res.Unseen[st], want)
			}
		}
		m := &Model{P: res.Params, States: res.States, Words: c.Words, Unseen: res.Unseen}
		if err := m.CheckDistribution(); err != nil {
			t.Errorf("dict %v: %v", dict, err)
		}
	}
}
