package pr

import "math"

// problem is the dual of one KL projection as the optimizer sees it: a
// convex function of the dual variables, minimised over a convex set.
type problem interface {
	// evaluate runs the E-step at x and returns the dual objective
	// f(x) = Σ log Z(x) + b·x and fills grad with its gradient b − E_q[φ].
	evaluate(x, grad []float64) (float64, error)
	// project maps x onto the feasible set, in place.
	project(x []float64)
	// accept keeps the last evaluation as the one the projection ends on
	// (its counts, its posteriors).
	accept()
	// gap is the duality gap at x, f(x) − F(q_x) ≥ 0 for the primal
	// value F of q_x (the distribution the E-step at x ran), from the
	// gradient there: zero exactly at the optimum.
	gap(x, grad []float64) float64
}

// solver minimises a problem by projected gradient descent with an Armijo
// line search along the projection arc (Bertsekas, Nonlinear Programming
// §2.3, as pr-toolkit's projection does): x' = P(x − α∇f), accepted when
// f(x') ≤ f(x) + c₁∇f·(x' − x), α cut back by safeguarded quadratic
// interpolation otherwise. The first trial step is the Barzilai–Borwein
// step of the last two points (kept from one projection to the next, as
// the dual variables are), or first of all FirstStep.
type solver struct {
	MaxSteps  int     // projected-gradient steps per projection
	Tol       float64 // stop when f changes, or the projected gradient shrinks, by less than this (relatively)
	FirstStep float64 // the very first trial step
	// Gap > 0 stops instead when the duality gap is at most Gap·|f|, at
	// the start too (Options.Gap).
	Gap float64

	step float64 // the last accepted step length α (0: none yet)
	// Scratch.
	grad, next, nextGrad, pg []float64
}

const (
	armijo       = 1e-4 // c₁
	maxBacktrack = 30
)

// Stats say how one projection went.
type Stats struct {
	Steps       int     // accepted steps
	Evaluations int     // E-steps run
	Value       float64 // the dual objective at the end: the PR objective of the E-step
	Converged   bool    // stopped by Tol or Gap, not by MaxSteps or a failed line search (at MaxSteps, by the objective's change or the gap alone)
}

// minimise runs the solver from x (changed in place to the end point),
// projected first unless feasible says it lies in the feasible set.
func (s *solver) minimise(p problem, x []float64, feasible bool) (Stats, error) {
	s.prepare(len(x))
	if !feasible {
		p.project(x)
	}
	f, err := p.evaluate(x, s.grad)
	if err != nil {
		return Stats{}, err
	}
	p.accept()
	return s.descend(p, x, Stats{Evaluations: 1, Value: f}, nil)
}

// prepare sizes the scratch for n variables.
func (s *solver) prepare(n int) {
	if len(s.grad) != n {
		s.grad, s.next, s.nextGrad, s.pg = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	}
}

// descend takes the steps of minimise from the feasible x, evaluated and
// accepted (its value in st, its gradient in s.grad), until the stopping
// rules or, when enough is not nil, until enough says so of an accepted
// point (its value and gradient).
func (s *solver) descend(p problem, x []float64, st Stats, enough func(f float64, grad []float64) bool) (Stats, error) {
	f := st.Value
	if math.IsNaN(f) || math.IsInf(f, 0) {
		st.Converged = s.projectedGradientNorm(p, x) == 0
		return st, nil
	}
	// The projected gradient's norm at x, which the second stopping rule
	// compares with, costs a projection: it is taken only when that rule
	// is asked (-1 until then). A stationary x stops the first trial step
	// (its projection does not move).
	pg0 := -1.0
	if s.gapClosed(p, x, f) {
		st.Converged = true
		return st, nil
	}
	alpha := s.step
	if alpha == 0 {
		alpha = s.FirstStep
	}
	for st.Steps < s.MaxSteps {
		accepted := false
		var fNext float64
		for trial := 0; trial < maxBacktrack; trial++ {
			for i := range x {
				s.next[i] = x[i] - alpha*s.grad[i]
			}
			p.project(s.next)
			slope := 0.0 // ∇f·(x' − x), ≤ 0
			for i, g := range s.grad {
				slope += g * (s.next[i] - x[i])
			}
			if slope == 0 { // the projection does not move: a stationary point
				st.Converged = true
				return st, nil
			}
			var err error
			fNext, err = p.evaluate(s.next, s.nextGrad)
			if err != nil {
				return st, err
			}
			st.Evaluations++
			if fNext <= f+armijo*slope {
				accepted = true
				break
			}
			// The minimiser of the quadratic through f, the slope and
			// f(α), kept within [α/10, α/2].
			q := -slope / (2 * (fNext - f - slope))
			alpha *= math.Min(0.5, math.Max(0.1, q))
			if math.IsNaN(q) || math.IsInf(fNext, 0) || math.IsNaN(fNext) {
				alpha = alpha / 2
			}
		}
		if !accepted {
			return st, nil // no step decreases f: as far as floating point goes
		}
		p.accept()
		st.Steps++
		// At the step limit the loop ends whatever the projected gradient
		// says: it is not projected then (only Converged would hear it).
		small := s.Gap == 0 && math.Abs(f-fNext) <= s.Tol*math.Abs(f)
		askPG := s.Gap == 0 && !small && st.Steps < s.MaxSteps
		if askPG && pg0 < 0 { // x and s.grad are still the start's
			pg0 = s.projectedGradientNorm(p, x)
		}
		// Barzilai–Borwein: α = Δx·Δx / Δx·Δg, when the curvature is positive.
		dxdx, dxdg := 0.0, 0.0
		for i, g := range s.grad {
			dx, dg := s.next[i]-x[i], s.nextGrad[i]-g
			dxdx += dx * dx
			dxdg += dx * dg
		}
		s.step = alpha
		if dxdg > 0 {
			s.step = dxdx / dxdg
		}
		alpha = s.step
		copy(x, s.next)
		s.grad, s.nextGrad = s.nextGrad, s.grad
		f = fNext
		st.Value = f
		if small || askPG && s.projectedGradientNorm(p, x) <= s.Tol*pg0 || s.gapClosed(p, x, f) {
			st.Converged = true
			break
		}
		if enough != nil && enough(f, s.grad) {
			break
		}
	}
	return st, nil
}

// gapClosed says whether the gap rule (Gap > 0) stops at x, where the
// objective is f and its gradient s.grad.
func (s *solver) gapClosed(p problem, x []float64, f float64) bool {
	return s.Gap > 0 && p.gap(x, s.grad) <= s.Gap*math.Abs(f)
}

// projectedGradientNorm is ‖P(x − ∇f) − x‖, zero exactly at a minimiser.
func (s *solver) projectedGradientNorm(p problem, x []float64) float64 {
	for i := range x {
		s.pg[i] = x[i] - s.grad[i]
	}
	p.project(s.pg)
	sum := 0.0
	for i, v := range s.pg {
		d := v - x[i]
		sum += d * d
	}
	return math.Sqrt(sum)
}
