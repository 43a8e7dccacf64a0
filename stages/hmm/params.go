// Package hmm is the hidden Markov model for part-of-speech induction:
// bitag and trigram HMMs with K states and explicit sentence start and
// stop, scaled forward–backward, Viterbi and posterior decoding, and the
// estimators of Johnson (2007) and Smith & Eisner (2004) — EM, MAP add-λ,
// deterministic and skewed annealing, variational Bayes and a collapsed
// Gibbs sampler — with optional tag dictionaries. Parameters are dense
// tables indexed by interned words and states; records and programs live
// elsewhere.
package hmm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// Space is the shape of an HMM: its order, states and vocabulary, and
// which emissions a tag dictionary allows.
//
// Transitions are one table of rows, one row per context: the previous
// state (bitag) or the previous two (trigram), where state index K is the
// sentence boundary. A row has K+1 entries, entry K being stop. The
// start context (all boundary) cannot stop: sentences are not empty.
// Emissions are stored word-major, Emit[w*K+t], so that the K emission
// weights of one word sit side by side for forward–backward.
type Space struct {
	Order int // 1 = bitag, 2 = trigram
	K     int // states
	V     int // word types
	// Allowed[w*K+t] says whether state t may emit word w; nil allows all.
	Allowed []bool

	all, boundary []int32   // 0…K−1, and K alone
	choices       [][]int32 // per word, the states Allowed lets it take (nil: all)
}

// NewSpace checks the shape.
func NewSpace(order, k, v int, allowed []bool) (*Space, error) {
	if order != 1 && order != 2 {
		return nil, fmt.Errorf("hmm order must be 1 (bitag) or 2 (trigram), not %d", order)
	}
	if k < 1 || v < 1 {
		return nil, fmt.Errorf("hmm needs at least one state and one word (K = %d, V = %d)", k, v)
	}
	if allowed != nil && len(allowed) != k*v {
		return nil, fmt.Errorf("dictionary has %d entries for %d words × %d states", len(allowed), v, k)
	}
	s := &Space{Order: order, K: k, V: v, Allowed: allowed, boundary: []int32{int32(k)}}
	for t := 0; t < k; t++ {
		s.all = append(s.all, int32(t))
	}
	if allowed != nil {
		s.choices = make([][]int32, v)
		for w := 0; w < v; w++ {
			for t := 0; t < k; t++ {
				if allowed[w*k+t] {
					s.choices[w] = append(s.choices[w], int32(t))
				}
			}
		}
	}
	return s, nil
}

// statesAt lists the states token i of words may take: the boundary alone
// before the sentence (i < 0), else those the dictionary allows.
func (s *Space) statesAt(words []int32, i int) []int32 {
	switch {
	case i < 0:
		return s.boundary
	case s.choices == nil:
		return s.all
	}
	return s.choices[words[i]]
}

// Contexts is the number of transition rows.
func (s *Space) Contexts() int {
	if s.Order == 1 {
		return s.K + 1
	}
	return (s.K + 1) * (s.K + 1)
}

// StartContext is the row of the first transition.
func (s *Space) StartContext() int {
	if s.Order == 1 {
		return s.K
	}
	return s.K*(s.K+1) + s.K
}

// Context is the row for the previous states prev2 and prev1 (prev2 is
// ignored by a bitag model; K is the boundary).
func (s *Space) Context(prev2, prev1 int) int {
	if s.Order == 1 {
		return prev1
	}
	return prev2*(s.K+1) + prev1
}

// transSupported says whether row ctx may go to next.
func (s *Space) transSupported(ctx, next int) bool {
	return !(ctx == s.StartContext() && next == s.K)
}

// allowed says whether state t may emit word w.
func (s *Space) allowed(w, t int) bool { return s.Allowed == nil || s.Allowed[w*s.K+t] }

// Params are the weights (or expected counts) of one HMM.
type Params struct {
	*Space
	Trans []float64 // Contexts() × (K+1)
	Emit  []float64 // V × K, word-major
}

// NewParams is an all-zero table.
func NewParams(s *Space) *Params {
	return &Params{Space: s, Trans: make([]float64, s.Contexts()*(s.K+1)), Emit: make([]float64, s.V*s.K)}
}

// Clear sets every entry to zero.
func (p *Params) Clear() {
	clear(p.Trans)
	clear(p.Emit)
}

// Add adds q's entries to p's.
func (p *Params) Add(q *Params) {
	for i, v := range q.Trans {
		p.Trans[i] += v
	}
	for i, v := range q.Emit {
		p.Emit[i] += v
	}
}

