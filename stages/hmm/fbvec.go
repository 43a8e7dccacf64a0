package hmm

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/grind-nlp/grind/internal/vec8"
)

// Where this build has a vector kernel that this machine runs (AVX-512),
// the E-step's forward–backward of an HMM without a dictionary — every
// state live at every token — runs its per-token steps over the states 8
// at a time: the K states padded with 0s to kp, a multiple of 8, each
// forward step cur = Aᵀ·prev and backward step β' = A·u a run of
// multiply-adds of a broadcast weight and a row (of A for the forward
// step, of Aᵀ for the backward one, so that neither needs a horizontal
// sum), and the transition counts a rank-1 update of the same kind. A
// trigram does the same for each previous state a: its pairs (c, a) are
// the rows, Aᵀ's rows run over c. The arithmetic is the scalar path's up
// to summation order and fused multiply-adds (counts within 1e-12
// relative, TestDenseKernelMatches); the chunks being fixed, the E-step
// still gives the same bytes for any number of workers. Elsewhere (a
// build without GOEXPERIMENT=simd, a CPU without AVX-512, a dictionary)
// forward–backward is fb.go's.

// kernel is the dense kernel in use, or "" for fb.go's alone (tests and
// benchmarks set it to compare the two): the AVX-512 one where there is
// one (vec8.Native), else none. The plain-Go vectors of a build without
// GOEXPERIMENT=simd would be slower than gonum's BLAS, so they run only
// in tests, which check the kernel's arithmetic in every build.
var kernel = vec8.Native()

// Kernel names the E-step's forward–backward kernel of this binary on
// this machine, for --version: "avx512" (GOEXPERIMENT=simd on amd64 with
// AVX-512) or "scalar" (gonum's BLAS and vector kernels, fb.go).
func Kernel() string {
	if kernel == "" {
		return "scalar"
	}
	return kernel
}

// denseModel is a model's transitions to the K states laid out for the
// vector kernel, rows padded with 0s to a multiple of 8 numbers.
type denseModel struct {
	order, k int
	kp, cp   int       // a's rows (K padded), at's (K, or K+1 for a trigram, padded)
	a        []float64 // bitag a[q·kp+t] = A(q, t); trigram a[(c·K+q)·kp+t] = A(c, q, t)
	at       []float64 // bitag at[t·kp+q] = A(q, t); trigram at[(q·K+t)·cp+c] = A(c, q, t)
}

// padTo is n rounded up to whole vectors.
func padTo(n int) int { return (n + 7) / 8 * 8 }

// load lays out p's transitions, reusing d's tables when the shape is
// the same (their padding stays 0). In a trigram c runs over the states
// and the boundary K, q and t over the states.
func (d *denseModel) load(p *Params) {
	k, k1 := p.K, p.K+1
	if d.k != k || d.order != p.Order {
		d.order, d.k, d.kp, d.cp = p.Order, k, padTo(k), padTo(k)
		rows, atRows := k, k
		if p.Order == 2 {
			d.cp, rows, atRows = padTo(k1), k1*k, k*k
		}
		d.a, d.at = make([]float64, rows*d.kp), make([]float64, atRows*d.cp)
	}
	kp, cp := d.kp, d.cp
	if p.Order == 1 {
		for q := 0; q < k; q++ {
			for t, w := range p.Trans[q*k1 : q*k1+k] {
				d.a[q*kp+t] = w
				d.at[t*kp+q] = w
			}
		}
		return
	}
	for c := 0; c < k1; c++ {
		for q := 0; q < k; q++ {
			r := (c*k1 + q) * k1
			for t, w := range p.Trans[r : r+k] {
				d.a[(c*k+q)*kp+t] = w
				d.at[(q*k+t)*cp+c] = w
			}
		}
	}
}

// denseFor is the dense layout of p when the E-step runs the vector
// kernel on it (kept in d), else nil.
func denseFor(p *Params, d *denseModel) *denseModel {
	if kernel == "" || p.choices != nil {
		return nil
	}
	d.load(p)
	return d
}

