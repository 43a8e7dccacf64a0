// Package pr is posterior regularization (Ganchev, Graça, Gillenwater &
// Taskar 2010) for the DMV: the E-step's posterior over trees replaced by
// its KL projection onto a set of distributions whose expectations obey
// constraints, computed through the dual. EM for PR climbs
//
//	J(θ) = log p_θ(X) − min_{q ∈ Q} [KL(q ‖ p_θ(Z|X)) + penalty(q)]
//
// by taking, in every E-step, q = argmin and the M-step's counts under q.
// The projection's q is the model's own posterior with every potential
// attachment re-weighted by e^{−λ} for its dual variables λ, so it is an
// ordinary inside–outside pass (dmv.EStepper with Factors, or with
// re-weighted parameters), and the dual is solved by projected gradient
// over such passes (dual.go). Two kinds of constraint, one at a time:
//
//   - sparsity (Gillenwater et al. 2010, 2011): the L1/L∞ penalty
//     σ·Σ_types max_instances E_q[φ] over the types (child tag, parent
//     tag) of dependencies, an instance being one potential edge of the
//     corpus (or with Grouped one child token and one parent tag);
//   - universal rules (Naseem et al. 2010): E_q[#dependencies that are no
//     rule] ≤ (1 − τ)·N for the N dependencies of the corpus (the roots'
//     included), one dual variable for the whole corpus.
//
// At the dual optimum the PR objective of the E-step is the dual's value,
// Σ log Z(λ*) + λ*·b, which is what the trainer logs and EM for PR never
// decreases (with the projection solved exactly: the Exact rule). The
// Interleaved rule solves it across iterations instead and logs the
// primal value F(q, θ) ≤ J(θ), the dual's value less the duality gap.
package pr

import (
	"errors"
	"fmt"
	"math"

	"github.com/grind-nlp/grind/stages/dmv"
)

// Options choose the constraint and the dual's optimizer.
type Options struct {
	// Rules, when not nil, asks that the share of dependencies that
	// instantiate a rule be at least RuleShare (τ), in expectation.
	Rules     *Rules
	RuleShare float64
	// RuleCap bounds λ: a share of rules that no q reaches (some
	// dependents no rule names) is not an error but a soft constraint,
	// min KL(q‖p) + RuleCap·max(0, E_q[#no rule] − (1 − τ)·N), whose dual
	// is λ ∈ [0, RuleCap]. Zero means DefaultRuleCap.
	RuleCap float64
	// Sigma > 0 is the sparsity penalty's strength σ. Grouped takes one
	// instance per child token and parent tag (pr-toolkit's "Fernando"
	// constraints) instead of one per potential edge; Root counts the
	// attachments to the wall as a parent type of their own; Direction
	// makes left and right dependencies different types.
	Sigma                    float64
	Grouped, Root, Direction bool
	// Rule is how much of the dual each E-step solves ("": Exact; for
	// sparsity without Tol or Gap, stopped by the gap DefaultGap).
	Rule DualRule
	// MaxSteps bounds the dual's projected-gradient steps per E-step
	// (pr-toolkit: 200); Tol stops them when the dual objective changes
	// by less than Tol relatively, or the projected gradient's norm falls
	// below Tol times its first (pr-toolkit: 1e-5 for both). Under
	// Interleaved they bound its fallback.
	MaxSteps int
	Tol      float64
	// Gap > 0 stops the exact rule's steps by the duality gap instead:
	// once f(λ) − F(q_λ) ≤ Gap·|f(λ)|, the warm start included (a
	// projection may take no step). It implies the exact rule.
	Gap float64
}

// DefaultGap is the gap sparsity's projections stop at when neither a
// rule, Tol nor Gap is given: on the PTB sample it gives both of
// pr-toolkit's sparsity rows within 1.5 points (σ = 10 and 140, from its
// own start) at about 3× EM's cost an iteration, as the interleaved rule
// (the default before) costs, where Tol's rules cost 5–30×.
const DefaultGap = 3e-2

// DualRule is how much of the dual an E-step solves.
type DualRule string

