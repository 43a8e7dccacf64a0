package hmm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Sampler is a collapsed pointwise Gibbs sampler for the Bayesian bitag
// HMM (Goldwater & Griffiths 2007; Johnson 2007): the parameters are
// integrated out under symmetric Dirichlet priors (AlphaT on transition
// rows, AlphaE on emission rows), and each token's state is resampled
// given every other state. It keeps the counts plus their prior, so that
// one candidate state costs a few multiplications.
type Sampler struct {
	corpus         *Corpus
	space          *Space
	alphaT, alphaE float64
	Tags           [][]int32
	rng            *rand.Rand
	src            *rand.PCG // rng's state, for checkpoints
	prior          []float64 // em before any count: what GibbsState's sparse em is relative to

	em      []float64 // V×K: n(w,t) + αE (0 where the dictionary forbids)
	tr      []float64 // (K+1)×(K+1): n(prev,next) + αT, row K = start, column K = stop
	trT     []float64 // tr transposed, for the column of the next state
	emDen   []float64 // K: n(t) + |support of t|·αE
	trDen   []float64 // K+1: n(prev) + |row support|·αT
	emInv   []float64 // 1/emDen and 1/trDen, kept up to date so that the
	trInv   []float64 // inner loop multiplies instead of dividing
	choices [][]int32 // per word: the states it may take
	probs   []float64
}

// NewSampler starts a sampler from states drawn uniformly (among those the
// dictionary allows) with the seeded generator.
func NewSampler(c *Corpus, s *Space, alphaT, alphaE float64, seed uint64) (*Sampler, error) {
	if s.Order != 1 {
		return nil, errors.New("the Gibbs sampler is written for the bitag HMM (order 1)")
	}
	if !(alphaT > 0) || !(alphaE > 0) {
		return nil, errors.New("the Gibbs sampler needs Dirichlet hyperparameters > 0")
	}
	k, k1 := s.K, s.K+1
	src := rand.NewPCG(seed, 0x2545f4914f6cdd1d)
	g := &Sampler{corpus: c, space: s, alphaT: alphaT, alphaE: alphaE,
		rng: rand.New(src), src: src,
		em:    make([]float64, s.V*k),
		tr:    make([]float64, k1*k1),
		trT:   make([]float64, k1*k1),
		emDen: make([]float64, k),
		trDen: make([]float64, k1),
		emInv: make([]float64, k),
		trInv: make([]float64, k1),
		probs: make([]float64, k),
	}
	g.choices = make([][]int32, s.V)
	all := make([]int32, k)
	for t := range all {
		all[t] = int32(t)
	}
	for w := 0; w < s.V; w++ {
		if s.Allowed == nil {
			g.choices[w] = all
			continue
		}
		for t := 0; t < k; t++ {
			if s.Allowed[w*k+t] {
				g.choices[w] = append(g.choices[w], int32(t))
				g.em[w*k+t] = alphaE
				g.emDen[t] += alphaE
			}
		}
		if len(g.choices[w]) == 0 {
			return nil, errors.New("the dictionary allows no state for some word")
		}
	}
	if s.Allowed == nil {
		for i := range g.em {
			g.em[i] = alphaE
		}
		for t := range g.emDen {
			g.emDen[t] = float64(s.V) * alphaE
		}
	}
	for p := 0; p <= k; p++ {
		for q := 0; q <= k; q++ {
			if s.transSupported(s.Context(0, p), q) {
				g.tr[p*k1+q] = alphaT
				g.trT[q*k1+p] = alphaT
				g.trDen[p] += alphaT
			}
		}
	}
	for t := range g.emInv {
		g.emInv[t] = 1 / g.emDen[t]
	}
	for p := range g.trInv {
		g.trInv[p] = 1 / g.trDen[p]
	}
	g.prior = append([]float64(nil), g.em...)
	g.Tags = make([][]int32, len(c.Sents))
	for i, sent := range c.Sents {
		tags := make([]int32, len(sent))
		for j, w := range sent {
			ch := g.choices[w]
			tags[j] = ch[g.rng.IntN(len(ch))]
		}
		g.Tags[i] = tags
		g.addSentence(i, 1)
	}
	return g, nil
}

// Start puts the sampler in the states tags instead of its random start
// (a state its word may not take, which only a fallback decoding gives,
// keeps the random one).
func (g *Sampler) Start(tags [][]int) {
	for i, t := range tags {
		g.addSentence(i, -1)
		for j, x := range t {
			if slices.Contains(g.choices[g.corpus.Sents[i][j]], int32(x)) {
				g.Tags[i][j] = int32(x)
			}
		}
		g.addSentence(i, 1)
	}
}

