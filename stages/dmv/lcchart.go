package dmv

import (
	"fmt"
	"math"
)

// DepthBound is the left-corner depth bound of Noji, Miyao & Johnson
// (2016): the E-step, Viterbi and decoding restricted to the trees whose
// left-corner parse never needs more than Max stack levels, center
// embeddings of at most Chunk words not counting. Max 0 is no bound.
//
// Their chart (lcdmv) annotates every item of a left-corner split-head
// parser with its stack depth; read off a tree, the depth it gives is
// this (README, "Left-corner depth bound"). Every word's left half and
// right half sit at a depth, the root's both at 1. A word is predicted
// when it is a right dependent. A left dependent c of head x has its left
// half at the depth of x's left half, and its right half one deeper when
// c's subtree has more than Chunk words and c is not x's farthest left
// dependent or x is predicted. A right dependent a has its left half, and
// its farthest right dependent's subtree, at the depth of the half that
// predicted it (x's right half, or for a's farthest dependent a's left
// half); when a is predicted and has two or more right dependents, a with
// all but the farthest of them (a right half of its own) sits one deeper
// when it spans more than Chunk words. The tree's depth is the deepest
// half's.
type DepthBound struct {
	Max   int // stack levels allowed (lcdmv's maxDepth); 0: unbounded
	Chunk int // center embeddings of at most this many words do not count (lcdmv's maxChunkSize, ≥ 1)
}

// On says whether b restricts anything.
func (b DepthBound) On() bool { return b.Max > 0 }

// Check reports a bound no chart can use.
func (b DepthBound) Check() error {
	switch {
	case b.Max < 0:
		return fmt.Errorf("the depth bound must be ≥ 1, not %d", b.Max)
	case b.On() && b.Chunk < 1:
		return fmt.Errorf("the chunk length must be ≥ 1, not %d", b.Chunk)
	}
	return nil
}

// String names the bound as count headers hash it.
func (b DepthBound) String() string { return fmt.Sprintf("maxdepth=%d chunk=%d", b.Max, b.Chunk) }

// TreeChart is what the E-step and the decoder ask of a chart: the
// split-head Chart, or a BoundedChart.
type TreeChart interface {
	Load(tags []int, w *Params, dist []float64)
	LoadFactored(tags []int, w *Params, dist []float64, edge, root []float64)
	// AttachmentPosteriors are the loaded sentence's attachment
	// posteriors after Outside: edge[h·n+d] and root[d].
	AttachmentPosteriors() (edge, root []float64)
	Inside() float64
	Outside() bool
	AddCounts(tags []int, counts *Params, weight float64)
	Viterbi(heads []int) float64
	DecodeMBR(heads []int)
}

// BoundedChart is the DMV's chart restricted to the trees within a
// DepthBound: inside, outside (reverse-mode, as Chart's), posteriors,
// Viterbi. It takes its potentials — and their scaling — from a Chart's
// Load, so every re-weighting of the plain E-step applies unchanged, and
// keeps its posteriors there, so AddCounts and the posterior getters are
// Chart's.
//
// Its program is the split-head one with each item annotated by the
// depth d (0-based) of the context it sits in and split by what the
// depth rules need to know: a right half of a word that is not predicted
// (N) or is (P), a left half whose farthest child is exempt (0) or not
// (1), and for a left attachment the length ℓ of the child's left half,
// up to Chunk, so that the child's subtree length is known when its
// right half's depth is chosen. For Chunk λ, left attachments split by
// ℓ = 0..λ:
//
//	RN_d[h][j] = Σ_a IRN_d[h][a]·RsP_d[a][j]      RsN, RcN = RN·stop, RN·cont
//	RP_d[h][j] = Σ_a IRP_d[h][a]·RsP_d[a][j]      RsP = RP·stop
//	L0_d[h][i] = Σ_c IL0_d[h][c]·Ls0_d[c][i]      Ls0 = L0·stop
//	L1_d[h][i] = Σ_c A_{min(c−i,λ),d}[h][c]·Ls0_d[c][i]   Ls1, Lc = L1·stop, L1·cont
//	IRN_d[h][a] = edge·Σ_k RcN_d[h][k]·Ls1_d[a][k+1]
//	IRP_d[h][a] = edge·Σ_k RcN_{d+[k−h ≥ λ]}[h][k]·Ls1_d[a][k+1]
//	IL0_d[h][c] = edge·Σ_k RsN_d[c][k]·Lc_d[h][k+1]
//	A_{ℓ,d}[h][c] = edge·Σ_k RsN_{d+[ℓ+k−c ≥ λ]}[c][k]·Lc_d[h][k+1]
//	Z = Σ_r root(r)·Ls0_0[r][0]·RsN_0[r][n−1]
//
// with every item of depth Max zero. O(Max·n³) per pass, about twice the
// plain chart's work per depth level.
type BoundedChart struct {
	bound DepthBound
	pot   *Chart // potentials, scaling and posteriors
	n     int
	sq    int // n·n, the size of one depth level of a table
	// levels are the depths the sentence can reach within the bound:
	// each deeper half lies inside an embedding at least one word
	// shorter than the one before, so n words reach at most depth n.
	levels int
	// chunk is the bound's Chunk, at most n: no embedding is longer.
	chunk int

	// Inside items, [d·sq + …]: rows h·n+j for right halves and
	// attachments, transposes where the inner loops read columns.
	rsN, rcN, rsPT, ls0T, ls1, lc []float64
	irN, irP, il0                 []float64
	a                             [][]float64 // [ℓ], ℓ = 0..λ
	z                             float64

	// Adjoints, the same shapes.
	brsN, brcN, brsPT, bls0T, bls1, blc []float64
	birN, birP, bil0                    []float64
	ba                                  [][]float64

	// Viterbi back-pointers: split points of attachments, last children
	// of halves, the root.
	bpIRN, bpIRP, bpIL0, bpRN, bpRP, bpL0, bpL1 []int32
	bpA                                         [][]int32
	bestRoot                                    int

	capacity int
}

