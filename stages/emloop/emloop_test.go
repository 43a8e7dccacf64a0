package emloop

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/rundir"
)

// toy is a deterministic "family": the model is a number that each
// iteration moves halfway to β·10 (the objective is minus its distance),
// so stages converge at a rate Tol can cut.
func toy(m float64, beta float64) (float64, float64, error) {
	return m + (beta*10-m)/2, -1 - math.Abs(beta*10-m), nil
}

func records(t *testing.T, l Loop[float64], start float64) ([]string, *Result[float64], []rundir.State[float64]) {
	t.Helper()
	var log []string
	var states []rundir.State[float64]
	l.Step = toy
	l.Observe = func(it format.Iteration, _ float64) error {
		it.Seconds = 0
		b, _ := json.Marshal(it)
		log = append(log, string(b))
		return nil
	}
	l.Checkpoint = func(c rundir.State[float64]) error {
		// through JSON, as a run directory stores it
		b, err := json.Marshal(c.Model)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &c.Model); err != nil {
			t.Fatal(err)
		}
		states = append(states, c)
		return nil
	}
	res, err := l.Run(start)
	if err != nil {
		t.Fatal(err)
	}
	return log, res, states
}

// A run resumed from any of its checkpoints ends with the same model,
// iteration count and objective, and logs the rest of the uninterrupted
// run's iterations, in order; stages end at Tol or MaxIter.
func TestResumeFromEveryCheckpoint(t *testing.T) {
	for _, l := range []Loop[float64]{
		{MaxIter: 30, Tol: 1e-3, Tokens: 10},
		{MaxIter: 4, Tol: 0},
		{MaxIter: 50, Tol: 1e-4, Betas: []float64{0.25, 0.5, 1}, Annealed: true},
		{MaxIter: 3, Betas: []float64{0.1, 1}, Annealed: true},
	} {
		whole, want, states := records(t, l, 0)
		stages := max(1, len(l.Betas))
		if len(whole) != want.Iterations || len(states) != want.Iterations-1 {
			t.Fatalf("%+v: %d log lines and %d checkpoints for %d iterations", l, len(whole), len(states), want.Iterations)
		}
		if l.Tol == 0 && want.Iterations != stages*l.MaxIter {
			t.Errorf("%+v: %d iterations without Tol", l, want.Iterations)
		}
		if l.Tol > 0 && (!want.Converged || want.Iterations >= stages*l.MaxIter) {
			t.Errorf("%+v: did not converge (%d iterations)", l, want.Iterations)
		}
		for _, st := range states {
			l.Resume = &st
			rest, got, _ := records(t, l, math.NaN())
			if *got != *want {
				t.Errorf("resumed at %+v: %+v, want %+v", st, *got, *want)
			}
			if !slices.Equal(rest, whole[st.Done():]) {
				t.Errorf("resumed at %+v: log\n%v\nwant\n%v", st, rest, whole[st.Done():])
			}
		}
	}
}

