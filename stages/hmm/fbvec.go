package hmm

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// Where this build has a vector kernel that this machine runs (AVX-512),
// the E-step's forward–backward of a bitag HMM without a dictionary —
// every state live at every token — runs its per-token steps over the
// states 8 at a time: the K states padded with 0s to kp, a multiple of 8,
// each forward step cur = Aᵀ·prev and backward step β' = A·u a run of
// multiply-adds of a broadcast weight and a row (of A for the forward
// step, of Aᵀ for the backward one, so that neither needs a horizontal
// sum), and the transition counts a rank-1 update of the same kind. The
// arithmetic is the scalar path's up to summation order and fused
// multiply-adds (counts within 1e-12 relative, TestDenseKernelMatches);
// the chunks being fixed, the E-step still gives the same bytes for any
// number of workers. Elsewhere (a build without GOEXPERIMENT=simd, a CPU
// without AVX-512, a dictionary, a trigram) forward–backward is fb.go's.

// kernel is the dense kernel in use: denseKernel's, or "" for fb.go's
// alone (tests and benchmarks set it to compare the two).
var kernel = denseKernel()

// denseKernel is the vector kernel the E-step uses on this machine: the
// AVX-512 one where there is one, else none. The plain-Go vectors of a
// build without GOEXPERIMENT=simd would be slower than gonum's BLAS, so
// they run only in tests, which check the kernel's arithmetic in every
// build.
func denseKernel() string {
	if vecKernel == "avx512" && vecRuns() {
		return vecKernel
	}
	return ""
}

// Kernel names the bitag E-step's forward–backward kernel of this binary
// on this machine, for --version: "avx512" (GOEXPERIMENT=simd on amd64
// with AVX-512) or "scalar" (gonum's BLAS, fb.go).
func Kernel() string {
	if kernel == "" {
		return "scalar"
	}
	return kernel
}

// denseModel is a bitag model's K×K block of transitions laid out for the
// vector kernel, rows padded with 0s to kp numbers.
type denseModel struct {
	k, kp int
	a     []float64 // a[q·kp+t] = A(q, t)
	at    []float64 // at[t·kp+q] = A(q, t), the transpose
}

// load lays out p's transitions, reusing d's tables when K is the same
// (their padding stays 0).
func (d *denseModel) load(p *Params) {
	k, k1 := p.K, p.K+1
	kp := (k + 7) / 8 * 8
	if d.k != k {
		d.k, d.kp = k, kp
		d.a, d.at = make([]float64, k*kp), make([]float64, k*kp)
	}
	for q := 0; q < k; q++ {
		for t, w := range p.Trans[q*k1 : q*k1+k] {
			d.a[q*kp+t] = w
			d.at[t*kp+q] = w
		}
	}
}

