package ccm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// frexpBits is math.Frexp, to the bit: zeros, subnormals, normals across the
// whole range, the largest, infinities, NaN, of either sign.
func TestFrexpBits(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(-1), -0x1p-1070, -3, math.SmallestNonzeroFloat64, 0x1p-1060, 0x1p-1022, 0x1.fffffffffffffp-1023,
		0x1p-500, 0.5, 1, math.MaxFloat64, math.Inf(1)}
	rng := rand.New(rand.NewPCG(25, 1))
	for range 10000 {
		x := math.Ldexp(rng.Float64(), rng.IntN(2100)-1080)
		xs = append(xs, x, -x)
	}
	for _, x := range xs {
		b, e := frexpBits(math.Float64bits(x))
		wf, we := math.Frexp(x)
		if b != math.Float64bits(wf) || e != we {
			t.Errorf("frexpBits of %g = %g, %d; math.Frexp: %g, %d", x, math.Float64frombits(b), e, wf, we)
		}
	}
}

// pow2 is math.Ldexp(1, e), to the bit, for every e from below the
// subnormals to beyond the largest float64.
func TestPow2(t *testing.T) {
	for e := -1100; e <= 1100; e++ {
		if got, want := pow2(e), math.Ldexp(1, e); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("pow2(%d) = %g, math.Ldexp: %g", e, got, want)
		}
	}
}