// Clone copies p.
func (p *Params) Clone() *Params {
	q := &Params{Space: p.Space, Trans: append([]float64(nil), p.Trans...), Emit: append([]float64(nil), p.Emit...)}
	return q
}

// Normalize turns counts into probabilities: each row's supported entries
// get (n + λ) / (Σn + |support|·λ). λ = 0 is the maximum-likelihood
// M-step of EM; a row with no mass and λ = 0 becomes uniform.
func (s *Space) Normalize(counts *Params, lambda float64) *Params {
	return s.mstep(counts, func(n, total float64, support int) float64 {
		if total+float64(support)*lambda <= 0 {
			return 1 / float64(support)
		}
		return (n + lambda) / (total + float64(support)*lambda)
	})
}

// CheckTotals checks that every row's total of counts plus λ per
// supported entry is finite, so that an M-step can normalise it: counts
// each finite can still add up beyond floating point (the DMV's rule,
// dmv.CheckTotals). names names the states (K: the boundary).
func (s *Space) CheckTotals(counts *Params, lambda float64, name func(int) string) error {
	k, k1 := s.K, s.K+1
	bad := func(sum float64, what func() string) error {
		if math.IsInf(sum, 0) || math.IsNaN(sum) {
			return fmt.Errorf("M-step overflow: the counts of %s add up to %v, beyond floating point", what(), sum)
		}
		return nil
	}
	for ctx := 0; ctx < s.Contexts(); ctx++ {
		sum := 0.0
		for next, n := range counts.Trans[ctx*k1 : (ctx+1)*k1] {
			if s.transSupported(ctx, next) {
				sum += n + lambda
			}
		}
		if err := bad(sum, func() string {
			if s.Order == 1 {
				return "trans from " + name(ctx)
			}
			return "trans from " + name(ctx/k1) + " " + name(ctx%k1)
		}); err != nil {
			return err
		}
	}
	sums := make([]float64, k)
	for w := 0; w < s.V; w++ {
		for t := 0; t < k; t++ {
			if s.allowed(w, t) {
				sums[t] += counts.Emit[w*k+t] + lambda
			}
		}
	}
	for t, sum := range sums {
		if err := bad(sum, func() string { return "emit of state " + name(t) }); err != nil {
			return err
		}
	}
	return nil
}

// VariationalBayes is the M-step of mean-field variational Bayes with
// symmetric Dirichlet priors, alphaT on every transition row and alphaE
// on every emission row (Johnson 2007): θ = exp ψ(n + α) / exp ψ(Σn + |support|·α).
// The rows sum to less than one; forward–backward takes them as they are.
func (s *Space) VariationalBayes(counts *Params, alphaT, alphaE float64) *Params {
	return s.mstepAlpha(counts, alphaT, alphaE, func(n, total float64, support int, alpha float64) float64 {
		return math.Exp(mathext.Digamma(n+alpha) - mathext.Digamma(total+float64(support)*alpha))
	})
}

// KLPrior is Σ over rows of KL(Dir(n + α) ‖ Dir(α)), the term that turns
// Σ log Z̃ into the variational bound of the weights VariationalBayes(n)
// PosteriorMean is the mean of the posterior Dirichlets of the rows
// given counts under symmetric priors alphaT (transition rows) and alphaE
// (emission rows): (n + α) / (Σn + |row|·α), and the weight each state
// gives a word never counted, αE / (Σn + |row|·αE). A Gibbs run's model
// (Train): its kept samples' counts, averaged.
func (s *Space) PosteriorMean(counts *Params, alphaT, alphaE float64) (*Params, []float64) {
	p := s.mstepAlpha(counts, alphaT, alphaE, func(n, total float64, support int, alpha float64) float64 {
		return (n + alpha) / (total + float64(support)*alpha)
	})
	unseen := make([]float64, s.K)
	total, support := s.emitTotals(counts)
	for t := range unseen {
		unseen[t] = alphaE / (total[t] + float64(support[t])*alphaE)
	}
	return p, unseen
}

// gives (Beal 2003): F = Σ log Z̃(x) − KLPrior(n).
func (s *Space) KLPrior(counts *Params, alphaT, alphaE float64) float64 {
	kl := 0.0
	s.eachRow(counts, alphaT, alphaE, func(row []float64, support []bool, alpha float64) {
		sumU, m := 0.0, 0
		for i, n := range row {
			if support == nil || support[i] {
				sumU += n + alpha
				m++
			}
		}
		lgSumU, _ := math.Lgamma(sumU)
		lgSumA, _ := math.Lgamma(float64(m) * alpha)
		lgA, _ := math.Lgamma(alpha)
		psiSum := mathext.Digamma(sumU)
		r := lgSumU - lgSumA
		for i, n := range row {
			if support != nil && !support[i] || n == 0 {
				continue // a zero count contributes lgΓ(α) − lgΓ(α) and 0·(…)
			}
			lgU, _ := math.Lgamma(n + alpha)
			r += lgA - lgU + n*(mathext.Digamma(n+alpha)-psiSum)
		}
		kl += r
	})
	return kl
}