// GibbsState is a sampler between two sweeps, exactly: its states, its
// generator and its count tables as they are (counts updated by ±1 in
// floating point are not always what adding them up again gives, so they
// are stored, not recomputed): the emission table as the cells that
// differ from the prior, the transition table and both denominators
// whole; the transposed table and the reciprocals follow from them.
type GibbsState struct {
	Tags      [][]int32 `json:"tags"`
	RNG       []byte    `json:"rng"`
	EmitCells []int32   `json:"emit_cells"`
	EmitCount []float64 `json:"emit_count"`
	Trans     []float64 `json:"trans"`
	EmitDen   []float64 `json:"emit_den"`
	TransDen  []float64 `json:"trans_den"`
}

// State is the sampler's state (copied).
func (g *Sampler) State() (GibbsState, error) {
	rng, err := g.src.MarshalBinary()
	if err != nil {
		return GibbsState{}, err
	}
	st := GibbsState{RNG: rng, Trans: slices.Clone(g.tr), EmitDen: slices.Clone(g.emDen), TransDen: slices.Clone(g.trDen)}
	st.Tags = make([][]int32, len(g.Tags))
	for i, t := range g.Tags {
		st.Tags[i] = slices.Clone(t)
	}
	for i, v := range g.em {
		if math.Float64bits(v) != math.Float64bits(g.prior[i]) {
			st.EmitCells = append(st.EmitCells, int32(i))
			st.EmitCount = append(st.EmitCount, v)
		}
	}
	return st, nil
}

// Restore puts the sampler in state st, which a sampler of the same
// corpus, space and hyperparameters saved.
func (g *Sampler) Restore(st GibbsState) error {
	k1 := g.space.K + 1
	if len(st.Tags) != len(g.Tags) || len(st.Trans) != len(g.tr) || len(st.EmitDen) != len(g.emDen) || len(st.TransDen) != len(g.trDen) || len(st.EmitCells) != len(st.EmitCount) {
		return errors.New("not the state of a sampler of this corpus and model size")
	}
	for i, t := range st.Tags {
		if len(t) != len(g.Tags[i]) {
			return errors.New("not the state of a sampler of this corpus")
		}
	}
	for i, t := range st.Tags {
		for j, x := range t {
			if !slices.Contains(g.choices[g.corpus.Sents[i][j]], x) {
				return fmt.Errorf("sentence %d, token %d: state %d, which its word may not take (or out of 0…%d)", i+1, j+1, x, g.space.K-1)
			}
		}
	}
	if err := g.src.UnmarshalBinary(st.RNG); err != nil {
		return err
	}
	// The tables must be the counts of the states (plus the prior), up to
	// the rounding of counts moved by ±1; kept as stored, so that a
	// resumed run samples exactly as the killed one would have.
	copy(g.em, g.prior)
	clear(g.tr)
	clear(g.trT)
	clear(g.trDen)
	for t := range g.emDen {
		g.emDen[t] = 0
		for w := 0; w < g.space.V; w++ {
			g.emDen[t] += g.prior[w*g.space.K+t]
		}
	}
	for p := 0; p < k1; p++ {
		for q := 0; q < k1; q++ {
			if g.space.transSupported(g.space.Context(0, p), q) {
				g.addTrans(p, q, g.alphaT)
			}
		}
	}
	for i, t := range st.Tags {
		g.Tags[i] = slices.Clone(t)
		g.addSentence(i, 1)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(a)) }
	em := slices.Clone(g.prior)
	for j, i := range st.EmitCells {
		if int(i) < 0 || int(i) >= len(g.em) {
			return errors.New("an emission cell out of range")
		}
		em[i] = st.EmitCount[j]
	}
	for i := range em {
		if !near(g.em[i], em[i]) {
			return fmt.Errorf("the emission table is not the count of the states (word %d, state %d: %v, the states give %v)", i/g.space.K+1, i%g.space.K, em[i], g.em[i])
		}
	}
	for i := range st.Trans {
		if !near(g.tr[i], st.Trans[i]) {
			return fmt.Errorf("the transition table is not the count of the states (%d → %d: %v, the states give %v)", i/k1, i%k1, st.Trans[i], g.tr[i])
		}
	}
	for t := range st.EmitDen {
		if !near(g.emDen[t], st.EmitDen[t]) {
			return fmt.Errorf("the emission total of state %d is %v, the states give %v", t, st.EmitDen[t], g.emDen[t])
		}
	}
	for p := range st.TransDen {
		if !near(g.trDen[p], st.TransDen[p]) {
			return fmt.Errorf("the transition total of %d is %v, the states give %v", p, st.TransDen[p], g.trDen[p])
		}
	}
	copy(g.em, em)
	copy(g.tr, st.Trans)
	for p := 0; p < k1; p++ {
		for q := 0; q < k1; q++ {
			g.trT[q*k1+p] = g.tr[p*k1+q]
		}
	}
	copy(g.emDen, st.EmitDen)
	copy(g.trDen, st.TransDen)
	for t := range g.emInv {
		g.emInv[t] = 1 / g.emDen[t]
	}
	for p := range g.trInv {
		g.trInv[p] = 1 / g.trDen[p]
	}
	return nil
}

