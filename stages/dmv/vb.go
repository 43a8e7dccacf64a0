package dmv

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// Variational Bayes for the DMV (mean-field, as Cohen, Gimpel & Smith
// 2008's Dirichlet baseline and pr-toolkit train it): a symmetric
// Dirichlet(α) prior on every multinomial k (root; child(h, dir); the
// stop/cont decision of (h, dir, valence)), and q(z)·q(θ) fitted to the
// posterior by coordinate ascent. Given expected counts c, the best q(θ)
// is Dir(c + α) (multinomial by multinomial), and the next E-step runs
// on its weights
//
//	θ̃_k(i) = exp E[log θ_k(i)] = exp ψ(c_k(i) + α) / exp ψ(Σ_i′ c_k(i′) + K·α),
//
// which sum to less than 1 (Jensen: θ̃ < E[θ]); the chart takes them as
// they are. The E-step on weights w gives q(z) ∝ Π w^f(z), its counts c
// and log Z̃ = Σ_x log Σ_z Π w^f; with q(θ) = Dir(c + α) the bound is
//
//	F = E[log p(x, z | θ)] + E[log p(θ)] − E[log q(z)] − E[log q(θ)]
//	  = log Z̃ − Σ c·log w + Σ_k log [B(c_k + α) / B(α)],
//
// B the multivariate Beta function: the posterior's entropy (log Z̃ −
// Σ c·log w) plus the Dirichlet-multinomial log marginal of the counts
// (VBBound). It holds for any weights w, so every iteration's bound is
// one — from a normalised start, zero's all-ones weights or θ̃ — and it
// never decreases: the E-step makes q(z) best for the q(θ) of the
// weights, the M-step q(θ) best for q(z). (The counts alone do not give
// it: Σ c·log w needs the weights the E-step ran on.)

// VB marks a model of variational Bayes (its file's header: vb_alpha,
// vb_bound): its probabilities are the sub-normalised weights θ̃ of
// Dir(counts + Alpha). Bound, when not nil, is the variational bound of
// the E-step and M-step that made it (VBBound).
type VB struct {
	Alpha float64
	Bound *float64
}

// DefaultAlpha is the Dirichlet hyperparameter of the programs that
// train by VB when none is given.
const DefaultAlpha = 1.0

// CheckAlpha says whether alpha is a Dirichlet hyperparameter VB takes:
// a finite number > 0.
func CheckAlpha(alpha float64) error {
	if !(alpha > 0) || math.IsInf(alpha, 1) {
		return fmt.Errorf("the Dirichlet hyperparameter α must be a finite number > 0, not %v", alpha)
	}
	return nil
}

// VariationalBayes is VB's M-step: the weights θ̃ of q(θ) = Dir(counts +
// α), multinomial by multinomial (see above), of the plain DMV's counts
// (others panic: RefuseValence first). The totals must be finite
// (CheckTotals with α).
func VariationalBayes(counts *Params, alpha float64) *Params {
	if !counts.V.IsDMV() {
		panic(RefuseValence(counts.V, "dmv.VariationalBayes"))
	}
	p := NewParams(counts.T)
	expDigammas(p.Root, counts.Root, alpha)
	for c := 0; c < counts.T*2; c++ {
		lo, hi := c*counts.T, (c+1)*counts.T
		expDigammas(p.Child[lo:hi], counts.Child[lo:hi], alpha)
	}
	for i := range counts.Stop {
		s, k := counts.Stop[i]+alpha, counts.Cont[i]+alpha
		psi := mathext.Digamma(s + k)
		p.Stop[i] = math.Exp(mathext.Digamma(s) - psi)
		p.Cont[i] = math.Exp(mathext.Digamma(k) - psi)
	}
	return p
}

func expDigammas(dst, counts []float64, alpha float64) {
	total := 0.0
	for _, c := range counts {
		total += c + alpha
	}
	psi := mathext.Digamma(total)
	for i, c := range counts {
		dst[i] = math.Exp(mathext.Digamma(c+alpha) - psi)
	}
}

// LogMarginal is Σ_k log [B(c_k + α) / B(α)] = Σ_k [log Γ(K·α) − log
// Γ(Σ_i (c_k(i) + α)) + Σ_i (log Γ(c_k(i) + α) − log Γ(α))]: the log
// probability of counts c under the Dirichlet-multinomial, the part of
// the bound that q(θ) = Dir(c + α) contributes once it is best for c.
func LogMarginal(counts *Params, alpha float64) float64 {
	lgA, _ := math.Lgamma(alpha)
	row := func(cs ...float64) float64 {
		prior, post, r := 0.0, 0.0, 0.0
		for _, c := range cs {
			prior += alpha
			post += c + alpha
			if c != 0 { // a zero count adds log Γ(α) − log Γ(α)
				lg, _ := math.Lgamma(c + alpha)
				r += lg - lgA
			}
		}
		lgPrior, _ := math.Lgamma(prior)
		lgPost, _ := math.Lgamma(post)
		return r + lgPrior - lgPost
	}
	sum := row(counts.Root...)
	for c := 0; c < counts.T*2; c++ {
		sum += row(counts.Child[c*counts.T : (c+1)*counts.T]...)
	}
	for i := range counts.Stop {
		sum += row(counts.Stop[i], counts.Cont[i])
	}
	return sum
}

// VBBound is the variational bound after an E-step on weights w (which
// gave counts and log Z̃ = logZ) and the VB M-step on its counts:
// log Z̃ − Σ c·log w + LogMarginal(counts, α). An event counted though its
// weight is 0 means the counts are not of an E-step on w: an error.
func VBBound(logZ float64, counts, w *Params, alpha float64) (float64, error) {
	cross := 0.0 // Σ c·log w = E_q[log Π w^f(z)]
	tc, tw := counts.Tables(), w.Tables()
	for k := range tc {
		for i, c := range tc[k] {
			if c == 0 {
				continue
			}
			if tw[k][i] <= 0 {
				return 0, fmt.Errorf("an event counted %v times has weight %v: the counts do not come from an E-step on these weights", c, tw[k][i])
			}
			cross += c * math.Log(tw[k][i])
		}
	}
	return logZ - cross + LogMarginal(counts, alpha), nil
}

// EStepWeights are the weights estep loads the chart with for model t
// over a corpus of tags ts: its potentials, a tag it has not seen as its
// average tag (Extend), in the order of ts.
func (t *Table) EStepWeights(ts *TagSet) (*Params, error) {
	all, p, _, err := t.Extend(ts.Names())
	if err != nil {
		return nil, err
	}
	w, err := (&Table{Tags: all, Params: p, Unit: t.Unit}).Potentials()
	if err != nil {
		return nil, err
	}
	return AlignTags(ts, all, w)
}
