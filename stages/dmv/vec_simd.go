//go:build goexperiment.simd && amd64

package dmv

import (
	"math"
	"simd/archsimd"
)

// vec is one chart cell of every lane: a 512-bit register (AVX-512), so
// each Add and Mul of the lane kernel is one instruction for 8 sentences.
type vec = archsimd.Float64x8

// ld is the vector of the lanes of s's first cell, st stores v there.
func ld(s []float64) vec    { return archsimd.LoadFloat64x8((*[lanes]float64)(s)) }
func st(s []float64, v vec) { v.Store((*[lanes]float64)(s)) }

// factorOf is x in the lanes where it is a positive number (a factor
// scaling may divide by) and 1 in the others: 0, +Inf, NaN.
func factorOf(x vec) vec {
	ok := x.Greater(archsimd.BroadcastFloat64x8(0)).And(x.LessEqual(archsimd.BroadcastFloat64x8(math.MaxFloat64)))
	return x.Merge(archsimd.BroadcastFloat64x8(1), ok)
}

// vecKernel names the lanes' vector, vecRuns says whether this machine
// has its instructions (a CPU without AVX-512 would fault on them).
const vecKernel = "avx512"

func vecRuns() bool { return archsimd.X86.AVX512() }
