package ccm

import (
	"math"

	"github.com/grind-nlp/grind/stages/bintree"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Variant chooses the span multinomial.
type Variant int

const (
	// Model1 is Klein's CCM: P(α | B).
	Model1 Variant = 1
	// Model2 is Smith & Eisner's (2004) CCM2: P(α | B, |α|), one span
	// multinomial per bracket value and yield length.
	Model2 Variant = 2
)

// Distituent and Constituent index the first dimension of the tables.
const (
	Distituent  = 0
	Constituent = 1
)

// Model holds the four multinomials as dense tables indexed by the ids of
// Sym: Span[b][y] = P(yield y | b) (given also its length under Model2),
// Context[b][x] = P(context x | b).
type Model struct {
	Variant Variant
	Sym     *Symbols
	Span    [2][]float64
	Context [2][]float64
	// unseen is the probability of a yield (by length under Model2) or
	// context interned after the M-step, by a test corpus sharing Sym: its
	// pseudo-counts alone over the group's mass. Grow uses it.
	unseenSpan    [2][]float64
	unseenContext [2]float64
	// splitSkew, when not 0, is the 1 − β of skewed DA toward the
	// random-split tree distribution (SplitSkewed): every constituent of
	// l ≥ 2 tokens carries the factor (l−1)^−splitSkew.
	splitSkew float64
	// Classes, when not nil, makes m Klein's CCM with several constituent
	// classes (§5.3.2, classes.go): a constituent span's yield and context
	// come from one of these labels, chosen uniformly, and Span[Constituent]
	// and Context[Constituent] are nil; the distituent label is
	// Span[Distituent], Context[Distituent] as in the CCM.
	Classes []Class
}

// Grow extends the tables to ids that Sym interned after the M-step (a
// test corpus built with the training corpus's Symbols), giving each the
// probability of a smoothed zero count. The model is then deficient by
// that mass, like the CCM itself. EStep, Parse, Posteriors, LogProb and
// SpanFactors call it; call it once yourself before using a model from
// several goroutines on a corpus that grew its Symbols.
func (m *Model) Grow() {
	m.growClasses()
	for b := range 2 {
		if b == Constituent && m.Classes != nil {
			continue
		}
		for y := len(m.Span[b]); y < m.Sym.NumYields(); y++ {
			g := 0
			if m.Variant == Model2 {
				g = min(m.Sym.YieldLen(y), len(m.unseenSpan[b])-1)
			}
			m.Span[b] = append(m.Span[b], m.unseenSpan[b][g])
		}
		for x := len(m.Context[b]); x < m.Sym.NumContexts(); x++ {
			m.Context[b] = append(m.Context[b], m.unseenContext[b])
		}
	}
}

// chart is one sentence's scratch space, reused by a worker.
type chart struct {
	phi, in, out []float64
	skew         []float64 // by span length, under a split skew
}

func (ch *chart) size(n int) {
	m := (n + 1) * (n + 1)
	if cap(ch.phi) < m {
		ch.phi, ch.in, ch.out = make([]float64, m), make([]float64, m), make([]float64, m)
	}
	ch.phi, ch.in, ch.out = ch.phi[:m], ch.in[:m], ch.out[:m]
}

// potentials fills ch.phi with φ(i,j) = P(α|T)P(x|T) / (P(α|F)P(x|F)) for
// the spans of one or more tokens (times the split skew's factor of their
// length under SplitSkewed), rescaled by a power of two chosen so
// that the inside products stay in range, and returns log K(s), the
// all-distituent product over every span (empty ones too), and the log of
// the scale. Every binary tree has 2n − 1 constituents (n words and n − 1
// larger spans), so the scale multiplies every tree alike.
func (m *Model) potentials(c *Corpus, s Sentence, ch *chart) (logK, logScale float64) {
	n := s.N
	ch.size(n)
	spanF, spanT := m.Span[Distituent], m.Span[Constituent]
	ctxF, ctxT := m.Context[Distituent], m.Context[Constituent]
	// K, and the product of the φ, as mantissas and binary exponents: n²
	// factors underflow float64. Renormalised only when far from 1.
	mant, exp := 1.0, 0
	phiMant, phiExp := 1.0, 0
	var skew []float64
	if m.splitSkew != 0 {
		skew = m.skewFactors(n, ch)
	}
	w := n + 1
	ys, xs := c.Yield[s.Off:s.Off+w*w], c.Context[s.Off:s.Off+w*w]
	for i := 0; i <= n; i++ {
		// Row i of the sentence's spans, [i, i+d) for d = 0 … n−i, sliced
		// once so that the loop over it checks no bounds but the tables'.
		yr, xr, pr := ys[i*w+i:i*w+w], xs[i*w+i:i*w+w], ch.phi[i*w+i:i*w+w]
		xr, pr = xr[:len(yr)], pr[:len(yr)]
		for d, y := range yr {
			x := xr[d]
			f := spanF[y] * ctxF[x]
			mant *= f
			if mant < 0x1p-500 {
				var e int
				mant, e = math.Frexp(mant)
				exp += e
			}
			if d == 0 {
				continue // the empty span is never a constituent
			}
			var t float64
			if m.Classes == nil {
				t = spanT[y] * ctxT[x]
			} else {
				t = m.classFactor(y, x)
			}
			phi := t / f
			if skew != nil {
				phi *= skew[d]
			}
			pr[d] = phi
			phiMant *= phi
			if phiMant < 0x1p-500 || phiMant > 0x1p500 {
				var e int
				phiMant, e = math.Frexp(phiMant)
				phiExp += e
			}
		}
	}
	_, e := math.Frexp(phiMant)
	expSum := phiExp + e
	logK = math.Log(mant) + float64(exp)*math.Ln2
	// Divide every φ by 2^(mean exponent).
	spans := n * (n + 1) / 2
	shift := -expSum / spans
	if shift != 0 {
		scale := math.Ldexp(1, shift)
		for i := 0; i < n; i++ {
			for j := i + 1; j <= n; j++ {
				ch.phi[i*w+j] *= scale
			}
		}
	}
	return logK, float64(shift) * math.Ln2
}

// skewFactors are the split skew's factors (l−1)^−splitSkew by span
// length l ≤ n (all 1 without the skew), in ch's buffer.
func (m *Model) skewFactors(n int, ch *chart) []float64 {
	if cap(ch.skew) <= n {
		ch.skew = make([]float64, n+1)
	}
	f := ch.skew[:n+1]
	for l := range f {
		f[l] = 1
		if m.splitSkew != 0 && l > 2 {
			f[l] = math.Pow(float64(l-1), -m.splitSkew)
		}
	}
	return f
}

// inside fills ch.in: I(i,i+1) = φ(i,i+1), I(i,j) = φ(i,j)·Σ_k I(i,k)I(k,j),
// the sum over binary bracketings of [i,j) of the product of φ over their
// constituents. It says whether every φ and every I lies within
// [2^−300, 2^300]: then no product of the inside or the outside pass
// leaves the range of a float64 or loses precision to it, and the
// values are exact to rounding. Otherwise (sentences of hundreds of
// words, whose bracketings are 4ⁿ; a model's zeros) logSentence computes
// the sentence in log space.
func inside(n int, ch *chart) bool {
	w := n + 1
	phi, in := ch.phi, ch.in
	ok := true
	for i := 0; i < n; i++ {
		in[i*w+i+1] = phi[i*w+i+1]
		ok = ok && inRange(in[i*w+i+1])
	}
	for l := 2; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l
			sum := 0.0
			for k := i + 1; k < j; k++ {
				sum += in[i*w+k] * in[k*w+j]
			}
			in[i*w+j] = phi[i*w+j] * sum
			ok = ok && inRange(phi[i*w+j]) && inRange(in[i*w+j])
		}
	}
	return ok
}

