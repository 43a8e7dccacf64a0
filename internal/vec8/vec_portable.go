//go:build !(goexperiment.simd && amd64)

package vec8

import "math"

// Vec is eight lanes in plain Go: a build without GOEXPERIMENT=simd (or
// not on amd64) has no vector registers to put them in. Its methods are
// simd/archsimd's Float64x8's that the lane kernels use, lane by lane.
type Vec [Lanes]float64

// Mask is a lane mask.
type Mask [Lanes]bool

func load(p *[Lanes]float64) Vec { return *p }

func (a Vec) Store(p *[Lanes]float64) { *p = a }

// Broadcast is x in every lane.
func Broadcast(x float64) Vec {
	var v Vec
	for i := range v {
		v[i] = x
	}
	return v
}

// AllTrue is a mask of every lane.
func AllTrue() Mask {
	var m Mask
	for i := range m {
		m[i] = true
	}
	return m
}

func (a Vec) Add(b Vec) Vec {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

func (a Vec) Mul(b Vec) Vec {
	for i := range a {
		a[i] *= b[i]
	}
	return a
}

// MulAdd is a·b + c, rounded once (math.FMA), as the vector instruction
// rounds it.
func (a Vec) MulAdd(b, c Vec) Vec {
	for i := range a {
		a[i] = math.FMA(a[i], b[i], c[i])
	}
	return a
}

func (a Vec) Div(b Vec) Vec {
	for i := range a {
		a[i] /= b[i]
	}
	return a
}

// Max is the larger of a and b, lane by lane, for the numbers of a chart
// (not NaN).
func (a Vec) Max(b Vec) Vec {
	for i := range a {
		if b[i] > a[i] {
			a[i] = b[i]
		}
	}
	return a
}

// Merge is a in the lanes of m, b in the others.
func (a Vec) Merge(b Vec, m Mask) Vec {
	for i := range a {
		if !m[i] {
			a[i] = b[i]
		}
	}
	return a
}

func (a Vec) Greater(b Vec) Mask {
	var m Mask
	for i := range m {
		m[i] = a[i] > b[i]
	}
	return m
}

func (a Vec) GreaterEqual(b Vec) Mask {
	var m Mask
	for i := range m {
		m[i] = a[i] >= b[i]
	}
	return m
}

func (a Vec) LessEqual(b Vec) Mask {
	var m Mask
	for i := range m {
		m[i] = a[i] <= b[i]
	}
	return m
}

func (a Vec) NotEqual(b Vec) Mask {
	var m Mask
	for i := range m {
		m[i] = a[i] != b[i]
	}
	return m
}

func (m Mask) And(o Mask) Mask {
	for i := range m {
		m[i] = m[i] && o[i]
	}
	return m
}

// Kernel names the lane vector; Runs says whether this machine runs it:
// plain Go runs anywhere.
const Kernel = "portable"

func Runs() bool { return true }

// ToBits is the mask as bits, lane l at bit l.
func (m Mask) ToBits() uint8 {
	var b uint8
	for i, on := range m {
		if on {
			b |= 1 << i
		}
	}
	return b
}

// Settle ends a run of vector code: nothing to do in plain Go.
func Settle() {}

func loadPart(s []float64) (v Vec) {
	copy(v[:], s)
	return v
}

func storePart(s []float64, v Vec) { copy(s, v[:]) }

// Log is math.Log lane by lane.
func Log(x Vec) Vec {
	for i := range x {
		x[i] = math.Log(x[i])
	}
	return x
}

// Exp is math.Exp lane by lane.
func Exp(x Vec) Vec {
	for i := range x {
		x[i] = math.Exp(x[i])
	}
	return x
}

func storeBits(p *[Lanes]uint64, v Vec) {
	for i, x := range v {
		p[i] = math.Float64bits(x)
	}
}

func loadBits(p *[Lanes]uint64) (v Vec) {
	for i, b := range p {
		v[i] = math.Float64frombits(b)
	}
	return v
}
