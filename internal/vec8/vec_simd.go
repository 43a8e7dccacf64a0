//go:build goexperiment.simd && amd64

package vec8

import "simd/archsimd"

// Vec is eight lanes in a 512-bit register, Mask a lane mask.
type (
	Vec  = archsimd.Float64x8
	Mask = archsimd.Mask64x8
)

func load(p *[Lanes]float64) Vec { return archsimd.LoadFloat64x8(p) }

func loadPart(s []float64) Vec     { return archsimd.LoadFloat64x8SlicePart(s) }
func storePart(s []float64, v Vec) { v.StoreSlicePart(s) }

// Broadcast is x in every lane.
func Broadcast(x float64) Vec { return archsimd.BroadcastFloat64x8(x) }

// AllTrue is a mask of every lane.
func AllTrue() Mask { return archsimd.Mask64x8FromBits(0xff) }

// Kernel names the lane vector; Runs says whether this machine has its
// instructions (a CPU without AVX-512 would fault on them).
const Kernel = "avx512"

func Runs() bool { return archsimd.X86.AVX512() }

// Settle ends a run of vector code before scalar floating point (math,
// tables): the SSE instructions of Go's scalar code otherwise wait on the
// vector registers' upper halves (VZEROUPPER).
func Settle() { archsimd.ClearAVXUpperBits() }

func storeBits(p *[Lanes]uint64, v Vec) { v.AsUint64x8().Store(p) }
func loadBits(p *[Lanes]uint64) Vec     { return archsimd.LoadUint64x8(p).AsFloat64x8() }
