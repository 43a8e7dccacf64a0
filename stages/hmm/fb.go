package hmm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/floats"
)

// dense is gonum's BLAS: without a dictionary every state is live at
// every position, and one matrix–vector product or rank-1 update per
// token (register-blocked over four rows) is ~2× faster than K calls of
// a vector kernel (bench/floor).
var dense gonum.Implementation

// Accum receives the expected counts of forward–backward. Emit has K
// entries per row, and token j of the sentence adds to row rows[j] — its
// word's own row in a dense table, or a chunk-local row (EStepper).
//
// Trans, laid out as Params.Trans, holds the counts divided by their
// weight until FinishTrans multiplies it in: the expected count of a
// transition is its weight A times Σ over positions of α̂·E·β̂/c, and A
// is the same at every position of every sentence of an E-step, so the
// inner loops only add outer products (two vector kernels, no fused
// loop) and the multiplication is done once.
type Accum struct {
	Trans []float64
	Emit  []float64

	// padded is where the vector kernel (fbvec.go) sums the transitions
	// to the K states: a row of kp numbers (K padded to a multiple of 8,
	// so that each row is whole vectors) for each previous state (bitag)
	// or pair (c, a) of previous states, c ≤ K and a < K (trigram).
	// FinishTrans adds it to Trans.
	padded []float64
}

// FinishTrans multiplies the transition weights p (those forward–backward
// ran on) into the accumulated sums, making them expected counts. Call it
// once, after the last sentence.
func (a *Accum) FinishTrans(p *Params) {
	if a.padded != nil {
		k, k1 := p.K, p.K+1
		rows := k // the previous state (bitag) or the previous two (c, a), a < K
		if p.Order == 2 {
			rows = k1 * k
		}
		kp := len(a.padded) / rows
		for r := 0; r < rows; r++ {
			ctx := r
			if p.Order == 2 {
				ctx = r/k*k1 + r%k
			}
			floats.Add(a.Trans[ctx*k1:ctx*k1+k], a.padded[r*kp:r*kp+k])
		}
		clear(a.padded)
	}
	for i, w := range p.Trans {
		a.Trans[i] *= w
	}
}

// FB is forward–backward's workspace for one goroutine. The forward
// pass keeps each position's scaled vector and scale; the backward pass
// needs only two vectors.
type FB struct {
	alpha, scale, beta, prev, u []float64
	back                        []int32
	stop                        float64   // the last forward vector's mass on stop
	col                         []float64 // the trigram vector kernel's column of a pair table
}

func (fb *FB) grow(n, width int) {
	if cap(fb.alpha) < n*width {
		fb.alpha = make([]float64, n*width)
		fb.back = make([]int32, n*width)
	}
	if cap(fb.scale) < n {
		fb.scale = make([]float64, n)
	}
	if cap(fb.beta) < width {
		fb.beta, fb.prev, fb.u = make([]float64, width), make([]float64, width), make([]float64, width)
	}
	fb.alpha, fb.back, fb.scale = fb.alpha[:n*width], fb.back[:n*width], fb.scale[:n]
	fb.beta, fb.prev, fb.u = fb.beta[:width], fb.prev[:width], fb.u[:width]
}

// width is the size of one position's forward vector: K states (bitag)
// or (K+1)·K pairs (previous state or boundary, state) for a trigram.
func width(s *Space) int {
	if s.Order == 1 {
		return s.K
	}
	return (s.K + 1) * s.K
}

// Sentence runs forward–backward on one sentence under the weights p
// (probabilities, or annealed or variational weights) and returns
// log Z = log Σ_y Π weights, natural log, −Inf when every tagging has
// weight 0. When acc is not nil the posterior expected counts are added
// to it (emissions at rows[j]); when gamma is not nil (n·K) it receives
// each token's state posteriors. Each position's forward vector is
// rescaled to sum to 1, so no sentence underflows.
func (fb *FB) Sentence(p *Params, words []int32, acc *Accum, rows []int32, gamma []float64) float64 {
	return fb.sentence(p, nil, words, acc, rows, gamma)
}

