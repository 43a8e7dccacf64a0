package ccm

import (
	"math"

	"github.com/grind-nlp/grind/internal/vec8"
	"github.com/grind-nlp/grind/stages/bintree"
)

// lanes is how many sentences a laneChart holds, vec one chart cell of
// every lane (internal/vec8: an AVX-512 register with GOEXPERIMENT=simd
// on amd64, plain Go otherwise).
const lanes = vec8.Lanes

type vec = vec8.Vec

// laneChart is chart's inside and outside passes run over lanes sentences
// of one length at once (a batch). Every table holds each cell of every
// lane side by side ([cell·lanes + lane], cell i·(n+1)+j for span [i, j)),
// so the loops and their loads are shared by all lanes and each multiply
// or add is one vector operation.
//
// Each lane's potentials are the scalar chart's (potentials: its own
// scale, its own K as mantissa and exponent), and each lane does exactly
// the floating-point operations of inside, outside and sentence, in the
// same order and without fused multiply-adds, so a lane's log P(s) and
// posteriors are the scalar chart's, bit for bit. A lane whose chart
// leaves the range in which the scalar chart is exact (inside's check) is
// redone there, which then takes it to log space as it always did.
type laneChart struct {
	n             int
	phi, in, out  []float64
	logK, logSc   [lanes]float64 // each lane's log K(s) and log of its scale
	inRange       uint8          // bit l: lane l's φ and I all in range (inside)
	one           chart          // a lane's potentials, before they are spread
	capacityCells int
}

// grow sizes the tables for sentences of n words.
func (b *laneChart) grow(n int) {
	b.n = n
	cells := (n + 1) * (n + 1)
	if cells > b.capacityCells {
		b.phi, b.in, b.out = make([]float64, cells*lanes), make([]float64, cells*lanes), make([]float64, cells*lanes)
		b.capacityCells = cells
	}
}

// load sets lane l's potentials for sentence s, as the scalar chart's.
func (b *laneChart) load(m *Model, c *Corpus, l int, s Sentence) {
	b.logK[l], b.logSc[l] = m.potentials(c, s, &b.one)
	n, w := b.n, b.n+1
	phi := b.one.phi
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			b.phi[(i*w+j)*lanes+l] = phi[i*w+j]
		}
	}
}

// pad fills lanes from..lanes−1 with lane from−1's potentials, so that
// every lane of a short batch holds numbers (its results unread).
func (b *laneChart) pad(from int) {
	n, w := b.n, b.n+1
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			c := cell(b.phi, i*w+j)
			for l := from; l < lanes; l++ {
				c[l] = c[from-1]
			}
		}
	}
}

// cell is the lanes of cell k of table t.
func cell(t []float64, k int) []float64 { return t[k*lanes : k*lanes+lanes] }

// The range inside requires of every φ and I (inRange's).
const lowest, highest = 0x1p-300, 0x1p300

// inside is inside over every lane; b.inRange gets the lanes whose φ and I
// all lie in [2^−300, 2^300], where the scalar chart's inside says true.
func (b *laneChart) inside() {
	n, w := b.n, b.n+1
	phi, in := b.phi, b.in
	ok := vec8.AllTrue()
	for i := 0; i < n; i++ {
		p := vec8.Load(cell(phi, i*w+i+1))
		vec8.Store(cell(in, i*w+i+1), p)
		ok = vec8.Within(ok, p, lowest, highest)
	}
	for l := 2; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l
			var sum vec
			for k := i + 1; k < j; k++ {
				sum = sum.Add(vec8.Load(cell(in, i*w+k)).Mul(vec8.Load(cell(in, k*w+j))))
			}
			p := vec8.Load(cell(phi, i*w+j))
			v := p.Mul(sum)
			vec8.Store(cell(in, i*w+j), v)
			ok = vec8.Within(vec8.Within(ok, p, lowest, highest), v, lowest, highest)
		}
	}
	b.inRange = ok.ToBits()
}

// outside is outside over every lane. The scalar chart skips a span whose
// outside weight is 0; a lane in range has none, and adds nothing there.
func (b *laneChart) outside() {
	n, w := b.n, b.n+1
	phi, in, out := b.phi, b.in, b.out
	clear(out[:w*w*lanes])
	vec8.Store(cell(out, n), vec8.Broadcast(1)) // (0, n)
	for l := n; l >= 2; l-- {
		for i := 0; i+l <= n; i++ {
			j := i + l
			g := vec8.Load(cell(out, i*w+j)).Mul(vec8.Load(cell(phi, i*w+j)))
			for k := i + 1; k < j; k++ {
				ik, kj := cell(out, i*w+k), cell(out, k*w+j)
				vec8.Store(ik, vec8.Load(ik).Add(g.Mul(vec8.Load(cell(in, k*w+j)))))
				vec8.Store(kj, vec8.Load(kj).Add(g.Mul(vec8.Load(cell(in, i*w+k)))))
			}
		}
	}
}

// usable says whether lane l is as the scalar chart would take it: its φ
// and I in range and its K a number.
func (b *laneChart) usable(l int) bool {
	return b.inRange&(1<<l) != 0 && !math.IsInf(b.logK[l], 0) && !math.IsNaN(b.logK[l])
}

// logProb is lane l's log P(s), as sentence computes it.
func (b *laneChart) logProb(l int) float64 {
	n := b.n
	return b.logK[l] + math.Log(b.in[n*lanes+l]) - float64(2*n-1)*b.logSc[l] - bintree.LogCatalan(n-1)
}

// posteriors writes the bracket posteriors of the lanes in posts (each
// its sentence's slice of the corpus-wide buffer; nil for a lane to
// skip), as sentence writes them.
func (b *laneChart) posteriors(posts *[lanes][]float64) {
	n, w := b.n, b.n+1
	z := vec8.Load(cell(b.in, n))
	var p [lanes]float64
	for i := 0; i < n; i++ {
		for j := i + 2; j <= n; j++ {
			k := i*w + j
			vec8.Load(cell(b.in, k)).Mul(vec8.Load(cell(b.out, k))).Div(z).Store(&p)
			for l, post := range posts {
				if post != nil {
					post[k] = p[l]
				}
			}
		}
	}
	for _, post := range posts {
		if post == nil {
			continue
		}
		for i := 0; i < n; i++ {
			post[i*w+i+1] = 1
		}
		post[n] = 1
	}
}

// cellPosteriors writes the bracket posteriors of every lane to post in
// laneSpans's layout, a cell's lanes at once, as posteriors computes them
// (a lane redone on the scalar chart is written over).
func (b *laneChart) cellPosteriors(post []float64) {
	n, w := b.n, b.n+1
	z := vec8.Load(cell(b.in, n))
	one := vec8.Broadcast(1)
	q := 0
	for i := 0; i <= n; i++ {
		q++ // the empty span [i, i)
		for j := i + 1; j <= n; j++ {
			p := one // a single token and the whole sentence
			if j > i+1 && !(i == 0 && j == n) {
				p = vec8.Load(cell(b.in, i*w+j)).Mul(vec8.Load(cell(b.out, i*w+j))).Div(z)
			}
			vec8.Store(cell(post, q), p)
			q++
		}
	}
}
