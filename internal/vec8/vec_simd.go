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

// Exp is math.Exp of every lane whose x is in [ExpMin, ExpMax], to the
// bit: the operations of math.Exp's amd64 assembly on a machine with FMA
// (Shibata's reduction by ln 2 and 1/16, a Taylor polynomial, four
// squarings of e^r − 1), in its order, on 8 lanes; the other lanes hold
// no meaningful number. (math.Exp takes its FMA path on every machine
// with AVX-512.) Its constants are loaded, not broadcast: a broadcast
// from a constant is a few instructions, a load one.
func Exp(x Vec) Vec {
	c := &expConst
	k := x.Mul(load(&c[0])).RoundToEvenScaled(0) // CVTSD2SL, CVTSL2SD
	r := k.MulAdd(load(&c[1]), x)
	r = k.MulAdd(load(&c[2]), r).Mul(load(&c[3]))
	p := load(&c[4]).MulAdd(r, load(&c[5]))
	for i := 6; i < 12; i++ {
		p = p.MulAdd(r, load(&c[i]))
	}
	y := r.Mul(p)
	two := load(&c[12])
	for range 3 {
		y = y.Mul(y.Add(two))
	}
	y = y.MulAdd(y.Add(two), load(&c[11]))
	scale := k.ConvertToInt64().Add(archsimd.LoadInt64x8(&expBias)).ShiftAllLeft(52).AsFloat64x8()
	return y.Mul(scale)
}

// expConst are Exp's constants, each in every lane: log₂e, −ln 2 in two
// parts, 1/16, the Taylor coefficients 1/8! … 1/2!, 1 (which ends them
// and the squarings), and 2.
var expConst = [...][Lanes]float64{
	splat(1.4426950408889634073599246810018920),
	splat(-0.69314718055966295651160180568695068359375),
	splat(-0.28235290563031577122588448175013436025525412068e-12),
	splat(0.0625),
	splat(2.4801587301587301587e-5),
	splat(1.9841269841269841270e-4),
	splat(1.3888888888888888889e-3),
	splat(8.3333333333333333333e-3),
	splat(4.1666666666666666667e-2),
	splat(1.6666666666666666667e-1),
	splat(0.5),
	splat(1),
	splat(2),
}

// expBias is the exponent's bias, in every lane.
var expBias = [Lanes]int64{0x3FF, 0x3FF, 0x3FF, 0x3FF, 0x3FF, 0x3FF, 0x3FF, 0x3FF}

func splat(x float64) (a [Lanes]float64) {
	for i := range a {
		a[i] = x
	}
	return a
}

func storeBits(p *[Lanes]uint64, v Vec) { v.AsUint64x8().Store(p) }
func loadBits(p *[Lanes]uint64) Vec     { return archsimd.LoadUint64x8(p).AsFloat64x8() }