// eachRow visits every multinomial of counts as a dense row with its
// support (nil: all) and prior; emission rows are gathered from the
// word-major table.
func (s *Space) eachRow(counts *Params, alphaT, alphaE float64, fn func(row []float64, support []bool, alpha float64)) {
	k1 := s.K + 1
	full := make([]bool, k1)
	for i := range full {
		full[i] = true
	}
	noStop := append([]bool(nil), full...)
	noStop[s.K] = false
	for ctx := 0; ctx < s.Contexts(); ctx++ {
		sup := full
		if ctx == s.StartContext() {
			sup = noStop
		}
		fn(counts.Trans[ctx*k1:(ctx+1)*k1], sup, alphaT)
	}
	row := make([]float64, s.V)
	var sup []bool
	if s.Allowed != nil {
		sup = make([]bool, s.V)
	}
	for t := 0; t < s.K; t++ {
		for w := 0; w < s.V; w++ {
			row[w] = counts.Emit[w*s.K+t]
			if sup != nil {
				sup[w] = s.Allowed[w*s.K+t]
			}
		}
		fn(row, sup, alphaE)
	}
}

func (s *Space) mstep(counts *Params, f func(n, total float64, support int) float64) *Params {
	return s.mstepAlpha(counts, 0, 0, func(n, total float64, support int, _ float64) float64 { return f(n, total, support) })
}

// mstepAlpha applies f to every supported entry of every row, given the
// row's total and support size; unsupported entries are 0.
func (s *Space) mstepAlpha(counts *Params, alphaT, alphaE float64, f func(n, total float64, support int, alpha float64) float64) *Params {
	out := NewParams(s)
	k, k1 := s.K, s.K+1
	for ctx := 0; ctx < s.Contexts(); ctx++ {
		row := counts.Trans[ctx*k1 : (ctx+1)*k1]
		total, m := 0.0, 0
		for next, n := range row {
			if s.transSupported(ctx, next) {
				total += n
				m++
			}
		}
		for next, n := range row {
			if s.transSupported(ctx, next) {
				out.Trans[ctx*k1+next] = f(n, total, m, alphaT)
			}
		}
	}
	totals := make([]float64, k)
	support := make([]int, k)
	for w := 0; w < s.V; w++ {
		for t := 0; t < k; t++ {
			if s.allowed(w, t) {
				totals[t] += counts.Emit[w*k+t]
				support[t]++
			}
		}
	}
	for w := 0; w < s.V; w++ {
		for t := 0; t < k; t++ {
			if s.allowed(w, t) {
				out.Emit[w*k+t] = f(counts.Emit[w*k+t], totals[t], support[t], alphaE)
			}
		}
	}
	return out
}

// NoisyUniform is Johnson's start: every row uniform over its support,
// each entry multiplied by 1 + noise·u with u uniform on [0, 1) from the
// seeded generator, and renormalised — never an exactly symmetric point,
// so that EM can tell the states apart.
func (s *Space) NoisyUniform(noise float64, seed uint64) *Params {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	w := NewParams(s)
	for i := range w.Trans {
		w.Trans[i] = 1 + noise*rng.Float64()
	}
	for i := range w.Emit {
		w.Emit[i] = 1 + noise*rng.Float64()
	}
	// Rows of weights normalise to the same model whatever their scale.
	return s.Normalize(w, 0)
}

// Anneal is the weights an annealed E-step runs on: θ^β, or with a skew
// θ₀ (SDA, Smith & Eisner §5) θ^β·θ₀^(1−β). Zeros stay zero.
func Anneal(p *Params, beta float64, skew *Params) *Params {
	q := NewParams(p.Space)
	pow := func(dst, src, sk []float64) {
		for i, v := range src {
			if v <= 0 {
				continue
			}
			x := math.Pow(v, beta)
			if sk != nil {
				x *= math.Pow(sk[i], 1-beta)
			}
			dst[i] = x
		}
	}
	var st, se []float64
	if skew != nil {
		st, se = skew.Trans, skew.Emit
	}
	pow(q.Trans, p.Trans, st)
	pow(q.Emit, p.Emit, se)
	return q
}
