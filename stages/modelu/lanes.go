package modelu

import (
	"math"
	"sync"

	"github.com/grind-nlp/grind/internal/vec8"
)

// Model U's lanes: the charts of up to eight instances of one shape (the
// chains of one length; a spelling neighbourhood's lattices of one
// length, whose symbols seldom repeat) filled at once, each table holding
// every lane's number of a cell side by side ([cell·lanes + lane]), so
// that a term's indices are read once for the eight and each multiply or
// add is one vector operation (internal/vec8: AVX-512 under
// GOEXPERIMENT=simd). A lane does exactly the scalar chart's operations in
// its order, no fused multiply-add, and skips what it skips (a term of
// an edge of potential 0, an item of outside 0) by a mask: its log Z and
// posteriors are the scalar chart's to the bit.
//
// The lanes group a corpus's instances by shape across the whole corpus,
// not within Objective's chunks (64 chunks of 45 Turkish sentences leave
// most batches short); each such instance's log Z and posteriors are
// kept, and the chunks add them up afterwards in the order they add the
// scalar chart's. A shape met fewer than minLanes times stays in the
// scalar chart, run where the chunks reach its instance, as without
// lanes.

const lanes = vec8.Lanes

// laneKernel is the lane kernel Objective uses: the AVX-512 lanes where
// this machine has them, else none (the scalar charts one by one, as
// always). The plain-Go lanes of a build without GOEXPERIMENT=simd are
// slower than the scalar chart: only the tests run them, to check the
// lanes' arithmetic in every build.
var laneKernel = vec8.Native()

// minLanes is the fewest instances of one shape that go to lanes: fewer
// are cheaper in the scalar chart, where their counts need not be kept
// (UD Turkish's TRANS2 neighbourhoods without spelling have 875 shapes
// for 2,886 lattices: with 2, its runs were 0–10% slower than without
// lanes).
const minLanes = 4

// unit is up to lanes instances of one shape, whose charts are filled
// together, and their results, kept between Objective's two passes.
type unit struct {
	ins  []*Instance
	logZ [lanes]float64
	// mu is the posteriors of the E items, instance l's at mu[l·n:(l+1)·n]
	// (n E items): each instance's together, as the chunks read them.
	mu []float64
}

// posted is where an instance's results are: its unit and lane (no
// unit: the scalar chart's, not kept).
type posted struct {
	u    *unit
	lane int
}

func (p posted) logZ() float64 { return p.u.logZ[p.lane] }

// sumPosteriors is Instance.sumPosteriors from the unit's posteriors.
func (p posted) sumPosteriors(sums []float64, sign float64) {
	in := p.u.ins[p.lane]
	n := len(in.pair)
	in.sumPosteriors(p.u.mu[p.lane*n:(p.lane+1)*n], sums, sign)
}

// units groups the instances of the shapes met minLanes times or more
// into units, in order of first appearance, batches of lanes (the last
// of a shape's maybe short). at[j] is where instances[j]'s results will
// be.
func units(instances []*Instance) (us []*unit, at []posted) {
	count := map[*shape]int{}
	for _, in := range instances {
		if in != nil {
			count[in.Chart.sh]++
		}
	}
	open := map[*shape]*unit{}
	at = make([]posted, len(instances))
	for j, in := range instances {
		if in == nil || count[in.Chart.sh] < minLanes {
			continue
		}
		sh := in.Chart.sh
		u := open[sh]
		if u == nil || len(u.ins) == lanes {
			u = &unit{}
			us = append(us, u)
			open[sh] = u
		}
		at[j] = posted{u, len(u.ins)}
		u.ins = append(u.ins, in)
	}
	return us, at
}

// fill computes the unit's log Z and posteriors at the weights its
// instances' tables of pairs were loaded with.
func (u *unit) fill() {
	b := lanePool.Get().(*laneChart)
	b.load(u.ins)
	b.inside(&u.logZ)
	u.mu = resize(u.mu, len(b.sh.pairs)*len(u.ins))
	b.outside(&u.logZ, u.mu)
	lanePool.Put(b)
}

// laneChart is Chart's sum over lanes instances of one shape.
type laneChart struct {
	sh   *shape
	used int // lanes in use
	ends [][2]int32
	c    [lanes]float64
	// [x·lanes + lane]: pot, E and oE by E item, R, L, oR, oL by cell.
	pot, E, oE, R, L, oR, oL []float64
}

var lanePool = sync.Pool{New: func() any { return new(laneChart) }}

func ld(s []float64) vec8.Vec    { return vec8.Load(s) }
func st(s []float64, v vec8.Vec) { vec8.Store(s, v) }

// load sets the lanes' potentials: lane l's are instance l's, from its
// table of pairs, as Chart.loadPairs sets them; lanes beyond the
// instances get potentials 0.
func (b *laneChart) load(ins []*Instance) {
	sh := ins[0].Chart.sh
	b.sh, b.used = sh, len(ins)
	b.pot = resize(b.pot, len(sh.pairs)*lanes)
	if b.used < lanes {
		clear(b.pot)
	}
	for l, in := range ins {
		b.c[l] = in.pairs.c
		pot := in.pairs.pot
		for i, k := range in.pair {
			b.pot[i*lanes+l] = pot[k]
		}
	}
	b.ends = b.ends[:0]
	for _, x := range ins[0].Lat.Arcs {
		b.ends = append(b.ends, [2]int32{int32(x.From), int32(x.To)})
	}
}

