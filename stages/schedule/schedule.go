// Package schedule makes the annealing schedules every family's trainer
// shares: deterministic annealing's β (Smith & Eisner 2004) and
// structural annealing's linear sweeps (Smith 2006). It only makes lists
// of numbers; the loops that run a stage per value are the trainers'.
package schedule

import (
	"fmt"
	"math"
)

// DA is the β of every DA stage: β₀, then β ← min(1, γβ) until
// the last stage, which runs at β = 1 exactly.
func DA(beta0, gamma float64) ([]float64, error) {
	switch {
	case !(beta0 > 0 && beta0 <= 1):
		return nil, fmt.Errorf("β₀ must be in (0, 1], not %v", beta0)
	case !(gamma > 1) || math.IsInf(gamma, 1):
		return nil, fmt.Errorf("γ must be a number > 1, not %v", gamma)
	}
	var betas []float64
	for beta := beta0; ; beta = math.Min(1, gamma*beta) {
		betas = append(betas, beta)
		if beta == 1 {
			return betas, nil
		}
		if len(betas) > maxStages {
			return nil, fmt.Errorf("β₀ = %v and γ = %v make more than %d stages", beta0, gamma, maxStages)
		}
	}
}

// maxStages bounds a schedule, against typing mistakes such as a step of
// 1e-9.
const maxStages = 10000

// Linear is the value of every structural-annealing epoch: start,
// start + step, ... up to final, which is always the last epoch (even
// when final − start is not a multiple of step). Values are rounded to
// 1e-9 so that −0.6 + 6·0.1 is 0, not 1.1e-16.
func Linear(start, step, final float64) ([]float64, error) {
	for _, v := range []float64{start, step, final} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("schedule values must be finite numbers, not %v", v)
		}
	}
	if start == final {
		return []float64{start}, nil
	}
	if step == 0 || (final-start)/step < 0 {
		return nil, fmt.Errorf("a step of %v never goes from %v to %v", step, start, final)
	}
	steps := math.Floor((final-start)/step + 1e-9)
	if steps > maxStages {
		return nil, fmt.Errorf("a step of %v from %v to %v makes more than %d epochs", step, start, final, maxStages)
	}
	var values []float64
	for k := 0; k <= int(steps); k++ {
		values = append(values, round9(start+float64(k)*step))
	}
	if last := len(values) - 1; math.Abs(values[last]-final) > 1e-9 {
		values = append(values, final)
	} else {
		values[last] = final
	}
	return values, nil
}

func round9(v float64) float64 {
	v = math.Round(v*1e9) / 1e9
	if v == 0 {
		return 0 // not −0, which would print as "-0.000"
	}
	return v
}