// inRange says whether x is in [2^−300, 2^300] (not NaN).
func inRange(x float64) bool { return x >= 0x1p-300 && x <= 0x1p300 }

// outside fills ch.out with ∂I(0,n)/∂I(i,j).
func outside(n int, ch *chart) {
	w := n + 1
	phi, in, out := ch.phi, ch.in, ch.out
	for i := range out {
		out[i] = 0
	}
	out[n] = 1 // (0, n)
	for l := n; l >= 2; l-- {
		for i := 0; i+l <= n; i++ {
			j := i + l
			g := out[i*w+j] * phi[i*w+j]
			if g == 0 {
				continue
			}
			for k := i + 1; k < j; k++ {
				out[i*w+k] += g * in[k*w+j]
				out[k*w+j] += g * in[i*w+k]
			}
		}
	}
}

// LogProb is log P(s) = log K(s) + log Σ_B P_bin(B) Π_{T spans} φ, with
// P_bin(B) = 1/Cat(n−1) over the binary bracketings: the likelihood that
// model selection compares.
func (m *Model) LogProb(c *Corpus, k int) float64 {
	m.Grow()
	var ch chart
	return m.sentence(c, c.Sentences[k], &ch, nil)
}

// sentence runs the chart of s and returns log P(s) (−Inf when the model
// gives s probability 0); when post is not nil (s's slice of the
// corpus-wide span array) it receives the bracket posteriors of the spans
// of one or more tokens (exactly 1 for single tokens and the whole
// sentence; empty spans are left alone; all 0 for a sentence of
// probability 0).
func (m *Model) sentence(c *Corpus, s Sentence, ch *chart, post []float64) float64 {
	n := s.N
	logK, logScale := m.potentials(c, s, ch)
	if !inside(n, ch) || math.IsInf(logK, 0) || math.IsNaN(logK) {
		return m.logSentence(c, s, ch, post, false)
	}
	z := ch.in[n]
	logP := logK + math.Log(z) - float64(2*n-1)*logScale - bintree.LogCatalan(n-1)
	if post == nil {
		return logP
	}
	outside(n, ch)
	w := n + 1
	for i := 0; i < n; i++ {
		post[i*w+i+1] = 1
		for j := i + 2; j <= n; j++ {
			post[i*w+j] = ch.in[i*w+j] * ch.out[i*w+j] / z
		}
	}
	post[n] = 1
	return logP
}

