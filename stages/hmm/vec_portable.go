//go:build !(goexperiment.simd && amd64)

package hmm

import "math"

// vec is 8 states' numbers in plain Go: a build without GOEXPERIMENT=simd
// (or not on amd64) has no vector registers to put them in. Its
// multiply-add is fused (math.FMA) as the vector instruction is, so the
// two builds' dense kernels compute the same numbers.
type vec [8]float64

func (a vec) Add(b vec) vec {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

func (a vec) Mul(b vec) vec {
	for i := range a {
		a[i] *= b[i]
	}
	return a
}

// MulAdd is a·b + c, rounded once.
func (a vec) MulAdd(b, c vec) vec {
	for i := range a {
		a[i] = math.FMA(a[i], b[i], c[i])
	}
	return a
}

func bcast(x float64) vec { return vec{x, x, x, x, x, x, x, x} }

// ld is the vector of s's first 8 numbers, st stores v there.
func ld(s []float64) vec    { return vec(s) }
func st(s []float64, v vec) { *(*vec)(s) = v }

// ldPart is ld of the first min(len(s), 8) numbers, 0 in the other
// lanes; stPart stores those lanes alone.
func ldPart(s []float64) (v vec) {
	copy(v[:], s)
	return v
}
func stPart(s []float64, v vec) { copy(s, v[:]) }

// vecKernel names the vector, vecRuns says whether this machine runs it:
// plain Go runs anywhere.
const vecKernel = "portable"

func vecRuns() bool { return true }
