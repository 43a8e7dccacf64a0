package dmv

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// eachRun against its definition, element by element: runs of common
// elements, broken by any element in one set only.
func TestEachRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 2000; trial++ {
		size := 1 + rng.IntN(200)
		a, b := newBitRows(1, size), newBitRows(1, size)
		pa, pb := rng.Float64(), rng.Float64()
		for k := 0; k < size; k++ {
			if rng.Float64() < pa {
				a.set(0, k)
			}
			if rng.Float64() < pb {
				b.set(0, k)
			}
		}
		var want [][3]int
		ra, rb, n := 0, 0, 0
		for k := 0; k < size; k++ {
			ia, ib := a.has(0, k), b.has(0, k)
			if ia != ib && n > 0 {
				want = append(want, [3]int{ra - n, rb - n, n})
				n = 0
			}
			if ia && ib {
				n++
			}
			if ia {
				ra++
			}
			if ib {
				rb++
			}
		}
		if n > 0 {
			want = append(want, [3]int{ra - n, rb - n, n})
		}
		var got [][3]int
		eachRun(a.row(0), b.row(0), func(x, y, n int) { got = append(got, [3]int{x, y, n}) })
		if !slices.Equal(got, want) {
			t.Fatalf("size %d: got %v, want %v", size, got, want)
		}
	}
}
