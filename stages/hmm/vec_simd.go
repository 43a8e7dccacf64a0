//go:build goexperiment.simd && amd64

package hmm

import "simd/archsimd"

// vec is 8 states' numbers in one 512-bit register (AVX-512): each
// multiply-add of the dense forward–backward (fbvec.go) is one
// instruction for 8 states.
type vec = archsimd.Float64x8

func bcast(x float64) vec { return archsimd.BroadcastFloat64x8(x) }

// ld is the vector of s's first 8 numbers, st stores v there.
func ld(s []float64) vec    { return archsimd.LoadFloat64x8((*[8]float64)(s)) }
func st(s []float64, v vec) { v.Store((*[8]float64)(s)) }

// ldPart is ld of the first min(len(s), 8) numbers, 0 in the other
// lanes; stPart stores those lanes alone (masked: the memory beyond s is
// not touched).
func ldPart(s []float64) vec    { return archsimd.LoadFloat64x8SlicePart(s) }
func stPart(s []float64, v vec) { v.StoreSlicePart(s) }

// vecKernel names the vector, vecRuns says whether this machine has its
// instructions (a CPU without AVX-512 would fault on them).
const vecKernel = "avx512"

func vecRuns() bool { return archsimd.X86.AVX512() }