func (g *Sampler) addTrans(p, q int, d float64) {
	k1 := g.space.K + 1
	g.tr[p*k1+q] += d
	g.trT[q*k1+p] += d
	g.trDen[p] += d
	g.trInv[p] = 1 / g.trDen[p]
}

func (g *Sampler) addEmit(w, t int, d float64) {
	g.em[w*g.space.K+t] += d
	g.emDen[t] += d
	g.emInv[t] = 1 / g.emDen[t]
}

func (g *Sampler) addSentence(i int, d float64) {
	k := g.space.K
	prev := k
	for j, w := range g.corpus.Sents[i] {
		t := int(g.Tags[i][j])
		g.addEmit(int(w), t, d)
		g.addTrans(prev, t, d)
		prev = t
	}
	g.addTrans(prev, k, d)
}

// Sweep resamples every token once, in corpus order. temp is the
// temperature: each conditional is raised to 1/temp (1 samples the
// posterior; above 1 flattens it, for annealing).
func (g *Sampler) Sweep(temp float64) {
	k, k1 := g.space.K, g.space.K+1
	power := 1 / temp
	for i, sent := range g.corpus.Sents {
		tags := g.Tags[i]
		n := len(sent)
		for j, w := range sent {
			p, q := k, k
			if j > 0 {
				p = int(tags[j-1])
			}
			if j < n-1 {
				q = int(tags[j+1])
			}
			old := int(tags[j])
			wk := int(w) * k
			g.addEmit(int(w), old, -1)
			g.addTrans(p, old, -1)
			g.addTrans(old, q, -1)
			choices := g.choices[w]
			probs := g.probs[:len(choices)]
			total := 0.0
			rowP, colQ := g.tr[p*k1:p*k1+k1], g.trT[q*k1:q*k1+k1]
			for c, t32 := range choices {
				t := int(t32)
				// p(w|t) · p(t|p) · p(q|t), with p(t|p)'s denominator common to
				// all t; when p = t the first transition is already counted in
				// the second's row (and in its numerator when also t = q).
				var x float64
				if t != p {
					x = g.em[wk+t] * g.emInv[t] * rowP[t] * colQ[t] * g.trInv[t]
				} else {
					num := colQ[t]
					if t == q {
						num++
					}
					x = g.em[wk+t] * g.emInv[t] * rowP[t] * num / (g.trDen[t] + 1)
				}
				if power != 1 {
					x = math.Pow(x, power)
				}
				total += x
				probs[c] = total
			}
			u := g.rng.Float64() * total
			c := 0
			for c < len(probs)-1 && probs[c] <= u {
				c++
			}
			t := int(choices[c])
			tags[j] = int32(t)
			g.addEmit(int(w), t, 1)
			g.addTrans(p, t, 1)
			g.addTrans(t, q, 1)
		}
	}
}

// LogJoint is log P(states, words) with the parameters integrated out:
// the product over rows of Dirichlet-multinomial marginals.
func (g *Sampler) LogJoint() float64 {
	return CollapsedLogJoint(g.space, CountsOf(g.corpus, g.space, g.Tags), g.alphaT, g.alphaE)
}

// CountsOf is the table of transition and emission counts of a tagging.
func CountsOf(c *Corpus, s *Space, tags [][]int32) *Params {
	p := NewParams(s)
	k, k1 := s.K, s.K+1
	for i, sent := range c.Sents {
		prev2, prev1 := k, k
		for j, w := range sent {
			t := int(tags[i][j])
			p.Trans[s.Context(prev2, prev1)*k1+t]++
			p.Emit[int(w)*k+t]++
			prev2, prev1 = prev1, t
		}
		p.Trans[s.Context(prev2, prev1)*k1+k]++
	}
	return p
}

// CollapsedLogJoint is Σ over rows of log Γ(Σα)/Γ(Σα + N) · Π Γ(α + n)/Γ(α),
// the probability of counts under Dirichlet priors with the multinomials
// integrated out.
func CollapsedLogJoint(s *Space, counts *Params, alphaT, alphaE float64) float64 {
	lj := 0.0
	s.eachRow(counts, alphaT, alphaE, func(row []float64, support []bool, alpha float64) {
		m, total := 0, 0.0
		lgA, _ := math.Lgamma(alpha)
		for i, n := range row {
			if support != nil && !support[i] {
				continue
			}
			m++
			total += n
			if n > 0 {
				l, _ := math.Lgamma(alpha + n)
				lj += l - lgA
			}
		}
		a, _ := math.Lgamma(float64(m) * alpha)
		b, _ := math.Lgamma(float64(m)*alpha + total)
		lj += a - b
	})
	return lj
}