// inside is Chart.Inside(false) in every lane: logZ[l] is lane l's log Z.
func (b *laneChart) inside(logZ *[lanes]float64) {
	sh, S := b.sh, b.sh.S
	cells := sh.A * S * lanes
	b.R, b.L, b.E = resize(b.R, cells), resize(b.L, cells), resize(b.E, len(sh.pairs)*lanes)
	R, L, E, pot := b.R, b.L, b.E, b.pot
	zero, one := vec8.Broadcast(0), vec8.Broadcast(1)
	for a, x := range b.ends {
		st(R[(a*S+int(x[1]))*lanes:], one)
		st(L[(a*S+int(x[0]))*lanes:], one)
	}
	for w := range sh.widths() {
		for i := int(sh.eAt[w]); i < int(sh.eAt[w+1]); i++ {
			a, c := int(sh.pairs[i][0])*S, int(sh.pairs[i][1])*S
			sum := zero
			for _, m := range sh.eM[sh.eOff[i]:sh.eOff[i+1]] {
				sum = sum.Add(ld(R[(a+int(m))*lanes:]).Mul(ld(L[(c+int(m))*lanes:])))
			}
			st(E[i*lanes:], ld(pot[i*lanes:]).Mul(sum))
		}
		laneSums(sh.rAt[w], sh.rAt[w+1], sh.rCell, sh.rOff, sh.rTerm, E, R)
		laneSums(sh.lAt[w], sh.lAt[w+1], sh.lCell, sh.lOff, sh.lTerm, E, L)
	}
	vec8.Settle()
	for l := range b.used {
		logZ[l] = sh.logZ(R[l:], lanes, b.c[l], false)
	}
}

// laneSums is addTerms for R (or L) items j to end in every lane, X
// their side's table: a term of an edge of potential 0 leaves a lane's
// sum as it is.
func laneSums(j, end int32, cell, off, term []int32, E, X []float64) {
	zero := vec8.Broadcast(0)
	for ; j < end; j++ {
		terms := term[2*off[j] : 2*off[j+1]]
		sum := zero
		for k := 0; k+1 < len(terms); k += 2 {
			e := ld(E[int(terms[k])*lanes:])
			sum = sum.Add(e.Mul(ld(X[int(terms[k+1])*lanes:]))).Merge(sum, e.NotEqual(zero))
		}
		st(X[int(cell[j])*lanes:], sum)
	}
}

// outside is Chart.outside and posteriors in every lane: mu[l·n + i] is
// E item i's posterior in lane l, of n (0 in a lane whose log Z is out
// of range, as the scalar chart gives none there).
func (b *laneChart) outside(logZ *[lanes]float64, mu []float64) {
	sh, S := b.sh, b.sh.S
	cells := sh.A * S * lanes
	b.oR, b.oL, b.oE = grow(b.oR, cells), grow(b.oL, cells), grow(b.oE, len(sh.pairs)*lanes)
	R, L, E, pot, oR, oL, oE := b.R, b.L, b.E, b.pot, b.oR, b.oL, b.oE
	for l := range b.used {
		if z := logZ[l]; !math.IsInf(z, 0) && !math.IsNaN(z) {
			for _, root := range sh.roots {
				oR[int(root[0])*lanes+l] = math.Exp(float64(root[1])*b.c[l] - z)
			}
		}
	}
	zero := vec8.Broadcast(0)
	for w := sh.widths() - 1; w >= 0; w-- {
		laneOutsideTerms(sh.lAt[w], sh.lAt[w+1], sh.lCell, sh.lOff, sh.lTerm, E, L, oE, oL)
		laneOutsideTerms(sh.rAt[w], sh.rAt[w+1], sh.rCell, sh.rOff, sh.rTerm, E, R, oE, oR)
		for i := int(sh.eAt[w]); i < int(sh.eAt[w+1]); i++ {
			o, ev := ld(oE[i*lanes:]), ld(E[i*lanes:])
			on := o.NotEqual(zero).And(ev.NotEqual(zero))
			st(oE[i*lanes:], o.Mul(ev).Merge(zero, on)) // the posterior, oE[i] read for the last time
			if on.ToBits() == 0 {
				continue
			}
			a, c := int(sh.pairs[i][0])*S, int(sh.pairs[i][1])*S
			p := o.Mul(ld(pot[i*lanes:]))
			for _, m := range sh.eM[sh.eOff[i]:sh.eOff[i+1]] {
				addMasked(oR[(a+int(m))*lanes:], p, ld(L[(c+int(m))*lanes:]), on)
				addMasked(oL[(c+int(m))*lanes:], p, ld(R[(a+int(m))*lanes:]), on)
			}
		}
	}
	vec8.Settle()
	n := len(sh.pairs)
	for l := range b.used {
		for i := range n {
			mu[l*n+i] = oE[i*lanes+l]
		}
	}
}

// laneOutsideTerms is outsideTerms in every lane: a lane whose item has
// outside 0, or whose term's edge has potential 0, adds nothing.
func laneOutsideTerms(j, end int32, cells, off, term []int32, E, X, oE, oX []float64) {
	zero := vec8.Broadcast(0)
	for ; j < end; j++ {
		o := ld(oX[int(cells[j])*lanes:])
		live := o.NotEqual(zero)
		if live.ToBits() == 0 {
			continue
		}
		terms := term[2*off[j] : 2*off[j+1]]
		for k := 0; k+1 < len(terms); k += 2 {
			e, cell := int(terms[k])*lanes, int(terms[k+1])*lanes
			ev := ld(E[e:])
			on := live.And(ev.NotEqual(zero))
			addMasked(oX[cell:], o, ev, on)
			addMasked(oE[e:], o, ld(X[cell:]), on)
		}
	}
}

// addMasked adds o·x to the lanes of s's first cell that on says.
func addMasked(s []float64, o, x vec8.Vec, on vec8.Mask) {
	v := ld(s)
	st(s, v.Add(o.Mul(x)).Merge(v, on))
}
