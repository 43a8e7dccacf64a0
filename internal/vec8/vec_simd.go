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

// Log is math.Log of every lane that holds a positive normal number, to
// the bit: the operations of math.Log's amd64 assembly (FreeBSD's log),
// in its order, on 8 lanes; the other lanes hold no meaningful number.
// (Eight logarithms one at a time wait on a division each.)
func Log(x Vec) Vec {
	const (
		hSqrt2 = 7.07106781186547524401e-01
		ln2Hi  = 6.93147180369123816490e-01
		ln2Lo  = 1.90821492927058770002e-10
		l1     = 6.666666666666735130e-01
		l2     = 3.999999999940941908e-01
		l3     = 2.857142874366239149e-01
		l4     = 2.222219843214978396e-01
		l5     = 1.818357216161805012e-01
		l6     = 1.531383769920937332e-01
		l7     = 1.479819860511658591e-01
	)
	bits := x.AsUint64x8()
	// f1, k := math.Frexp(x): f1 in [½, 1).
	f1 := bits.And(archsimd.BroadcastUint64x8(1<<52 - 1)).Or(archsimd.BroadcastUint64x8(0x3FE0000000000000)).AsFloat64x8()
	k := bits.ShiftAllRight(52).And(archsimd.BroadcastUint64x8(0x7FF)).AsInt64x8().Sub(archsimd.BroadcastInt64x8(0x3FE)).ConvertToFloat64()
	// Where f1 ≤ √2/2 (the assembly's compare): k −= 1, f1 ·= 2.
	low := f1.LessEqual(Broadcast(hSqrt2))
	one := Broadcast(1).Merge(Broadcast(0), low)
	k = k.Sub(one)
	f1 = f1.Mul(one.Add(Broadcast(1)))
	f := f1.Sub(Broadcast(1))
	s := f.Div(Broadcast(2).Add(f))
	s2 := s.Mul(s)
	s4 := s2.Mul(s2)
	t1 := s2.Mul(Broadcast(l7).Mul(s4).Add(Broadcast(l5)).Mul(s4).Add(Broadcast(l3)).Mul(s4).Add(Broadcast(l1)))
	t2 := s4.Mul(Broadcast(l6).Mul(s4).Add(Broadcast(l4)).Mul(s4).Add(Broadcast(l2)))
	r := t1.Add(t2)
	hfsq := Broadcast(0.5).Mul(f).Mul(f)
	inner := hfsq.Sub(s.Mul(r.Add(hfsq)).Add(k.Mul(Broadcast(ln2Lo)))).Sub(f)
	return k.Mul(Broadcast(ln2Hi)).Sub(inner)
}

func storeBits(p *[Lanes]uint64, v Vec) { v.AsUint64x8().Store(p) }
func loadBits(p *[Lanes]uint64) Vec     { return archsimd.LoadUint64x8(p).AsFloat64x8() }