// width is the numbers of one position's forward vector on the dense
// layout: kp, or K+1 rows of kp for a trigram.
func (d *denseModel) width() int {
	if d.order == 1 {
		return d.kp
	}
	return (d.k + 1) * d.kp
}

// forwardDense is forward1 on the dense layout: each forward vector kp
// numbers, its padding 0.
func (fb *FB) forwardDense(p *Params, d *denseModel, words []int32) float64 {
	k, kp := d.k, d.kp
	n := len(words)
	a := fb.alpha[:kp]
	clear(a[k:])
	logZ, ok := fb.first1(p, words[0], a[:k])
	if !ok {
		return math.Inf(-1)
	}
	for i := 1; i < n; i++ {
		cur := fb.alpha[i*kp : (i+1)*kp]
		combine(cur, fb.alpha[(i-1)*kp:(i-1)*kp+k], d.a, kp)
		s := mulSum(cur, p.emitRow(words[i]))
		if !usable(s) {
			return math.Inf(-1)
		}
		scaleBy(cur, 1/s)
		fb.scale[i] = s
		logZ += math.Log(s)
	}
	return fb.last1(p, fb.alpha[(n-1)*kp:(n-1)*kp+k], logZ)
}

// backwardDense is backward1 on the dense layout.
func (fb *FB) backwardDense(p *Params, d *denseModel, words []int32, acc *Accum, rows []int32, gamma []float64) {
	k, kp, k1 := d.k, d.kp, d.k+1
	n := len(words)
	beta, prevBeta, u := fb.beta[:kp], fb.prev[:kp], fb.u[:kp]
	clear(beta[k:])
	if acc != nil && len(acc.padded) != k*kp {
		acc.padded = make([]float64, k*kp)
	}
	fb.stop1(p, fb.alpha[(n-1)*kp:(n-1)*kp+k], beta[:k], acc)
	for i := n - 1; i >= 0; i-- {
		erow, g := posteriorsOf(acc, rows, gamma, i, k)
		posteriorDense(fb.alpha[i*kp:(i+1)*kp], beta, oneBlock, kp, erow, g)
		weigh(u, p.emitRow(words[i]), beta, 1/fb.scale[i])
		if i == 0 {
			if acc != nil {
				sc := p.StartContext() * k1
				floats.Add(acc.Trans[sc:sc+k], u[:k])
			}
			break
		}
		prev := fb.alpha[(i-1)*kp : (i-1)*kp+k]
		combine(prevBeta, u[:k], d.at, kp)
		if acc != nil {
			rank(acc.padded, kp, prev, u)
		}
		beta, prevBeta = prevBeta, beta
	}
}

// forwardDense2 is forward2 on the dense layout: each position's forward
// vector K+1 rows (the previous state a, or the boundary K) of kp
// numbers. Row a of token i is Σ_c α̂(c, a)·A(c, a, ·) over the rows of
// the token before, one combine over the rows (c, a) of d.a.
func (fb *FB) forwardDense2(p *Params, d *denseModel, words []int32) float64 {
	k, kp, w := d.k, d.kp, d.width()
	n := len(words)
	clear(fb.alpha[k*kp : w]) // the boundary's row, with its padding
	logZ, ok := fb.first1(p, words[0], fb.alpha[k*kp:k*kp+k])
	if !ok {
		return math.Inf(-1)
	}
	for i := 1; i < n; i++ {
		prev, cur := fb.alpha[(i-1)*w:i*w], fb.alpha[i*w:(i+1)*w]
		c0, x := fb.column(i-2, k)
		e := p.emitRow(words[i])
		s := 0.0
		for a := 0; a < k; a++ {
			for c := range x {
				x[c] = prev[(c0+c)*kp+a]
			}
			row := cur[a*kp : (a+1)*kp]
			combine(row, x, d.a[(c0*k+a)*kp:], k*kp)
			s += mulSum(row, e)
		}
		if !usable(s) {
			return math.Inf(-1)
		}
		scaleBy(cur[:k*kp], 1/s)
		fb.scale[i] = s
		logZ += math.Log(s)
	}
	return fb.last2(p, words, fb.alpha[(n-1)*w:n*w], kp, logZ)
}