// sentence is Sentence, on the vector kernel (fbvec.go) when d, p's
// dense layout, is not nil.
func (fb *FB) sentence(p *Params, d *denseModel, words []int32, acc *Accum, rows []int32, gamma []float64) float64 {
	n := len(words)
	if n == 0 {
		return math.Inf(-1)
	}
	var logZ float64
	switch {
	case d != nil:
		fb.grow(n, d.width())
		if cap(fb.col) < d.k+1+d.cp {
			fb.col = make([]float64, d.k+1+d.cp)
		}
		if d.order == 1 {
			logZ = fb.forwardDense(p, d, words)
		} else {
			logZ = fb.forwardDense2(p, d, words)
		}
	case p.Order == 1:
		fb.grow(n, p.K)
		logZ = fb.forward1(p, words)
	default:
		fb.grow(n, width(p.Space))
		logZ = fb.forward2(p, words)
	}
	if math.IsInf(logZ, -1) || (acc == nil && gamma == nil) {
		return logZ
	}
	switch {
	case d != nil && d.order == 1:
		fb.backwardDense(p, d, words, acc, rows, gamma)
	case d != nil:
		fb.backwardDense2(p, d, words, acc, rows, gamma)
	case p.Order == 1:
		fb.backward1(p, words, acc, rows, gamma)
	default:
		fb.backward2(p, words, acc, rows, gamma)
	}
	return logZ
}

// forward1 is the bitag forward pass; it returns Σ log scale + log(stop
// mass) and leaves the stop mass in fb.stop for the backward pass.
func (fb *FB) forward1(p *Params, words []int32) float64 {
	k, k1 := p.K, p.K+1
	n := len(words)
	logZ, ok := fb.first1(p, words[0], fb.alpha[:k])
	if !ok {
		return math.Inf(-1)
	}
	for i := 1; i < n; i++ {
		prev := fb.alpha[(i-1)*k : i*k]
		cur := fb.alpha[i*k : (i+1)*k]
		if p.choices == nil {
			// cur = Aᵀ·prev over the K×K block of the transitions.
			dense.Dgemv(blas.Trans, k, k, 1, p.Trans, k1, prev, 1, 0, cur, 1)
		} else {
			clear(cur)
			for q, v := range prev {
				if v != 0 {
					floats.AddScaled(cur, v, p.Trans[q*k1:q*k1+k])
				}
			}
		}
		e := p.emitRow(words[i])
		e = e[:len(cur)] // one bounds check for the loop
		s := 0.0
		for t := range cur {
			cur[t] *= e[t]
			s += cur[t]
		}
		if !fb.rescale(cur, s, i) {
			return math.Inf(-1)
		}
		logZ += math.Log(s)
	}
	return fb.last1(p, fb.alpha[(n-1)*k:n*k], logZ)
}

// emitRow is the K emission weights of word w.
func (p *Params) emitRow(w int32) []float64 { return p.Emit[int(w)*p.K : int(w)*p.K+p.K] }

// first1 sets a (K states) to the bitag forward vector of the first
// token, word w, rescaled, and returns the log of its scale; false when
// its mass is 0 (or not finite).
func (fb *FB) first1(p *Params, w int32, a []float64) (float64, bool) {
	sc := p.StartContext() * (p.K + 1)
	start, e := p.Trans[sc:sc+len(a)], p.emitRow(w)[:len(a)]
	s := 0.0
	for t := range a {
		a[t] = start[t] * e[t]
		s += a[t]
	}
	if !fb.rescale(a, s, 0) {
		return 0, false
	}
	return math.Log(s), true
}

// last1 ends the bitag forward pass at the last forward vector (K
// states): it leaves the mass on stop in fb.stop and returns logZ plus its
// log, −Inf when it is 0.
func (fb *FB) last1(p *Params, last []float64, logZ float64) float64 {
	k1 := p.K + 1
	stop := 0.0
	for q, v := range last {
		stop += v * p.Trans[q*k1+p.K]
	}
	if !(stop > 0) {
		return math.Inf(-1)
	}
	fb.stop = stop
	return logZ + math.Log(stop)
}

// usable says whether a forward vector's mass s can scale it: a positive
// finite number.
func usable(s float64) bool { return s > 0 && !math.IsInf(s, 1) }

func (fb *FB) rescale(a []float64, s float64, i int) bool {
	if !usable(s) {
		return false
	}
	inv := 1 / s
	for t := range a {
		a[t] *= inv
	}
	fb.scale[i] = s
	return true
}

