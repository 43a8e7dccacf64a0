//go:build !(goexperiment.simd && amd64)

package dmv

import "math"

// vec is one chart cell of every lane, in plain Go: a build without
// GOEXPERIMENT=simd (or not on amd64) has no vector registers to put it
// in.
type vec [lanes]float64

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

func (a vec) Div(b vec) vec {
	for i := range a {
		a[i] /= b[i]
	}
	return a
}

// Max is max for the numbers of a chart (not NaN): larger, lane by lane.
func (a vec) Max(b vec) vec {
	for i := range a {
		a[i] = larger(a[i], b[i])
	}
	return a
}

// factorOf is x in the lanes where it is a positive number (a factor
// scaling may divide by) and 1 in the others: 0, +Inf, NaN.
func factorOf(x vec) vec {
	for i, v := range x {
		if !(v > 0 && v <= math.MaxFloat64) {
			x[i] = 1
		}
	}
	return x
}

// ld is the vector of the lanes of s's first cell, st stores v there.
func ld(s []float64) vec    { return vec(s) }
func st(s []float64, v vec) { *(*vec)(s) = v }

func (a vec) Store(p *[lanes]float64) { *p = a }

// vecKernel names the lanes' vector, vecRuns says whether this machine
// runs it: plain Go runs anywhere.
const vecKernel = "portable"

func vecRuns() bool { return true }
