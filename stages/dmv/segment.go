package dmv

import "math"

// Model S (Smith 2006, §6): a sentence is a sequence of trees over
// contiguous segments, each tree's root drawn from root, with a weight
// e^β for each tree beyond the first (a vine grammar). A tree over the
// segment a..b with root r is root(r)·Ls[r][a]·Rs[r][b], and the chart
// already holds those finished halves for every span. So the segmentation
// changes only the top of the program: instead of one root over 0..n−1, a
// semi-Markov pass over segment boundaries,
//
//	H[a]   = F[a]·(1 if a = 0 else e^β)          a segment starts at a
//	G[r]   = root(r) · Σ_{a≤r} H[a]·Ls[r][a]     r is a segment's root
//	F[j+1] = Σ_{r≤j} G[r]·Rs[r][j]               a segment ends at j
//
// with F[0] = 1 and Z = F[n]: O(n²) on top of the chart's O(n³). Outside
// reverses it into the halves' adjoints and the rest is unchanged.
// Scaling still holds: every word is attached exactly once, to a head or
// to the wall.

// segmentation is the chart's Model S state; Load turns it off.
type segmentation struct {
	on     bool
	weight float64   // e^β, the weight of a tree beyond the first
	h, g   []float64 // forward: H[0..n−1], G[0..n−1]; f holds F[0..n]
	f      []float64
	bh, bg []float64 // adjoints of H and G
	bpG    []int32   // Viterbi: the start of root r's segment
	bpF    []int32   // Viterbi: the root of the segment ending at j−1
}

// Segment makes the loaded sentence a sequence of trees (Model S) with
// weight e^beta for each tree beyond the first, for the next Inside,
// Outside or Viterbi. Load and LoadScores turn it off again.
func (c *Chart) Segment(beta float64) {
	s := &c.seg
	s.on, s.weight = true, math.Exp(beta)
	if n := c.n + 1; len(s.f) < n {
		s.f, s.h, s.g = make([]float64, n), make([]float64, n), make([]float64, n)
		s.bh, s.bg = make([]float64, n), make([]float64, n)
		s.bpG, s.bpF = make([]int32, n), make([]int32, n)
	}
}

// segmentTop is the top of inside for Model S: Z (or with viterbi the
// best structure's weight) from the finished halves.
func (c *Chart) segmentTop(viterbi bool) {
	n, s := c.n, &c.seg
	s.f[0] = 1
	for j := 0; j < n; j++ {
		s.h[j] = s.f[j]
		if j > 0 {
			s.h[j] *= s.weight
		}
		if viterbi {
			v, a := maxDot(s.h[:j+1], c.ls[j*n:])
			s.g[j], s.bpG[j] = c.root[j]*v, int32(a)
			v, r := maxDot(s.g[:j+1], c.rsT[j*n:])
			s.f[j+1], s.bpF[j+1] = v, int32(r)
		} else {
			s.g[j] = c.root[j] * dot(s.h[:j+1], c.ls[j*n:])
			s.f[j+1] = dot(s.g[:j+1], c.rsT[j*n:])
		}
	}
	c.z, c.bestRoot = s.f[n], -1
}

// segmentOutside seeds Outside for Model S: the adjoints (times g = 1/Z)
// of the finished halves the segments use, and the root posteriors.
func (c *Chart) segmentOutside(g float64) {
	n, s := c.n, &c.seg
	clear(s.bh[:n])
	clear(s.bg[:n])
	for j := n - 1; j >= 0; j-- {
		// F[j+1] = Σ_{r≤j} G[r]·Rs[r][j]; ∂/∂F[n] is the seed, and F[j+1]
		// for j+1 < n enters only H[j+1] = F[j+1]·e^β.
		b := g
		if j+1 < n {
			b = s.bh[j+1] * s.weight
		}
		if b != 0 {
			axpy(b, c.rsT[j*n:], s.bg[:j+1])
			axpy(b, s.g, c.brsT[j*n:j*n+j+1])
		}
		// G[j] = root(j)·Σ_{a≤j} H[a]·Ls[j][a]
		c.rootPost[j] = s.g[j] * s.bg[j]
		if f := s.bg[j] * c.root[j]; f != 0 {
			axpy(f, c.ls[j*n:], s.bh[:j+1])
			axpy(f, s.h, c.bls[j*n:j*n+j+1])
		}
	}
}

// segmentHeads writes the best structure found by a Viterbi segmentTop:
// each segment's root attaches to the wall (0).
func (c *Chart) segmentHeads(heads []int) {
	s := &c.seg
	for j := c.n - 1; j >= 0; {
		r := int(s.bpF[j+1])
		a := int(s.bpG[r])
		heads[r] = 0
		c.backLeft(heads, r, a)
		c.backRight(heads, r, j)
		j = a - 1
	}
}