// column is where the states c of token i run (the boundary K alone
// before the sentence, else every state: c0, c0+1, …) and fb's scratch
// for one number per c.
func (fb *FB) column(i, k int) (c0 int, x []float64) {
	if i < 0 {
		return k, fb.col[:1]
	}
	return 0, fb.col[:k]
}

// backwardDense2 is backward2 on the dense layout. β̂(c, a) for every c
// at once is a combine over the rows (a, t) of d.at weighted by u(a, ·);
// the transition counts of the rows (c, a) a rank-1 update of u(a, ·).
func (fb *FB) backwardDense2(p *Params, d *denseModel, words []int32, acc *Accum, rows []int32, gamma []float64) {
	k, kp, cp, w := d.k, d.kp, d.cp, d.width()
	k1 := k + 1
	n := len(words)
	beta, prevBeta, u := fb.beta[:w], fb.prev[:w], fb.u[:w]
	// Only the entries a < K of a row are written below: the padding stays 0.
	clear(beta)
	clear(prevBeta)
	if acc != nil && len(acc.padded) != k1*k*kp {
		acc.padded = make([]float64, k1*k*kp)
	}
	tc := fb.col[k1 : k1+cp]
	fb.stop2(p, words, fb.alpha[(n-1)*w:n*w], beta, kp, acc)
	for i := n - 1; i >= 0; i-- {
		erow, g := posteriorsOf(acc, rows, gamma, i, k)
		posteriorDense(fb.alpha[i*w:(i+1)*w], beta, p.statesAt(words, i-1), kp, erow, g)
		e, c := p.emitRow(words[i]), 1/fb.scale[i]
		if i == 0 {
			if acc != nil {
				sc, b := p.StartContext()*k1, beta[k*kp:k*kp+k]
				for t := range b {
					acc.Trans[sc+t] += e[t] * b[t] * c
				}
			}
			break
		}
		prev := fb.alpha[(i-1)*w : i*w]
		c0, x := fb.column(i-2, k)
		for a := 0; a < k; a++ {
			ua := u[a*kp : (a+1)*kp]
			weigh(ua, e, beta[a*kp:(a+1)*kp], c)
			combine(tc, ua[:k], d.at[a*k*cp:], cp)
			for j := range x {
				prevBeta[(c0+j)*kp+a] = tc[c0+j]
			}
			if acc != nil {
				for j := range x {
					x[j] = prev[(c0+j)*kp+a]
				}
				rank(acc.padded[(c0*k+a)*kp:], k*kp, x, ua)
			}
		}
		beta, prevBeta = prevBeta, beta
	}
}

// posteriorDense adds the state posteriors Σ_r α̂·β̂ over the listed rows
// of kp numbers (one row for a bitag, the previous state's for a
// trigram) to erow and sets g to them, each of the K states (either may
// be nil).
func posteriorDense(a, beta []float64, rows []int32, kp int, erow, g []float64) {
	for j := 0; j < kp; j += 8 {
		var x vec8.Vec
		for _, r := range rows {
			o := int(r)*kp + j
			x = x.Add(vec8.Load(a[o:]).Mul(vec8.Load(beta[o:])))
		}
		if erow != nil {
			vec8.StorePart(erow[j:], vec8.LoadPart(erow[j:]).Add(x))
		}
		if g != nil {
			vec8.StorePart(g[j:], x)
		}
	}
}

// weigh sets u = e·β̂·c over the kp numbers of a row, as backward1 and
// backward2 compute it (0 in the padding: e has K numbers).
func weigh(u, e, beta []float64, c float64) {
	cv := vec8.Broadcast(c)
	for j := 0; j < len(u); j += 8 {
		vec8.Store(u[j:], vec8.LoadPart(e[j:]).Mul(vec8.Load(beta[j:])).Mul(cv))
	}
}