// backward1 runs the bitag backward pass fused with the counts: for each
// previous state q one sweep over the row gives both β(q) and the
// expected transition counts ξ(q, t) = α̂(q)·A(q,t)·E(t)·β̂(t)/c.
func (fb *FB) backward1(p *Params, words []int32, acc *Accum, rows []int32, gamma []float64) {
	k, k1 := p.K, p.K+1
	n := len(words)
	beta := fb.beta[:k]
	fb.stop1(p, fb.alpha[(n-1)*k:n*k], beta, acc)
	u, prevBeta := fb.u[:k], fb.prev[:k]
	for i := n - 1; i >= 0; i-- {
		fb.posterior(fb.alpha[i*k:(i+1)*k], beta, acc, rows, i, gamma, k)
		e, b := p.emitRow(words[i])[:len(u)], beta[:len(u)] // one bounds check each for the loop
		c := 1 / fb.scale[i]
		for t := range u {
			u[t] = e[t] * b[t] * c
		}
		if i == 0 {
			if acc != nil {
				floats.Add(acc.Trans[p.StartContext()*k1:p.StartContext()*k1+k], u)
			}
			break
		}
		prev := fb.alpha[(i-1)*k : i*k]
		if p.choices == nil {
			dense.Dgemv(blas.NoTrans, k, k, 1, p.Trans, k1, u, 1, 0, prevBeta, 1)
			if acc != nil {
				dense.Dger(k, k, 1, prev, 1, u, 1, acc.Trans, k1)
			}
			beta, prevBeta = prevBeta, beta
			continue
		}
		for q, v := range prev {
			if v == 0 {
				// β only ever meets α in a product: where the forward
				// mass is 0 it is not needed (and with a dictionary most is).
				prevBeta[q] = 0
				continue
			}
			prevBeta[q] = floats.Dot(p.Trans[q*k1:q*k1+k], u)
			if acc != nil {
				floats.AddScaled(acc.Trans[q*k1:q*k1+k], v, u)
			}
		}
		beta, prevBeta = prevBeta, beta
	}
}

// stop1 starts the bitag backward pass from the last forward vector (K
// states): β̂ of each state is its stop weight over the stop mass, and the
// stop counts are added to acc (when not nil).
func (fb *FB) stop1(p *Params, last, beta []float64, acc *Accum) {
	k1 := p.K + 1
	inv := 1 / fb.stop
	for q := range beta {
		beta[q] = p.Trans[q*k1+p.K] * inv
		if acc != nil {
			acc.Trans[q*k1+p.K] += last[q] * inv
		}
	}
}

// posterior adds position i's state posteriors α̂·β̂ (bitag: vectors of
// k states) to the emission counts and to gamma.
func (fb *FB) posterior(a, beta []float64, acc *Accum, rows []int32, i int, gamma []float64, k int) {
	fb.posteriorRows(a, beta, oneBlock, acc, rows, i, gamma, k)
}

var oneBlock = []int32{0}

// posteriorRows is posterior over the listed rows of pairs (trigram): the
// state posterior is the sum over the previous state.
func (fb *FB) posteriorRows(a, beta []float64, blocks []int32, acc *Accum, rows []int32, i int, gamma []float64, k int) {
	erow, g := posteriorsOf(acc, rows, gamma, i, k)
	clear(g)
	for _, blk := range blocks {
		j := int(blk) * k
		aa, bb := a[j:j+k], beta[j:j+k]
		if erow != nil {
			erow, bb := erow[:len(aa)], bb[:len(aa)]
			for t, x := range aa {
				erow[t] += x * bb[t]
			}
		}
		if g != nil {
			g, bb := g[:len(aa)], bb[:len(aa)]
			for t, x := range aa {
				g[t] += x * bb[t]
			}
		}
	}
}

// posteriorsOf is where token i's state posteriors go: its row of
// emission counts in acc and its row of gamma, each nil when acc or gamma
// is.
func posteriorsOf(acc *Accum, rows []int32, gamma []float64, i, k int) (erow, g []float64) {
	if acc != nil {
		r := int(rows[i])
		erow = acc.Emit[r*k : r*k+k]
	}
	if gamma != nil {
		g = gamma[i*k : i*k+k]
	}
	return erow, g
}

