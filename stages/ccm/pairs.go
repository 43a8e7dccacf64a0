package ccm

import "math"

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

// potentials is Model.potentials from the paired tables, writing φ(i,j)
// at phi[(i·(n+1)+j)·stride] (the lane layout: stride lanes): the same
// operations in the same order, so the same numbers to the bit.
func (pt *pairTables) potentials(c *Corpus, s Sentence, phi []float64, stride int) (logK, logScale float64) {
	n, w := s.N, s.N+1
	mant, exp := 1.0, 0
	phiMant, phiExp := 1.0, 0
	ys, xs := c.Yield[s.Off:s.Off+w*w], c.Context[s.Off:s.Off+w*w]
	yields, contexts, skew := pt.yield, pt.context, pt.skew
	for i := 0; i <= n; i++ {
		yr, xr := ys[i*w+i:i*w+w], xs[i*w+i:i*w+w]
		xr = xr[:len(yr)]
		// The empty span [i, i) is never a constituent: K's factor alone.
		mant *= yields[yr[0]][0] * contexts[xr[0]][0]
		if mant < 0x1p-500 {
			var e int
			mant, e = frexp(mant)
			exp += e
		}
		row := phi[(i*w+i)*stride:]
		for d := 1; d < len(yr); d++ {
			yp, xp := &yields[yr[d]], &contexts[xr[d]]
			f := yp[0] * xp[0]
			mant *= f
			if mant < 0x1p-500 {
				var e int
				mant, e = frexp(mant)
				exp += e
			}
			p := yp[1] * xp[1] / f
			if skew != nil {
				p *= skew[d]
			}
			row[d*stride] = p
			phiMant *= p
			if phiMant < 0x1p-500 || phiMant > 0x1p500 {
				var e int
				phiMant, e = frexp(phiMant)
				phiExp += e
			}
		}
	}
	_, e := math.Frexp(phiMant)
	shift := -(phiExp + e) / (n * (n + 1) / 2)
	if shift != 0 {
		scale := math.Ldexp(1, shift)
		for i := 0; i < n; i++ {
			row := phi[(i*w+i)*stride:]
			for d := 1; d <= n-i; d++ {
				row[d*stride] *= scale
			}
		}
	}
	return math.Log(mant) + float64(exp)*math.Ln2, float64(shift) * math.Ln2
}

// frexp is math.Frexp for the numbers the potentials' products take (not
// negative, not NaN), written so that it inlines: a call in the
// potentials' loop, however rarely taken, made the compiler keep the
// loop's variables on the stack.
func frexp(x float64) (frac float64, exp int) {
	if x == 0 || x > math.MaxFloat64 {
		return x, 0
	}
	if x < 0x1p-1022 { // subnormal: normalise first, as math.Frexp does
		x *= 0x1p52
		exp = -52
	}
	b := math.Float64bits(x)
	return math.Float64frombits(b&^(0x7ff<<52) | 1022<<52), exp + int(b>>52&0x7ff) - 1022
}