// NewBoundedChart makes a chart for bound (which must be on) and
// sentences of up to n tokens; it grows as needed.
func NewBoundedChart(bound DepthBound, n int) *BoundedChart {
	if !bound.On() || bound.Check() != nil {
		panic(fmt.Sprintf("dmv: NewBoundedChart with bound %+v", bound))
	}
	b := &BoundedChart{bound: bound, pot: NewChart(n)}
	b.grow(n)
	return b
}

func (b *BoundedChart) grow(n int) {
	if n <= b.capacity {
		return
	}
	size := min(b.bound.Max, n) * n * n
	f := func() []float64 { return make([]float64, size) }
	g := func() []int32 { return make([]int32, size) }
	b.rsN, b.rcN, b.rsPT, b.ls0T, b.ls1, b.lc = f(), f(), f(), f(), f(), f()
	b.irN, b.irP, b.il0 = f(), f(), f()
	b.brsN, b.brcN, b.brsPT, b.bls0T, b.bls1, b.blc = f(), f(), f(), f(), f(), f()
	b.birN, b.birP, b.bil0 = f(), f(), f()
	b.bpIRN, b.bpIRP, b.bpIL0, b.bpRN, b.bpRP, b.bpL0, b.bpL1 = g(), g(), g(), g(), g(), g(), g()
	chunks := min(b.bound.Chunk, n) + 1
	b.a, b.ba, b.bpA = make([][]float64, chunks), make([][]float64, chunks), make([][]int32, chunks)
	for l := range b.a {
		b.a[l], b.ba[l], b.bpA[l] = f(), f(), g()
	}
	b.capacity = n
}

// Len is the length of the loaded sentence.
func (b *BoundedChart) Len() int { return b.n }

// Load sets the potentials as Chart.Load does.
func (b *BoundedChart) Load(tags []int, w *Params, dist []float64) {
	b.pot.Load(tags, w, dist)
	b.loaded()
}

// LoadFactored is Load with per-attachment factors, as Chart's.
func (b *BoundedChart) LoadFactored(tags []int, w *Params, dist []float64, edge, root []float64) {
	b.pot.LoadFactored(tags, w, dist, edge, root)
	b.loaded()
}

// AttachmentPosteriors are those Outside left in the potentials' chart.
func (b *BoundedChart) AttachmentPosteriors() (edge, root []float64) {
	return b.pot.AttachmentPosteriors()
}

// LoadScores sets additive scores as Chart.LoadScores does: Viterbi then
// finds the bounded tree of highest total score.
func (b *BoundedChart) LoadScores(n int, edge, root []float64) {
	b.pot.LoadScores(n, edge, root)
	b.loaded()
}