// forward2 is the trigram forward pass over pairs (a, b): a the previous
// state or the boundary K, b the current state; entry a·K + b. Only the
// rows of states the tokens may take (all, or the dictionary's) are
// computed and ever read, so a dictionary makes it fast.
func (fb *FB) forward2(p *Params, words []int32) float64 {
	k, k1 := p.K, p.K+1
	wd := k1 * k
	n := len(words)
	logZ, ok := fb.first1(p, words[0], fb.alpha[k*k:k*k+k]) // the row of the boundary
	if !ok {
		return math.Inf(-1)
	}
	for i := 1; i < n; i++ {
		prev := fb.alpha[(i-1)*wd : i*wd]
		cur := fb.alpha[i*wd : (i+1)*wd]
		as, cs := p.statesAt(words, i-1), p.statesAt(words, i-2)
		for _, a := range as {
			clear(cur[int(a)*k : int(a)*k+k])
		}
		for _, c := range cs {
			for _, a := range as {
				if v := prev[int(c)*k+int(a)]; v != 0 {
					r := (int(c)*k1 + int(a)) * k1
					floats.AddScaled(cur[int(a)*k:int(a)*k+k], v, p.Trans[r:r+k])
				}
			}
		}
		e := p.emitRow(words[i])
		s := 0.0
		for _, a := range as {
			dst := cur[int(a)*k : int(a)*k+k]
			for b := range dst {
				dst[b] *= e[b]
				s += dst[b]
			}
		}
		if !fb.rescaleRows(cur, as, k, s, i) {
			return math.Inf(-1)
		}
		logZ += math.Log(s)
	}
	return fb.last2(p, words, fb.alpha[(n-1)*wd:n*wd], k, logZ)
}

// last2 is last1 for a trigram: last holds the pairs (a, b) of the last
// two tokens' states, row a of stride numbers.
func (fb *FB) last2(p *Params, words []int32, last []float64, stride int, logZ float64) float64 {
	k1, n := p.K+1, len(words)
	stop := 0.0
	for _, c := range p.statesAt(words, n-2) {
		for _, a := range p.statesAt(words, n-1) {
			stop += last[int(c)*stride+int(a)] * p.Trans[(int(c)*k1+int(a))*k1+p.K]
		}
	}
	if !(stop > 0) {
		return math.Inf(-1)
	}
	fb.stop = stop
	return logZ + math.Log(stop)
}

// stop2 is stop1 for a trigram (rows of stride numbers, as last2).
func (fb *FB) stop2(p *Params, words []int32, last, beta []float64, stride int, acc *Accum) {
	k1, n := p.K+1, len(words)
	inv := 1 / fb.stop
	for _, c := range p.statesAt(words, n-2) {
		for _, a := range p.statesAt(words, n-1) {
			j, r := int(c)*stride+int(a), (int(c)*k1+int(a))*k1
			beta[j] = p.Trans[r+p.K] * inv
			if acc != nil {
				acc.Trans[r+p.K] += last[j] * inv
			}
		}
	}
}

// rescaleRows is rescale over the rows (blocks of k) listed.
func (fb *FB) rescaleRows(a []float64, rows []int32, k int, s float64, i int) bool {
	if !usable(s) {
		return false
	}
	inv := 1 / s
	for _, r := range rows {
		floats.Scale(inv, a[int(r)*k:int(r)*k+k])
	}
	fb.scale[i] = s
	return true
}

func (fb *FB) backward2(p *Params, words []int32, acc *Accum, rows []int32, gamma []float64) {
	k, k1 := p.K, p.K+1
	wd := k1 * k
	n := len(words)
	beta, prevBeta, u := fb.beta[:wd], fb.prev[:wd], fb.u[:wd]
	fb.stop2(p, words, fb.alpha[(n-1)*wd:n*wd], beta, k, acc)
	for i := n - 1; i >= 0; i-- {
		as := p.statesAt(words, i-1)
		fb.posteriorRows(fb.alpha[i*wd:(i+1)*wd], beta, as, acc, rows, i, gamma, k)
		e := p.emitRow(words[i])
		cs := 1 / fb.scale[i]
		if i == 0 {
			if acc != nil {
				sc := p.StartContext() * k1
				for b := 0; b < k; b++ {
					acc.Trans[sc+b] += e[b] * beta[k*k+b] * cs
				}
			}
			break
		}
		// β is finite wherever it was last written, and e is 0 for the
		// states a token may not take, so u is 0 there.
		for _, a := range as {
			for b := 0; b < k; b++ {
				u[int(a)*k+b] = e[b] * beta[int(a)*k+b] * cs
			}
		}
		prev := fb.alpha[(i-1)*wd : i*wd]
		for _, c := range p.statesAt(words, i-2) {
			for _, a := range as {
				j := int(c)*k + int(a)
				v := prev[j]
				if v == 0 {
					prevBeta[j] = 0 // not needed, as in backward1
					continue
				}
				r := (int(c)*k1 + int(a)) * k1
				ua := u[int(a)*k : int(a)*k+k]
				prevBeta[j] = floats.Dot(p.Trans[r:r+k], ua)
				if acc != nil {
					floats.AddScaled(acc.Trans[r:r+k], v, ua)
				}
			}
		}
		beta, prevBeta = prevBeta, beta
	}
}