// mulSum multiplies a (kp numbers) by the K emission weights e (0 in the
// padding) and returns its sum.
func mulSum(a, e []float64) float64 {
	var sum vec8.Vec
	for j := 0; j < len(a); j += 8 {
		x := vec8.Load(a[j:]).Mul(vec8.LoadPart(e[j:]))
		vec8.Store(a[j:], x)
		sum = sum.Add(x)
	}
	var lanes [8]float64
	vec8.Store(lanes[:], sum)
	s := 0.0
	for _, x := range lanes {
		s += x
	}
	return s
}

// scaleBy multiplies a (kp numbers) by f.
func scaleBy(a []float64, f float64) {
	v := vec8.Broadcast(f)
	for j := 0; j < len(a); j += 8 {
		vec8.Store(a[j:], vec8.Load(a[j:]).Mul(v))
	}
}

// The kernels below take the states in blocks of 6, 4, 2 and 1 vectors,
// the block's vectors (dst in combine, u in rank) held in registers
// across the K rows: 6 vectors are the 45 states of the benchmark (48
// padded) at once, six independent multiply-adds per row, and fit the 16
// vector registers Go allocates with room for the row's loads (more
// accumulators spill to the stack).

// blocks calls fn on n numbers (whole vectors) in blocks of 6, 4, 2 and
// 1 vectors, with j the block's first number.
func blocks(n int, fn func(j, width int)) {
	j := 0
	for ; j+48 <= n; j += 48 {
		fn(j, 6)
	}
	for _, w := range [...]int{4, 2, 1} {
		if j+8*w <= n {
			fn(j, w)
			j += 8 * w
		}
	}
}

// combine sets dst (whole vectors) to Σ_q x[q]·m[q·stride:][:len(dst)],
// the rows of m weighted by x: Aᵀ·x when m is a, A·x when it is at.
func combine(dst, x, m []float64, stride int) {
	blocks(len(dst), func(j, width int) {
		switch width {
		case 6:
			combine6(dst[j:j+48], x, m[j:], stride)
		case 4:
			combine4(dst[j:j+32], x, m[j:], stride)
		case 2:
			combine2(dst[j:j+16], x, m[j:], stride)
		default:
			combine1(dst[j:j+8], x, m[j:], stride)
		}
	})
}

func combine6(dst, x, m []float64, stride int) {
	var c0, c1, c2, c3, c4, c5 vec8.Vec
	for q, xq := range x {
		r, b := (*[48]float64)(m[q*stride:]), vec8.Broadcast(xq)
		c0 = vec8.Load(r[0:8]).MulAdd(b, c0)
		c1 = vec8.Load(r[8:16]).MulAdd(b, c1)
		c2 = vec8.Load(r[16:24]).MulAdd(b, c2)
		c3 = vec8.Load(r[24:32]).MulAdd(b, c3)
		c4 = vec8.Load(r[32:40]).MulAdd(b, c4)
		c5 = vec8.Load(r[40:48]).MulAdd(b, c5)
	}
	d := (*[48]float64)(dst)
	vec8.Store(d[0:8], c0)
	vec8.Store(d[8:16], c1)
	vec8.Store(d[16:24], c2)
	vec8.Store(d[24:32], c3)
	vec8.Store(d[32:40], c4)
	vec8.Store(d[40:48], c5)
}

func combine4(dst, x, m []float64, stride int) {
	var c0, c1, c2, c3 vec8.Vec
	for q, xq := range x {
		r, b := (*[32]float64)(m[q*stride:]), vec8.Broadcast(xq)
		c0 = vec8.Load(r[0:8]).MulAdd(b, c0)
		c1 = vec8.Load(r[8:16]).MulAdd(b, c1)
		c2 = vec8.Load(r[16:24]).MulAdd(b, c2)
		c3 = vec8.Load(r[24:32]).MulAdd(b, c3)
	}
	d := (*[32]float64)(dst)
	vec8.Store(d[0:8], c0)
	vec8.Store(d[8:16], c1)
	vec8.Store(d[16:24], c2)
	vec8.Store(d[24:32], c3)
}