// logSentence is sentence in log space (logPotentials, logInside,
// logOutside): slower, for the sentences whose scaled chart leaves the
// range of a float64, and for a model's zeros.
func (m *Model) logSentence(c *Corpus, s Sentence, ch *chart, post []float64, floor bool) float64 {
	n, w := s.N, s.N+1
	logK := m.logPotentials(c, s, ch.phi, floor)
	logInside(n, ch.phi, ch.in)
	z := ch.in[n]
	logP := logK + z - bintree.LogCatalan(n-1)
	if post == nil {
		return logP
	}
	if math.IsInf(logP, -1) || math.IsNaN(logP) {
		for i := 0; i < n; i++ {
			clear(post[i*w+i+1 : i*w+n+1])
		}
		return math.Inf(-1)
	}
	logOutside(n, ch.phi, ch.in, ch.out)
	for i := 0; i < n; i++ {
		post[i*w+i+1] = 1
		for j := i + 2; j <= n; j++ {
			post[i*w+j] = math.Exp(ch.in[i*w+j] + ch.out[i*w+j] - z)
		}
	}
	post[n] = 1
	return logP
}

// logPotentials fills lphi with log φ(i,j) for the spans of one or more
// tokens and returns log K(s), both unscaled. A span whose distituent
// factor is 0 must be a constituent: K leaves that factor out, its lphi
// is its constituent factor alone, and every span that crosses it gets
// −Inf, since a binary bracketing holds every span that crosses none of
// its own. With floor, every probability of 0 is read as dmv.Floor (the
// decoders' rule for sentences of probability 0).
func (m *Model) logPotentials(c *Corpus, s Sentence, lphi []float64, floor bool) (logK float64) {
	n, w := s.N, s.N+1
	lg := func(p float64) float64 {
		if floor && p <= 0 {
			p = dmv.Floor
		}
		return math.Log(p)
	}
	var forced [][2]int
	for i := 0; i <= n; i++ {
		for j := i; j <= n; j++ {
			k := s.Span(i, j)
			y, x := c.Yield[k], c.Context[k]
			f := lg(m.Span[Distituent][y]) + lg(m.Context[Distituent][x])
			var t float64
			if m.Classes == nil {
				t = lg(m.Span[Constituent][y]) + lg(m.Context[Constituent][x])
			} else {
				t = lg(m.classFactor(y, x))
			}
			switch {
			case j == i:
				logK += f // an empty span is never a constituent
			case math.IsInf(f, -1):
				lphi[i*w+j] = t
				forced = append(forced, [2]int{i, j})
			default:
				logK += f
				lphi[i*w+j] = t - f
			}
			if m.splitSkew != 0 && j-i > 2 {
				lphi[i*w+j] -= m.splitSkew * math.Log(float64(j-i-1))
			}
		}
	}
	for _, sp := range forced {
		p, q := sp[0], sp[1]
		for i := 0; i < n; i++ {
			for j := i + 1; j <= n; j++ {
				if i < p && p < j && j < q || p < i && i < q && q < j {
					lphi[i*w+j] = math.Inf(-1)
				}
			}
		}
	}
	return logK
}