const (
	// Exact solves every projection to Tol (pr-toolkit's rules): the
	// projections of 20 EM iterations on UD English ≤ 10 take 164 E-steps.
	Exact DualRule = "exact"
	// Interleaved runs one E-step per iteration, at the dual variables
	// the last iteration's projected-gradient step (Barzilai–Borwein
	// length) led to, and takes the next step from its gradient: the
	// dual and the model move together, and at a fixed point of both the
	// projection is exact (x = P(x − α∇f) only at the dual's optimum).
	// The E-step's q is kept only when its primal value F(q, θ) — the
	// lower bound on J(θ) that the duality gap gives, which is what the
	// trainer logs and climbs — is at least the last E-step's F, or its
	// q's F under the new weights when they lowered that (an annealer's
	// next stage, a smoothed M-step); otherwise line-searched steps
	// (Exact's) follow until it is, so F never decreases (generalized
	// EM) while the weights are the model's.
	Interleaved DualRule = "interleaved"
)

// DualRule is o's rule, its default filled in.
func (o Options) DualRule() DualRule {
	if o.Rule != "" {
		return o.Rule
	}
	return Exact
}

// Defaults of the dual's optimizer (pr-toolkit's L1LMax).
const (
	DefaultMaxSteps  = 200
	DefaultTol       = 1e-5
	DefaultSigma     = 10  // pr-toolkit's -constraint-strength
	DefaultRuleShare = 0.8 // Naseem et al.'s released code's threshold
	// DefaultRuleCap makes an attachment that is no rule e^{−20} ≈ 2·10⁻⁹
	// times as likely at most: a constraint that binds hard when it can.
	DefaultRuleCap = 20
)

// On says whether opts asks for any constraint.
func (o Options) On() bool { return o.Rules != nil || o.Sigma > 0 }

// Check reports settings no projection can use.
func (o Options) Check() error {
	switch {
	case o.Rules != nil && o.Sigma > 0:
		return errors.New("one constraint at a time: universal rules or sparsity, not both")
	case o.Sigma < 0 || math.IsNaN(o.Sigma) || math.IsInf(o.Sigma, 0):
		return fmt.Errorf("σ must be a finite number > 0, not %v", o.Sigma)
	case o.Rules != nil && !(o.RuleShare >= 0 && o.RuleShare <= 1):
		return fmt.Errorf("the rules' share τ must be in [0, 1], not %v", o.RuleShare)
	case o.RuleCap < 0 || math.IsNaN(o.RuleCap) || math.IsInf(o.RuleCap, 0):
		return fmt.Errorf("the rules' cap on λ must be a finite number > 0, not %v", o.RuleCap)
	case o.Rules == nil && (o.Grouped || o.Root || o.Direction) && o.Sigma == 0:
		return errors.New("grouped, root and direction are options of the sparsity penalty (σ)")
	case o.MaxSteps < 0 || o.Tol < 0 || math.IsNaN(o.Tol) || o.Gap < 0 || math.IsNaN(o.Gap):
		return errors.New("the dual's step bound, tolerance and gap must not be negative")
	case o.Gap > 0 && o.Rule == Interleaved:
		return errors.New("the duality gap is a stopping rule of the exact rule, not of the interleaved")
	case o.Gap > 0 && o.Tol > 0:
		return errors.New("the duality gap and the tolerance are two stopping rules of one projection: give one")
	case o.Rule != "" && o.Rule != Exact && o.Rule != Interleaved:
		return fmt.Errorf("the dual's rule is %q or %q, not %q", Exact, Interleaved, o.Rule)
	}
	return nil
}

// Projector runs the E-steps of posterior regularization over one
// corpus. Its dual variables live from one E-step to the next (a warm
// start, as pr-toolkit's), so the projection of EM's next iteration
// begins where this one ended.
type Projector struct {
	opts   Options
	solver solver
	dual   []float64
	prob   eStepProblem
	last   lastEStep // Interleaved's
	// restored says the dual came from a state file, so it may not be
	// feasible (it is when a projection wrote it).
	restored bool
}

// lastEStep is what Interleaved keeps of its last E-step: the point and
// gradient of the next step's Barzilai–Borwein length, its value F, and
// its counts c and c·log w of the weights it ran with: its q's F under
// other weights w′ is F + c·log w′ − c·log w (F's other terms do not
// depend on the weights).
type lastEStep struct {
	x, grad []float64 // nil before the first
	value   float64   // −Inf before the first
	counts  *dmv.Params
	logW    float64
	tables  *[4][]float64 // counts restored from a state, until the weights' shape is known
}