func combine2(dst, x, m []float64, stride int) {
	var c0, c1 vec8.Vec
	for q, xq := range x {
		r, b := (*[16]float64)(m[q*stride:]), vec8.Broadcast(xq)
		c0 = vec8.Load(r[0:8]).MulAdd(b, c0)
		c1 = vec8.Load(r[8:16]).MulAdd(b, c1)
	}
	vec8.Store(dst[0:8], c0)
	vec8.Store(dst[8:16], c1)
}

func combine1(dst, x, m []float64, stride int) {
	var c vec8.Vec
	for q, xq := range x {
		c = vec8.Load(m[q*stride:]).MulAdd(vec8.Broadcast(xq), c)
	}
	vec8.Store(dst, c)
}

// rank adds x[q]·u[t] to dst[q·stride + t] for every q of x and every t
// of u (whole vectors).
func rank(dst []float64, stride int, x, u []float64) {
	blocks(len(u), func(j, width int) {
		switch width {
		case 6:
			rank6(dst[j:], stride, x, u[j:j+48])
		case 4:
			rank4(dst[j:], stride, x, u[j:j+32])
		case 2:
			rank2(dst[j:], stride, x, u[j:j+16])
		default:
			rank1(dst[j:], stride, x, u[j:j+8])
		}
	})
}

func rank6(dst []float64, stride int, x, u []float64) {
	v := (*[48]float64)(u)
	u0, u1, u2, u3, u4, u5 := vec8.Load(v[0:8]), vec8.Load(v[8:16]), vec8.Load(v[16:24]), vec8.Load(v[24:32]), vec8.Load(v[32:40]), vec8.Load(v[40:48])
	for q, xq := range x {
		r, b := (*[48]float64)(dst[q*stride:]), vec8.Broadcast(xq)
		vec8.Store(r[0:8], u0.MulAdd(b, vec8.Load(r[0:8])))
		vec8.Store(r[8:16], u1.MulAdd(b, vec8.Load(r[8:16])))
		vec8.Store(r[16:24], u2.MulAdd(b, vec8.Load(r[16:24])))
		vec8.Store(r[24:32], u3.MulAdd(b, vec8.Load(r[24:32])))
		vec8.Store(r[32:40], u4.MulAdd(b, vec8.Load(r[32:40])))
		vec8.Store(r[40:48], u5.MulAdd(b, vec8.Load(r[40:48])))
	}
}

func rank4(dst []float64, stride int, x, u []float64) {
	v := (*[32]float64)(u)
	u0, u1, u2, u3 := vec8.Load(v[0:8]), vec8.Load(v[8:16]), vec8.Load(v[16:24]), vec8.Load(v[24:32])
	for q, xq := range x {
		r, b := (*[32]float64)(dst[q*stride:]), vec8.Broadcast(xq)
		vec8.Store(r[0:8], u0.MulAdd(b, vec8.Load(r[0:8])))
		vec8.Store(r[8:16], u1.MulAdd(b, vec8.Load(r[8:16])))
		vec8.Store(r[16:24], u2.MulAdd(b, vec8.Load(r[16:24])))
		vec8.Store(r[24:32], u3.MulAdd(b, vec8.Load(r[24:32])))
	}
}

func rank2(dst []float64, stride int, x, u []float64) {
	u0, u1 := vec8.Load(u[0:8]), vec8.Load(u[8:16])
	for q, xq := range x {
		r, b := (*[16]float64)(dst[q*stride:]), vec8.Broadcast(xq)
		vec8.Store(r[0:8], u0.MulAdd(b, vec8.Load(r[0:8])))
		vec8.Store(r[8:16], u1.MulAdd(b, vec8.Load(r[8:16])))
	}
}

func rank1(dst []float64, stride int, x, u []float64) {
	u0 := vec8.Load(u)
	for q, xq := range x {
		r := dst[q*stride : q*stride+8]
		vec8.Store(r, u0.MulAdd(vec8.Broadcast(xq), vec8.Load(r)))
	}
}
