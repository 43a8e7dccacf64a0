package vec8

import (
	"math"
	"math/rand/v2"
	"testing"
)

// AddTo's sums are the scalar loop's, bit for bit, at every length (the
// tail beyond the last eight included).
func TestAddTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for n := range 40 {
		dst, src := make([]float64, n), make([]float64, n)
		for i := range dst {
			dst[i], src[i] = rng.NormFloat64()*1e3, rng.NormFloat64()
		}
		want := append([]float64(nil), dst...)
		for i := range want {
			want[i] += src[i]
		}
		AddTo(dst, src)
		for i := range dst {
			if dst[i] != want[i] {
				t.Fatalf("length %d, entry %d: %v, want %v", n, i, dst[i], want[i])
			}
		}
	}
}

// BenchmarkAddTo folds a count table of the DMV on UD English's 45 XPOS
// tags (4,140 entries) into another, as the E-step does 64 times an
// iteration; "scalar" is the plain loop.
func BenchmarkAddTo(b *testing.B) {
	dst, src := make([]float64, 4140), make([]float64, 4140)
	b.Run("AddTo", func(b *testing.B) {
		for b.Loop() {
			AddTo(dst, src)
		}
	})
	b.Run("scalar", func(b *testing.B) {
		for b.Loop() {
			for i, v := range src {
				dst[i] += v
			}
		}
	})
}

// Exp is math.Exp, bit for bit, over [ExpMin, ExpMax]: at random, at
// its ends, at 0 and −0, and at every half-integer multiple of ln 2
// within it and beside it (where the reduction's rounding to an integer
// decides).
func TestExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 3))
	xs := []float64{ExpMin, ExpMax, 0, math.Copysign(0, -1), 1, -1, 1e-300, -1e-300}
	for k := float64(ExpMin) * 1.4427; k <= ExpMax*1.4427; k += 0.5 {
		h := k * math.Ln2
		if h >= ExpMin && h <= ExpMax {
			xs = append(xs, h, math.Nextafter(h, math.Inf(-1)), math.Nextafter(h, math.Inf(1)))
		}
	}
	for range 200000 {
		xs = append(xs, ExpMin+rng.Float64()*(ExpMax-ExpMin), -rng.ExpFloat64())
	}
	sameBits(t, "Exp", Exp, math.Exp, xs, 0)
}

// sameBits checks that the lanes of f(x) are want's, bit for bit, eight
// numbers of xs at a time (its tail padded with pad).
func sameBits(t *testing.T, name string, f func(Vec) Vec, want func(float64) float64, xs []float64, pad float64) {
	t.Helper()
	for len(xs)%Lanes != 0 {
		xs = append(xs, pad)
	}
	var got [Lanes]float64
	for i := 0; i < len(xs); i += Lanes {
		f(Load(xs[i:])).Store(&got)
		for l, x := range xs[i : i+Lanes] {
			if w := want(x); math.Float64bits(got[l]) != math.Float64bits(w) {
				t.Fatalf("%s(%v) = %v, math.%s %v", name, x, got[l], name, w)
			}
		}
	}
}

// Log is math.Log, bit for bit, on positive normal numbers of every
// exponent, √2/2 times a power of two (where the assembly's compare
// decides) and numbers beside it, and 1.
func TestLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	var xs []float64
	for e := -1021; e <= 1023; e++ {
		h := math.Ldexp(7.07106781186547524401e-01, e)
		xs = append(xs, math.Ldexp(0.5+rng.Float64()/2, e), h, math.Nextafter(h, 0), math.Nextafter(h, 2*h), math.Ldexp(1, e))
	}
	for range 100000 {
		xs = append(xs, math.Exp((2*rng.Float64()-1)*700))
	}
	xs = append(xs, 1, math.MaxFloat64, 0x1p-1022)
	sameBits(t, "Log", Log, math.Log, xs, 1)
}