// target is the F the next E-step under weights w must reach: the last
// one's, or its q's under w when that is lower.
func (l *lastEStep) target(w *dmv.Params) (float64, error) {
	if l.tables != nil {
		c := dmv.NewValenceParams(w.T, w.V)
		for k, tab := range c.Tables() {
			if len(l.tables[k]) != len(tab) {
				return 0, errors.New("the dual state's counts are not of the model's shape")
			}
			copy(tab, l.tables[k])
		}
		l.counts, l.tables = c, nil
	}
	if l.counts == nil || math.IsInf(l.value, -1) {
		return l.value, nil
	}
	return l.value + min(0, dotLog(l.counts, w)-l.logW), nil
}

// remember keeps the E-step of value F under weights w with these counts
// (a value that is not a number bars nothing: −Inf).
func (l *lastEStep) remember(value float64, counts, w *dmv.Params) {
	if math.IsNaN(value) {
		value = math.Inf(-1)
	}
	l.value = value
	if l.counts == nil || !l.counts.SameShape(counts) {
		l.counts = dmv.NewValenceParams(counts.T, counts.V)
	}
	l.counts.CopyFrom(counts)
	l.logW = dotLog(counts, w)
}

// dotLog is Σ c·log w over the entries of c that are not 0. A weight
// that underflowed to 0 under a count that did not (the M-step's c/Σc of
// a count near 5·10⁻³²⁴) counts as the smallest float64 it was above.
func dotLog(c, w *dmv.Params) float64 {
	sum := 0.0
	wt := w.Tables()
	for k, tab := range c.Tables() {
		for i, v := range tab {
			if v != 0 {
				sum += v * math.Log(max(wt[k][i], math.SmallestNonzeroFloat64))
			}
		}
	}
	return sum
}

// eStepProblem is a dual over E-steps: set gives it the model's weights
// and the E-step's options before a projection, result is the E-step of
// the point the projection ended on.
type eStepProblem interface {
	problem
	set(estep *dmv.EStepper, w *dmv.Params, opts dmv.EStepOptions)
	result() dmv.EStepResult
	// feasible says whether x lies in the feasible set (to rounding: a
	// projection's output may sum a hair over its bound, and projecting
	// it again would move it).
	feasible(x []float64) bool
	// fromState takes the dual back from a state file, which keeps it
	// as the projector lays it out (its length checked).
	fromState(x, saved []float64)
}

// New prepares the projections over corpus (its tags are the models').
func New(corpus *dmv.Corpus, opts Options) (*Projector, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	if !opts.On() {
		return nil, errors.New("posterior regularization without a constraint")
	}
	if opts.Sigma > 0 && opts.Rule == "" && opts.Tol == 0 && opts.Gap == 0 {
		opts.Gap = DefaultGap
	}
	if opts.MaxSteps == 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.Tol == 0 {
		opts.Tol = DefaultTol
	}
	if opts.RuleCap == 0 {
		opts.RuleCap = DefaultRuleCap
	}
	p := &Projector{opts: opts, last: lastEStep{value: math.Inf(-1)}}
	p.solver = solver{MaxSteps: opts.MaxSteps, Tol: opts.Tol, Gap: opts.Gap}
	if opts.Rules != nil {
		if err := opts.Rules.CheckCovers(corpus.Tags.Names()); err != nil {
			return nil, err
		}
		p.prob = newRuleProblem(corpus, opts)
		p.dual = make([]float64, 1)
		p.solver.FirstStep = 1 / float64(max(corpus.Tokens, 1)) // λ moves by at most about 1 on the first trial
	} else {
		sp, err := newSparsityProblem(corpus, opts)
		if err != nil {
			return nil, err
		}
		p.prob = sp
		p.dual = make([]float64, len(sp.rep)) // by slot
		p.solver.FirstStep = 1000             // pr-toolkit's first step
	}
	return p, nil
}

// Result is one projected E-step.
type Result struct {
	dmv.EStepResult // counts under q, and Σ log Z(λ) of q's re-weighted model
	Stats
}