func (b *BoundedChart) loaded() {
	b.n = b.pot.n
	b.sq = b.n * b.n
	b.levels, b.chunk = min(b.bound.Max, b.n), min(b.bound.Chunk, b.n)
	b.grow(b.n)
}

// Inside runs the inside pass and returns log Z over the trees within
// the bound (as Chart.Inside: −Inf when 0, NaN when no scale holds it).
func (b *BoundedChart) Inside() float64 {
	b.settle(false)
	return b.LogZ()
}

// LogZ is log Z of the last inside pass.
func (b *BoundedChart) LogZ() float64 {
	switch {
	case math.IsNaN(b.z):
		return math.NaN()
	case b.z <= 0:
		return math.Inf(-1)
	}
	return math.Log(b.z) + b.pot.logScale
}

// settle runs inside until Z is a normal number, rescaling every
// attachment by a common factor as Chart.settle does (a factor x on
// every attachment multiplies every tree, bounded or not, by xⁿ).
func (b *BoundedChart) settle(viterbi bool) {
	b.inside(viterbi)
	_, weight := SeekScale(b.z, float64(b.n), 40, func(x, next float64) float64 {
		b.pot.rescaleAttachments(math.Exp(next - x))
		b.inside(viterbi)
		return b.z
	})
	if !normal(b.z) {
		none := !weight && b.noTree()
		b.z, b.bestRoot = math.NaN(), -1
		if none {
			b.z = 0
		}
	}
}

// noTree says whether no tree within the bound has positive weight:
// inside over the potentials' support is 0. It overwrites the
// potentials.
func (b *BoundedChart) noTree() bool {
	c, n := b.pot, b.n
	for _, p := range [...][]float64{c.root[:n], c.edge[:n*n], c.stop[:4*n], c.cont[:4*n]} {
		for i, v := range p {
			if v > 0 {
				p[i] = 1
			} else {
				p[i] = 0
			}
		}
	}
	b.inside(false)
	return b.z == 0
}