// logSum is log Σ exp(x) over xs (−Inf when empty or all −Inf): one
// exponential a term.
func logSum(xs []float64) float64 {
	top := math.Inf(-1)
	for _, x := range xs {
		top = max(top, x)
	}
	if math.IsInf(top, 0) {
		return top
	}
	sum := 0.0
	for _, x := range xs {
		sum += math.Exp(x - top)
	}
	return top + math.Log(sum)
}

// logInside is inside in log space: in[i·w+j] = log I(i,j).
func logInside(n int, lphi, in []float64) {
	w := n + 1
	terms := make([]float64, n)
	for i := 0; i < n; i++ {
		in[i*w+i+1] = lphi[i*w+i+1]
	}
	for l := 2; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l
			t := terms[:0]
			for k := i + 1; k < j; k++ {
				t = append(t, in[i*w+k]+in[k*w+j])
			}
			in[i*w+j] = lphi[i*w+j] + logSum(t)
		}
	}
}

// logOutside is outside in log space: out[i·w+j] = log ∂I(0,n)/∂I(i,j),
// gathered from the spans [i,j) is the left part (of [i,m)) or the right
// part (of [h,j)) of.
func logOutside(n int, lphi, in, out []float64) {
	w := n + 1
	terms := make([]float64, 2*n)
	out[n] = 0
	for l := n - 1; l >= 1; l-- {
		for i := 0; i+l <= n; i++ {
			j := i + l
			t := terms[:0]
			for m := j + 1; m <= n; m++ {
				t = append(t, out[i*w+m]+lphi[i*w+m]+in[j*w+m])
			}
			for h := 0; h < i; h++ {
				t = append(t, out[h*w+j]+lphi[h*w+j]+in[h*w+i])
			}
			out[i*w+j] = logSum(t)
		}
	}
}

// Posteriors returns the bracket posteriors of sentence k as a matrix
// p[i][j] for 0 ≤ i < j ≤ n, and log P(s).
func (m *Model) Posteriors(c *Corpus, k int) ([][]float64, float64) {
	m.Grow()
	s := c.Sentences[k]
	var ch chart
	flat := make([]float64, (s.N+1)*(s.N+1))
	logP := m.sentence(c, s, &ch, flat)
	return unflatten(flat, s.N), logP
}

func unflatten(flat []float64, n int) [][]float64 {
	p := make([][]float64, n+1)
	for i := range p {
		p[i] = flat[i*(n+1) : (i+1)*(n+1)]
	}
	return p
}

// Factors are the CCM's share of a sentence's score for a product model
// (DMV+CCM): Phi[i·(n+1)+j] = φ(i,j)·2^Shift for the spans of one or more
// tokens, and LogK = log K(s). Every binary bracketing has 2n − 1
// constituents, so log P_CCM(s, B) = LogK − log Cat(n−1) + Σ_{T} log
// Phi − (2n−1)·Shift·ln 2.
type Factors struct {
	Phi   []float64
	LogK  float64
	Shift float64 // in nats: the log of the scale
}

// SpanFactors returns the factors of sentence k.
func (m *Model) SpanFactors(c *Corpus, k int) Factors {
	m.Grow()
	var ch chart
	logK, logScale := m.potentials(c, c.Sentences[k], &ch)
	return Factors{Phi: ch.phi, LogK: logK, Shift: logScale}
}

// LogFactors are sentence k's factors in log space, unscaled: log φ(i,j)
// at [i·(n+1)+j] for the spans of one or more tokens (a span whose
// distituent probability is 0 as logPotentials has it) and log K(s);
// with floor, every probability of 0 read as dmv.Floor. For a product
// model's decoder when the scaled factors leave floating point or give
// every bracketing probability 0.
func (m *Model) LogFactors(c *Corpus, k int, floor bool) ([]float64, float64) {
	m.Grow()
	s := c.Sentences[k]
	lphi := make([]float64, (s.N+1)*(s.N+1))
	logK := m.logPotentials(c, s, lphi, floor)
	return lphi, logK
}

// FactorBuffer is the reusable memory of SpanFactorsTo (one per goroutine).
type FactorBuffer struct{ ch chart }

// SpanFactorsTo is SpanFactors with Phi in buf's memory, valid until its
// next use. Call Grow first when sharing the model between goroutines.
func (m *Model) SpanFactorsTo(c *Corpus, k int, buf *FactorBuffer) Factors {
	m.Grow()
	logK, logScale := m.potentials(c, c.Sentences[k], &buf.ch)
	return Factors{Phi: buf.ch.phi, LogK: logK, Shift: logScale}
}
