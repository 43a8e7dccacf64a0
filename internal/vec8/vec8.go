// Package vec8 is the vector of the batched E-steps: eight float64s —
// one chart cell of eight sentences of one length (stages/dmv,
// stages/ccm), or eight states of an HMM (stages/hmm) — so that every
// Add, Mul and MulAdd of a kernel is one operation for the eight. Built with GOEXPERIMENT=simd on amd64 a Vec is an AVX-512
// register (simd/archsimd's Float64x8, vec_simd.go); otherwise it is an
// array in plain Go with the same methods (vec_portable.go), slower than a
// scalar chart, which the tests use to check the lanes' arithmetic in
// every build.
package vec8

import "math"

// Lanes is how many float64s a Vec holds.
const Lanes = 8

// Native is Kernel where the E-steps run their vector kernels: a build
// whose Vec is the machine's own register (AVX-512) on a machine that has
// it; else "". The plain-Go Vec of a portable build is slower than the
// scalar code it would replace, so only the tests run it.
func Native() string {
	if Kernel == "avx512" && Runs() {
		return Kernel
	}
	return ""
}

// Load is the Vec of s's first Lanes numbers, Store puts v there.
func Load(s []float64) Vec     { return load((*[Lanes]float64)(s)) }
func Store(s []float64, v Vec) { v.Store((*[Lanes]float64)(s)) }

// LoadArray is the Vec of p's numbers (v.Store(p) puts v there): from an
// array, no slice's length to check.
func LoadArray(p *[Lanes]float64) Vec { return load(p) }

// LoadPart is Load of the first min(len(s), Lanes) numbers, 0 in the
// other lanes; StorePart stores those lanes alone (the memory beyond s is
// not touched).
func LoadPart(s []float64) Vec     { return loadPart(s) }
func StorePart(s []float64, v Vec) { storePart(s, v) }

// StoreBits puts the IEEE bits of v's lanes at p, LoadBits is the Vec of
// the bits at p: for lane-wise work on the bits with integer operations
// between vector ones (scalar floating point there would wait on the
// vector registers' upper halves, see Settle).
func StoreBits(p *[Lanes]uint64, v Vec) { storeBits(p, v) }
func LoadBits(p *[Lanes]uint64) Vec     { return loadBits(p) }

// ExpMin and ExpMax bound the lanes whose Exp is math.Exp's: those
// whose result is a normal number, neither a subnormal nor +Inf.
const (
	ExpMin = -708
	ExpMax = 709
)

// FactorOf is x in the lanes where it is a positive number (a factor
// scaling may divide by) and 1 in the others: 0, +Inf, NaN.
func FactorOf(x Vec) Vec {
	ok := x.Greater(Broadcast(0)).And(x.LessEqual(Broadcast(math.MaxFloat64)))
	return x.Merge(Broadcast(1), ok)
}

// Within is ok, false in the lanes where x is not in [lo, hi] (or is
// NaN).
func Within(ok Mask, x Vec, lo, hi float64) Mask {
	return ok.And(x.GreaterEqual(Broadcast(lo))).And(x.LessEqual(Broadcast(hi)))
}

// AddTo adds src to dst number by number, the same sums in any build:
// eight at a time where a Vec is a register this machine has (then
// Settle), one at a time elsewhere. It folds the E-steps' count tables.
func AddTo(dst, src []float64) {
	src = src[:len(dst)]
	i := 0
	if Native() != "" {
		for ; i+Lanes <= len(dst); i += Lanes {
			Store(dst[i:], Load(dst[i:]).Add(Load(src[i:])))
		}
		Settle()
	}
	for ; i < len(dst); i++ {
		dst[i] += src[i]
	}
}