// inside fills the chart bottom-up by width, every depth at each width;
// with viterbi in the max-product semiring, keeping back-pointers.
func (b *BoundedChart) inside(viterbi bool) {
	n, sq, lam, levels := b.n, b.sq, b.chunk, b.levels
	c := b.pot
	for d := 0; d < levels; d++ {
		o := d * sq
		for h := 0; h < n; h++ {
			hh := o + h*n + h
			b.rsN[hh] = c.stop[h*4+Right*2+Adj]
			b.rcN[hh] = c.cont[h*4+Right*2+Adj]
			b.rsPT[hh] = c.stop[h*4+Right*2+Adj]
			b.ls0T[hh] = c.stop[h*4+Left*2+Adj]
			b.ls1[hh] = c.stop[h*4+Left*2+Adj]
			b.lc[hh] = c.cont[h*4+Left*2+Adj]
		}
	}
	// sum2 combines two pieces of one sum: in the max-product semiring
	// the larger, the first on ties (its split points come first).
	sum2 := func(s1 float64, k1 int, s2 float64, k2 int) (float64, int) {
		if !viterbi {
			return s1 + s2, 0
		}
		if s2 > s1 {
			return s2, k2
		}
		return s1, k1
	}
	dotK := func(x, y []float64) (float64, int) {
		if viterbi {
			return maxDot(x, y)
		}
		return dot(x, y), 0
	}
	for w := 1; w < n; w++ {
		for d := 0; d < levels; d++ {
			o, deeper := d*sq, d+1 < levels
			// Right attachments h→a, a = h+w.
			for h := 0; h+w < n; h++ {
				a := h + w
				e := c.edge[h*n+a]
				rc, ls := b.rcN[o+h*n+h:o+h*n+a], b.ls1[o+a*n+h+1:o+a*n+a+1]
				s, k := dotK(rc, ls)
				b.irN[o+h*n+a], b.bpIRN[o+h*n+a] = e*s, int32(h+k)
				// IRP: the inner right half h..k one deeper once it
				// spans more than λ words (k ≥ h+λ).
				m := min(w, lam)
				s1, k1 := dotK(rc[:m], ls)
				s2, k2 := 0.0, 0 // weights are ≥ 0: an empty piece is 0
				if deeper && m < w {
					o1 := o + sq
					s2, k2 = dotK(b.rcN[o1+h*n+h+m:o1+h*n+a], ls[m:])
				}
				s, k = sum2(s1, k1, s2, m+k2)
				b.irP[o+h*n+a], b.bpIRP[o+h*n+a] = e*s, int32(h+k)
			}
			// Left attachments j→c, c = j−w.
			for cc := 0; cc+w < n; cc++ {
				j := cc + w
				e := c.edge[j*n+cc]
				rs, lcRow := b.rsN[o+cc*n+cc:o+cc*n+j], b.lc[o+j*n+cc+1:o+j*n+j+1]
				s, k := dotK(rs, lcRow)
				b.il0[o+j*n+cc], b.bpIL0[o+j*n+cc] = e*s, int32(cc+k)
				// A_ℓ: the child's right half over cc..k one deeper when
				// ℓ + k − cc ≥ λ. The split points r = k − cc ≥ λ are
				// deeper for every ℓ: their sum is taken once; the first
				// m = min(λ, w) are added one by one, at d for r < λ−ℓ
				// (in Viterbi from the last, so that ties go to the
				// first).
				var rsDeep []float64
				if deeper {
					rsDeep = b.rsN[o+sq+cc*n+cc : o+sq+cc*n+j]
				}
				m := min(lam, w)
				tail, kt := 0.0, 0
				if rsDeep != nil && m < w {
					tail, kt = dotK(rsDeep[m:], lcRow[m:])
					kt += m
				}
				for l := 0; l <= lam; l++ {
					s, k := tail, kt
					for r := m - 1; r >= 0; r-- {
						v := 0.0
						switch {
						case l+r < lam:
							v = rs[r] * lcRow[r]
						case rsDeep != nil:
							v = rsDeep[r] * lcRow[r]
						}
						if !viterbi {
							s += v
						} else if v >= s {
							s, k = v, r
						}
					}
					b.a[l][o+j*n+cc], b.bpA[l][o+j*n+cc] = e*s, int32(cc+k)
				}
			}
		}
		for d := 0; d < levels; d++ {
			o := d * sq
			for h := 0; h+w < n; h++ {
				j := h + w
				// Right halves of h over h..j.
				rsP := b.rsPT[o+j*n+h+1 : o+j*n+j+1]
				r, k := dotK(b.irN[o+h*n+h+1:o+h*n+j+1], rsP)
				b.bpRN[o+h*n+j] = int32(h + 1 + k)
				b.rsN[o+h*n+j] = r * c.stop[h*4+Right*2+NonAdj]
				b.rcN[o+h*n+j] = r * c.cont[h*4+Right*2+NonAdj]
				r, k = dotK(b.irP[o+h*n+h+1:o+h*n+j+1], rsP)
				b.bpRP[o+h*n+j] = int32(h + 1 + k)
				b.rsPT[o+j*n+h] = r * c.stop[h*4+Right*2+NonAdj]
				// Left halves of j over h..j; Ls0[c][h] = ls0T[h·n+c].
				ls0 := b.ls0T[o+h*n+h : o+h*n+j]
				l, k := dotK(b.il0[o+j*n+h:o+j*n+j], ls0)
				b.bpL0[o+j*n+h] = int32(h + k)
				b.ls0T[o+h*n+j] = l * c.stop[j*4+Left*2+NonAdj]
				// L1: children c < h+λ take A_{c−h}, the rest A_λ.
				m := min(lam, w)
				l, k = 0, 0
				for cc := h; cc < h+m; cc++ {
					v := b.a[cc-h][o+j*n+cc] * ls0[cc-h]
					if !viterbi {
						l += v
					} else if v > l {
						l, k = v, cc-h
					}
				}
				if m < w {
					s2, k2 := dotK(b.a[lam][o+j*n+h+m:o+j*n+j], ls0[m:])
					l, k = sum2(l, k, s2, m+k2)
				}
				b.bpL1[o+j*n+h] = int32(h + k)
				b.ls1[o+j*n+h] = l * c.stop[j*4+Left*2+NonAdj]
				b.lc[o+j*n+h] = l * c.cont[j*4+Left*2+NonAdj]
			}
		}
	}
	b.z, b.bestRoot = 0, -1
	for r := 0; r < n; r++ {
		s := c.root[r] * b.ls0T[r] * b.rsN[r*n+n-1]
		if !viterbi {
			b.z += s
		} else if s > b.z || b.bestRoot < 0 {
			b.z, b.bestRoot = s, r
		}
	}
}