func TestRelativeChange(t *testing.T) {
	inf := math.Inf(-1)
	for _, c := range []struct{ a, b, want float64 }{{-10, -9, 0.1}, {inf, inf, 0}, {-2, -2, 0}, {4, 2, 0.5}} {
		if got := RelativeChange(c.a, c.b); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("RelativeChange(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// Every saves at every n-th iteration number, resumed or not.
func TestEvery(t *testing.T) {
	var saved []int
	l := Loop[float64]{MaxIter: 10, Step: toy}
	l.Observe = Every(3, nil, func(iter int, _ float64) error {
		saved = append(saved, iter)
		return nil
	})
	if _, err := l.Run(0); err != nil {
		t.Fatal(err)
	}
	l.Resume = &rundir.State[float64]{Stage: 1, StageIters: 4, Prev: -2, Model: 1}
	if _, err := l.Run(0); err != nil {
		t.Fatal(err)
	}
	if want := []int{3, 6, 9, 6, 9}; !slices.Equal(saved, want) {
		t.Errorf("saved at %v, want %v", saved, want)
	}
}

// Stages, each with its own step and label, run as Betas does with Step
// (the same records, result and checkpoints, resumed from every
// checkpoint too), and AfterStage hears each stage's model and
// iterations, which add up to the run's.
func TestStagesEqualBetas(t *testing.T) {
	betas := []float64{0.25, 0.5, 1}
	byBetas := Loop[float64]{MaxIter: 50, Tol: 1e-4, Betas: betas, Annealed: true}
	whole, want, wantStates := records(t, byBetas, 0)
	var heard []Result[float64]
	from := 1 // the first stage the run goes through
	byStages := Loop[float64]{MaxIter: 50, Tol: 1e-4}
	for _, b := range betas {
		byStages.Stages = append(byStages.Stages, Stage[float64]{
			Step: func(m, one float64) (float64, float64, error) {
				if one != 1 {
					t.Errorf("a stage's step was given β = %v, not 1", one)
				}
				return toy(m, b)
			},
			Label: func(it *format.Iteration) { it.Beta = &b },
		})
	}
	byStages.AfterStage = func(k int, r *Result[float64]) error {
		if k != from+len(heard) {
			t.Errorf("AfterStage(%d) after %d stages from %d", k, len(heard), from)
		}
		heard = append(heard, *r)
		return nil
	}
	// records replaces Step, which Stages must not use.
	got, res, states := records(t, byStages, 0)
	// (%v: a boundary's Prev is NaN)
	if !slices.Equal(got, whole) || *res != *want || fmt.Sprint(states) != fmt.Sprint(wantStates) {
		t.Fatalf("Stages: %+v\n%v\nwant %+v\n%v", *res, got, *want, whole)
	}
	if len(heard) != len(betas) {
		t.Fatalf("AfterStage heard %d stages of %d", len(heard), len(betas))
	}
	sum := 0
	for k, r := range heard {
		sum += r.Iterations
		if !r.Converged || math.Abs(r.Model-betas[k]*10) > 0.1 {
			t.Errorf("stage %d ended %+v", k+1, r)
		}
	}
	if sum != want.Iterations || heard[len(heard)-1].Model != want.Model || heard[len(heard)-1].Objective != want.Objective {
		t.Errorf("stages %+v do not add up to %+v", heard, *want)
	}
	for _, st := range states {
		heard, from = heard[:0], st.Stage
		byStages.Resume = &st
		rest, got, _ := records(t, byStages, math.NaN())
		if *got != *want || !slices.Equal(rest, whole[st.Done():]) {
			t.Errorf("resumed at %+v: %+v, want %+v", st, *got, *want)
		}
		if len(heard) != len(betas)-(st.Stage-1) {
			t.Errorf("resumed at %+v: AfterStage heard %d stages", st, len(heard))
		}
	}
}

// The two stopping rules on a hand-worked case: 1,000 tokens, an
// objective going from −10,000 to −9,999.999 (a change of 0.001 nats, 1e-7
// relative, 1.4427e-6 bits per token). At tol 1e-6 the relative rule
// stops and the bits rule does not; at 2e-6 both stop; at Spitkovsky's
// 2^−20 (9.54e-7) only the relative rule.
func TestStoppingRules(t *testing.T) {
	rel, bits := Relative.Converged(1e-6, 1000), Bits.Converged(1e-6, 1000)
	if !rel(-10000, -9999.999) || bits(-10000, -9999.999) {
		t.Error("tol 1e-6: the relative rule should stop (1e-7) and the bits rule not (1.44e-6 bits)")
	}
	if !Bits.Converged(2e-6, 1000)(-10000, -9999.999) {
		t.Error("tol 2e-6: the bits rule should stop at 1.44e-6 bits")
	}
	if Bits.Converged(DefaultBitsTol, 1000)(-10000, -9999.999) || DefaultBitsTol != 9.5367431640625e-07 {
		t.Error("2^-20 bits should not stop at 1.44e-6 bits")
	}
	if Bits.Converged(1, 10)(math.Inf(-1), math.Inf(-1)) || !Relative.Converged(1e-9, 10)(math.Inf(-1), math.Inf(-1)) {
		t.Error("−Inf twice: the relative rule stops, the bits rule does not")
	}
	for _, s := range []string{"", "relative", "bits"} {
		if _, err := ParseRule(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	if _, err := ParseRule("nats"); err == nil {
		t.Error("an unknown rule was accepted")
	}
	// In a loop: the toy's objective −1 − |10 − m| halves its distance
	// each iteration (m: 0, 5, 7.5, …), so the change at iteration k ≥ 2
	// is 10/2^(k−1); over 10 tokens in bits that is 1/(2^(k−1)·ln 2), below
	// 2^−10 first at k = 12 (1/(2048·ln 2) = 7.0e-4 < 9.77e-4).
	l := Loop[float64]{Step: toy, MaxIter: 100, Tokens: 10, Converged: Bits.Converged(1.0/1024, 10)}
	res, err := l.Run(0)
	if err != nil || res.Iterations != 12 || !res.Converged {
		t.Errorf("bits rule in the loop: %+v, %v; want 12 iterations, converged", res, err)
	}
}

// With Tokens, the records of β = 1 carry −objective/Tokens in bits; those
// of a tempered stage (β ≠ 1), whose objective is no likelihood, none.
func TestCrossEntropyOnlyAtBetaOne(t *testing.T) {
	var its []format.Iteration
	l := Loop[float64]{MaxIter: 2, Betas: []float64{0.5, 1}, Annealed: true, Tokens: 4, Step: toy,
		Observe: func(it format.Iteration, _ float64) error { its = append(its, it); return nil }}
	if _, err := l.Run(0); err != nil {
		t.Fatal(err)
	}
	for _, it := range its {
		switch {
		case *it.Beta != 1 && it.CrossEntropy != nil:
			t.Errorf("iteration %d at β %v: cross-entropy %v", it.Iter, *it.Beta, *it.CrossEntropy)
		case *it.Beta == 1 && (it.CrossEntropy == nil || float64(*it.CrossEntropy) != -float64(it.Objective)/4/math.Ln2):
			t.Errorf("iteration %d at β = 1: cross-entropy %v of objective %v", it.Iter, it.CrossEntropy, it.Objective)
		}
	}
	if len(its) != 4 {
		t.Errorf("%d iterations", len(its))
	}
}