// denseFor is the dense layout of p when the E-step runs the vector
// kernel on it (kept in d), else nil.
func denseFor(p *Params, d *denseModel) *denseModel {
	if kernel == "" || p.Order != 1 || p.choices != nil {
		return nil
	}
	d.load(p)
	return d
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
		var erow, g []float64
		if acc != nil {
			r := int(rows[i])
			erow = acc.Emit[r*k : r*k+k]
		}
		if gamma != nil {
			g = gamma[i*k : i*k+k]
		}
		posteriorDense(fb.alpha[i*kp:(i+1)*kp], beta, erow, g)
		// u = E·β̂/c, as backward1 has it (0 in the padding).
		e, c := p.emitRow(words[i]), bcast(1/fb.scale[i])
		for j := 0; j < kp; j += 8 {
			st(u[j:], ldPart(e[j:]).Mul(ld(beta[j:])).Mul(c))
		}
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

// posteriorDense adds α̂·β̂ to erow and sets g to it, each of the K
// states (either may be nil).
func posteriorDense(a, beta, erow, g []float64) {
	for j := 0; j < len(a); j += 8 {
		x := ld(a[j:]).Mul(ld(beta[j:]))
		if erow != nil {
			stPart(erow[j:], ldPart(erow[j:]).Add(x))
		}
		if g != nil {
			stPart(g[j:], x)
		}
	}
}

// mulSum multiplies a (kp numbers) by the K emission weights e (0 in the
// padding) and returns its sum.
func mulSum(a, e []float64) float64 {
	var sum vec
	for j := 0; j < len(a); j += 8 {
		x := ld(a[j:]).Mul(ldPart(e[j:]))
		st(a[j:], x)
		sum = sum.Add(x)
	}
	var lanes [8]float64
	st(lanes[:], sum)
	s := 0.0
	for _, x := range lanes {
		s += x
	}
	return s
}

// scaleBy multiplies a (kp numbers) by f.
func scaleBy(a []float64, f float64) {
	v := bcast(f)
	for j := 0; j < len(a); j += 8 {
		st(a[j:], ld(a[j:]).Mul(v))
	}
}

// The kernels below take the states in blocks of 6, 4, 2 and 1 vectors,
// the block's vectors (dst in combine, u in rank) held in registers
// across the K rows: 6 vectors are the 45 states of the benchmark (48
// padded) at once, six independent multiply-adds per row, and fit the 16
// vector registers Go allocates with room for the row's loads (more
// accumulators spill to the stack).

// blocks calls fn on dst's vectors (kp numbers) in blocks of 6, 4, 2 and
// 1 vectors, with j the block's first number.
func blocks(kp int, fn func(j, width int)) {
	j := 0
	for ; j+48 <= kp; j += 48 {
		fn(j, 6)
	}
	for _, w := range [...]int{4, 2, 1} {
		if j+8*w <= kp {
			fn(j, w)
			j += 8 * w
		}
	}
}

// combine sets dst (kp numbers) to Σ_q x[q]·m[q·kp : (q+1)·kp], the rows
// of m weighted by x: Aᵀ·x when m is a, A·x when it is at.
func combine(dst, x, m []float64, kp int) {
	blocks(kp, func(j, width int) {
		switch width {
		case 6:
			combine6(dst[j:j+48], x, m[j:], kp)
		case 4:
			combine4(dst[j:j+32], x, m[j:], kp)
		case 2:
			combine2(dst[j:j+16], x, m[j:], kp)
		default:
			combine1(dst[j:j+8], x, m[j:], kp)
		}
	})
}

func combine6(dst, x, m []float64, kp int) {
	var c0, c1, c2, c3, c4, c5 vec
	for q, xq := range x {
		r, b := (*[48]float64)(m[q*kp:]), bcast(xq)
		c0 = ld(r[0:8]).MulAdd(b, c0)
		c1 = ld(r[8:16]).MulAdd(b, c1)
		c2 = ld(r[16:24]).MulAdd(b, c2)
		c3 = ld(r[24:32]).MulAdd(b, c3)
		c4 = ld(r[32:40]).MulAdd(b, c4)
		c5 = ld(r[40:48]).MulAdd(b, c5)
	}
	d := (*[48]float64)(dst)
	st(d[0:8], c0)
	st(d[8:16], c1)
	st(d[16:24], c2)
	st(d[24:32], c3)
	st(d[32:40], c4)
	st(d[40:48], c5)
}

func combine4(dst, x, m []float64, kp int) {
	var c0, c1, c2, c3 vec
	for q, xq := range x {
		r, b := (*[32]float64)(m[q*kp:]), bcast(xq)
		c0 = ld(r[0:8]).MulAdd(b, c0)
		c1 = ld(r[8:16]).MulAdd(b, c1)
		c2 = ld(r[16:24]).MulAdd(b, c2)
		c3 = ld(r[24:32]).MulAdd(b, c3)
	}
	d := (*[32]float64)(dst)
	st(d[0:8], c0)
	st(d[8:16], c1)
	st(d[16:24], c2)
	st(d[24:32], c3)
}

func combine2(dst, x, m []float64, kp int) {
	var c0, c1 vec
	for q, xq := range x {
		r, b := (*[16]float64)(m[q*kp:]), bcast(xq)
		c0 = ld(r[0:8]).MulAdd(b, c0)
		c1 = ld(r[8:16]).MulAdd(b, c1)
	}
	st(dst[0:8], c0)
	st(dst[8:16], c1)
}

func combine1(dst, x, m []float64, kp int) {
	var c vec
	for q, xq := range x {
		c = ld(m[q*kp:]).MulAdd(bcast(xq), c)
	}
	st(dst, c)
}

// rank adds x[q]·u[t] to dst[q·kp + t] for every q of x and every t of u
// (kp numbers).
func rank(dst []float64, kp int, x, u []float64) {
	blocks(kp, func(j, width int) {
		switch width {
		case 6:
			rank6(dst[j:], kp, x, u[j:j+48])
		case 4:
			rank4(dst[j:], kp, x, u[j:j+32])
		case 2:
			rank2(dst[j:], kp, x, u[j:j+16])
		default:
			rank1(dst[j:], kp, x, u[j:j+8])
		}
	})
}

func rank6(dst []float64, kp int, x, u []float64) {
	v := (*[48]float64)(u)
	u0, u1, u2, u3, u4, u5 := ld(v[0:8]), ld(v[8:16]), ld(v[16:24]), ld(v[24:32]), ld(v[32:40]), ld(v[40:48])
	for q, xq := range x {
		r, b := (*[48]float64)(dst[q*kp:]), bcast(xq)
		st(r[0:8], u0.MulAdd(b, ld(r[0:8])))
		st(r[8:16], u1.MulAdd(b, ld(r[8:16])))
		st(r[16:24], u2.MulAdd(b, ld(r[16:24])))
		st(r[24:32], u3.MulAdd(b, ld(r[24:32])))
		st(r[32:40], u4.MulAdd(b, ld(r[32:40])))
		st(r[40:48], u5.MulAdd(b, ld(r[40:48])))
	}
}

func rank4(dst []float64, kp int, x, u []float64) {
	v := (*[32]float64)(u)
	u0, u1, u2, u3 := ld(v[0:8]), ld(v[8:16]), ld(v[16:24]), ld(v[24:32])
	for q, xq := range x {
		r, b := (*[32]float64)(dst[q*kp:]), bcast(xq)
		st(r[0:8], u0.MulAdd(b, ld(r[0:8])))
		st(r[8:16], u1.MulAdd(b, ld(r[8:16])))
		st(r[16:24], u2.MulAdd(b, ld(r[16:24])))
		st(r[24:32], u3.MulAdd(b, ld(r[24:32])))
	}
}

func rank2(dst []float64, kp int, x, u []float64) {
	u0, u1 := ld(u[0:8]), ld(u[8:16])
	for q, xq := range x {
		r, b := (*[16]float64)(dst[q*kp:]), bcast(xq)
		st(r[0:8], u0.MulAdd(b, ld(r[0:8])))
		st(r[8:16], u1.MulAdd(b, ld(r[8:16])))
	}
}

func rank1(dst []float64, kp int, x, u []float64) {
	u0 := ld(u)
	for q, xq := range x {
		r := dst[q*kp : q*kp+8]
		st(r, u0.MulAdd(bcast(xq), ld(r)))
	}
}
