package ccm

import (
	"math"
	"math/bits"

	"github.com/grind-nlp/grind/internal/vec8"
)

// pairTables are a model's four tables (without classes) paired by id,
// P(y|F) beside P(y|T) and P(x|F) beside P(x|T), so that a span's
// potential reads two cache lines rather than four: the E-step's
// potentials wait on these lookups (50,905 yields and 7,353 contexts on
// the Chinese sample ≤ 10). Filled once an E-step, in the corpus's buffer.
type pairTables struct {
	yield, context [][2]float64
	skew           []float64 // the split skew's factors by span length, or nil
}

// pairTables fills c's buffer with m's tables; nil for a model with
// classes, whose constituent factor is a sum over them (classFactor).
func (m *Model) pairTables(c *Corpus) *pairTables {
	if m.Classes != nil {
		return nil
	}
	pt := &c.pairs
	pt.yield = pair(pt.yield, m.Span[Distituent], m.Span[Constituent])
	pt.context = pair(pt.context, m.Context[Distituent], m.Context[Constituent])
	pt.skew = nil
	if m.splitSkew != 0 {
		var ch chart
		pt.skew = m.skewFactors(c.MaxLen, &ch)
	}
	return pt
}

// pair is f and t side by side, in buf's memory when it is large enough.
func pair(buf [][2]float64, f, t []float64) [][2]float64 {
	if cap(buf) < len(f) {
		buf = make([][2]float64, len(f))
	}
	buf = buf[:len(f)]
	t = t[:len(f)]
	for i := range buf {
		buf[i] = [2]float64{f[i], t[i]}
	}
	return buf
}

// potentials sets the potentials of a batch, one sentence a lane, each
// lane's the scalar chart's (Model.potentials) to the bit, from the
// batch's ids as laneSpans lays them out: the factors are looked up cell
// by cell, lane by lane, F = P(y|F)P(x|F) into b.out (outside clears it)
// and T = P(y|T)P(x|T) into b.phi; then every lane's products run at once,
// 8 lanes a vector operation, over the cells in the scalar chart's
// order: K's product of the F, φ = T / F (times the split skew's factor),
// the product of the φ, each product brought back by frexp in the lanes
// that leave its range exactly when the scalar chart does; last, each
// lane's φ scaled by its own power of two.
func (b *laneChart) potentials(pt *pairTables, ids [][2]int32) {
	n, w := b.n, b.n+1
	f, t := b.out, b.phi
	yields, contexts := pt.yield, pt.context
	for i := 0; i <= n; i++ {
		// The empty span [i, i): K's factor alone.
		fk := cell(f, i*w+i)
		for l, id := range ids[:lanes] {
			fk[l] = yields[id[0]][0] * contexts[id[1]][0]
		}
		ids = ids[lanes:]
		for j := i + 1; j <= n; j++ {
			fk, tk := cell(f, i*w+j), cell(t, i*w+j)
			for l, id := range ids[:lanes] {
				yp, xp := &yields[id[0]], &contexts[id[1]]
				fk[l] = yp[0] * xp[0]
				tk[l] = yp[1] * xp[1]
			}
			ids = ids[lanes:]
		}
	}
	// K and the product of the φ as mantissas and binary exponents, as
	// the scalar chart keeps them.
	mant, phiMant := vec8.Broadcast(1), vec8.Broadcast(1)
	var exp, phiExp [lanes]int
	low, high := vec8.Broadcast(0x1p-500), vec8.Broadcast(0x1p500)
	for i := 0; i <= n; i++ {
		for j := i; j <= n; j++ {
			k := i*w + j
			fk := vec8.Load(cell(f, k))
			mant = mant.Mul(fk)
			if out := low.Greater(mant).ToBits(); out != 0 {
				mant = frexpLanes(mant, out, &exp)
			}
			if j == i {
				continue // the empty span is never a constituent
			}
			p := vec8.Load(cell(t, k)).Div(fk)
			if pt.skew != nil {
				p = p.Mul(vec8.Broadcast(pt.skew[j-i]))
			}
			vec8.Store(cell(t, k), p)
			phiMant = phiMant.Mul(p)
			if out := low.Greater(phiMant).ToBits() | phiMant.Greater(high).ToBits(); out != 0 {
				phiMant = frexpLanes(phiMant, out, &phiExp)
			}
		}
	}
	var mants, phiMants, scales [lanes]float64
	mant.Store(&mants)
	phiMant.Store(&phiMants)
	vec8.Settle()
	spans := n * (n + 1) / 2
	for l := range lanes {
		_, e := math.Frexp(phiMants[l])
		shift := -(phiExp[l] + e) / spans
		scales[l] = pow2(shift) // 1 where the scalar chart does not scale: × 1 is exact
		b.logK[l] = math.Log(mants[l]) + float64(exp[l])*math.Ln2
		b.logSc[l] = float64(shift) * math.Ln2
	}
	scale := vec8.Load(scales[:])
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			c := cell(t, i*w+j)
			vec8.Store(c, vec8.Load(c).Mul(scale))
		}
	}
}

// pow2 is math.Ldexp(1, e), from the bits where 2^e is a normal number.
func pow2(e int) float64 {
	if e < -1022 || e > 1023 {
		return math.Ldexp(1, e)
	}
	return math.Float64frombits(uint64(e+1023) << 52)
}

// frexpLanes is v with the lanes of bits out brought into [0.5, 1) by
// frexp, their exponents added to exp.
func frexpLanes(v vec8.Vec, out uint8, exp *[lanes]int) vec8.Vec {
	var b [lanes]uint64
	vec8.StoreBits(&b, v)
	for l := range lanes {
		if out&(1<<l) != 0 {
			var e int
			b[l], e = frexpBits(b[l])
			exp[l] += e
		}
	}
	return vec8.LoadBits(&b)
}

// frexpBits is math.Frexp, to the bit, on the bits of a float64, in
// integer operations alone: frexpLanes calls it between vector operations,
// where scalar floating point would wait on the vector registers' upper
// halves (vec8.Settle).
func frexpBits(b uint64) (uint64, int) {
	const mantissa = 1<<52 - 1
	e := int(b >> 52 & 0x7ff)
	switch {
	case b<<1 == 0 || e == 0x7ff: // ±0, ±Inf, NaN
		return b, 0
	case e == 0: // subnormal: normalise the mantissa first
		m := b & mantissa
		s := bits.LeadingZeros64(m) - 11
		return b&(1<<63) | 1022<<52 | m<<s&mantissa, -1021 - s
	}
	return b&^(0x7ff<<52) | 1022<<52, e - 1022
}