// EStep runs the projected E-step on estep (over the projector's corpus)
// under the weight table w (the model's potentials, or annealing's
// re-weighting of them) with the E-step options opts (Workers, Dist:
// Model L's bias composes; Hard and Gold do not), and returns the counts
// under the projected posterior.
func (p *Projector) EStep(estep *dmv.EStepper, w *dmv.Params, opts dmv.EStepOptions) (Result, error) {
	if opts.Hard || opts.Gold || opts.Segment {
		return Result{}, errors.New("posterior regularization projects the posterior: it has no meaning for Viterbi (--hard), gold counts or segmentation")
	}
	p.prob.set(estep, w, opts)
	if p.opts.DualRule() == Interleaved {
		return p.interleaved(w)
	}
	// The gap rule starts where the last projection ended, as it is (a
	// state file's dual only when it is feasible); Tol's rules project
	// it again, a projection an E-step, which moves a few types by a
	// rounding (kept so: their models stay as they were).
	feasible := p.opts.Gap > 0 && (!p.restored || p.prob.feasible(p.dual))
	p.restored = false
	st, err := p.solver.minimise(p.prob, p.dual, feasible)
	if err != nil {
		return Result{}, err
	}
	return Result{EStepResult: p.prob.result(), Stats: st}, nil
}

// stepGrowth bounds how much longer than the last Interleaved's step
// may be: Barzilai–Borwein lengths taken across M-steps spike, and a
// spike costs the fallback's E-steps (development runs, σ = 10 from km:
// UD English ≤ 10, 60 iterations, 306 E-steps uncapped, 128 at 1.5; the
// PTB sample ≤ 10, 100 iterations, dual steps 838 uncapped, 490 / 399 /
// 439 / 479 at 1 / 1.2 / 1.5 / 2).
const stepGrowth = 1.5

// interleavedSlack is the rounding the comparison of F with the last
// E-step's forgives (relative): both are sums over the corpus.
const interleavedSlack = 1e-12

// interleaved is Interleaved's E-step under weights w; its Value is F(q, w).
func (p *Projector) interleaved(w *dmv.Params) (Result, error) {
	s, x := &p.solver, p.dual
	s.prepare(len(x))
	if p.restored && !p.prob.feasible(x) { // as a state file may be
		p.prob.project(x)
	}
	p.restored = false
	f, err := p.prob.evaluate(x, s.grad)
	if err != nil {
		return Result{}, err
	}
	p.prob.accept()
	st := Stats{Evaluations: 1, Value: f}
	primal := f - p.prob.gap(x, s.grad)
	target, err := p.last.target(w)
	if err != nil {
		return Result{}, err
	}
	if primal < target-interleavedSlack*math.Abs(target) {
		// Line-searched steps until F is back above the last E-step's,
		// whatever the dual's own tolerance says (F rises to J(θ) ≥ the
		// last F as the dual converges), within MaxSteps.
		enough := func(f float64, grad []float64) bool { return f-p.prob.gap(x, grad) >= target }
		tol := s.Tol
		s.Tol = 0
		st, err = s.descend(p.prob, x, st, enough)
		s.Tol = tol
		if err != nil {
			return Result{}, err
		}
		primal = st.Value - p.prob.gap(x, s.grad)
	}
	res := p.prob.result()
	p.last.remember(primal, res.Counts, w)

	// The next E-step's point: one projected-gradient step.
	alpha := s.step
	if last := p.last.x; last != nil {
		dxdx, dxdg := 0.0, 0.0
		lastGrad := p.last.grad[:len(last)]
		for i, g := range s.grad[:len(last)] {
			dx, dg := x[i]-last[i], g-lastGrad[i]
			dxdx += dx * dx
			dxdg += dx * dg
		}
		if dxdg > 0 {
			alpha = dxdx / dxdg
		}
		if s.step > 0 {
			alpha = math.Min(alpha, stepGrowth*s.step)
		}
	} else {
		p.last.x, p.last.grad = make([]float64, len(x)), make([]float64, len(x))
	}
	if alpha == 0 {
		alpha = s.FirstStep
	}
	s.step = alpha
	copy(p.last.x, x)
	copy(p.last.grad, s.grad)
	for i, g := range s.grad[:len(x)] {
		x[i] -= alpha * g
	}
	p.prob.project(x)
	st.Steps++
	st.Value, st.Converged = primal, false
	return Result{EStepResult: res, Stats: st}, nil
}

// Dual is the dual variables the last projection ended with (sparsity's
// by slot: sparsityProblem); under Interleaved, the point its step
// led to, where the next E-step runs.
func (p *Projector) Dual() []float64 { return p.dual }
