package dmv

import "math"

// Viterbi finds the highest-weight projective single-root tree under the
// loaded potentials and writes it to heads (1-based, 0 = root; len(heads)
// ≥ Len()). It returns the log of the tree's weight, −Inf when every
// tree has weight 0 and NaN when the potentials span more than floating
// point holds (heads are then left unchanged).
//
// Ties are broken deterministically toward the leftmost choice: the
// leftmost root, the leftmost split point of an attachment and, for a
// half, the last child nearest to its head.
func (c *Chart) Viterbi(heads []int) float64 {
	return c.viterbi(heads, true)
}

// viterbi is Viterbi; handOver is settle's (false: this chart's own
// items, for TiedViterbi).
func (c *Chart) viterbi(heads []int, handOver bool) float64 {
	if c.valenced || !c.settle(true, handOver) {
		return c.vc.viterbi(heads)
	}
	if !(c.z > 0) {
		return c.LogZ() // −Inf, or NaN when no scale could hold the sentence
	}
	if c.seg.on {
		c.segmentHeads(heads)
	} else {
		r := c.bestRoot
		heads[r] = 0
		c.backLeft(heads, r, 0)
		c.backRight(heads, r, c.n-1)
	}
	return math.Log(c.z) + c.logScale
}

// backRight recovers h's right half over h..j.
func (c *Chart) backRight(heads []int, h, j int) {
	for j > h {
		d := int(c.bpR[h*c.n+j]) // h's farthest right child
		heads[d] = h + 1
		k := int(c.bpIR[h*c.n+d])
		c.backLeft(heads, d, k+1)
		c.backRight(heads, d, j)
		j = k // h's nearer children, within h..k
	}
}

// backLeft recovers h's left half over i..h.
func (c *Chart) backLeft(heads []int, h, i int) {
	for i < h {
		d := int(c.bpL[h*c.n+i]) // h's farthest left child
		heads[d] = h + 1
		k := int(c.bpIL[h*c.n+d])
		c.backRight(heads, d, k)
		c.backLeft(heads, d, i)
		i = k + 1
	}
}
