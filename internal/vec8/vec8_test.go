package vec8

import (
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
