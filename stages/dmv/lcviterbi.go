package dmv

import "math"

// Viterbi finds the highest-weight tree within the bound and writes it to
// heads, as Chart.Viterbi does (the log weight; −Inf when every bounded
// tree has weight 0, NaN when no scale holds the potentials). Ties go to
// the first choice in the order the inside pass tries them: the leftmost
// root, the leftmost split point, the child nearest the start of the
// half.
func (b *BoundedChart) Viterbi(heads []int) float64 {
	b.settle(true)
	if !(b.z > 0) {
		return b.LogZ()
	}
	r := b.bestRoot
	heads[r] = 0
	b.backLeft0(heads, r, 0, 0)
	b.backRightN(heads, r, b.n-1, 0)
	return math.Log(b.z) + b.pot.logScale
}

// backRightN recovers h's right half over h..j in context d, h not
// predicted: every right child is predicted at d.
func (b *BoundedChart) backRightN(heads []int, h, j, d int) {
	n, o := b.n, d*b.sq
	for j > h {
		a := int(b.bpRN[o+h*n+j]) // h's farthest right child
		heads[a] = h + 1
		k := int(b.bpIRN[o+h*n+a])
		b.backLeft1(heads, a, k+1, d)
		b.backRightP(heads, a, j, d)
		j = k
	}
}

// backRightP recovers predicted h's right half over h..j in context d:
// its farthest child at d, the rest (h..k) a right half of its own, one
// deeper when it spans more than Chunk words.
func (b *BoundedChart) backRightP(heads []int, h, j, d int) {
	if j == h {
		return
	}
	n, o := b.n, d*b.sq
	a := int(b.bpRP[o+h*n+j])
	heads[a] = h + 1
	k := int(b.bpIRP[o+h*n+a])
	b.backLeft1(heads, a, k+1, d)
	b.backRightP(heads, a, j, d)
	inner := d
	if k-h >= b.chunk {
		inner++
	}
	b.backRightN(heads, h, k, inner)
}

// backLeft0 recovers h's left half over i..h in context d, its farthest
// child exempt from the depth rule.
func (b *BoundedChart) backLeft0(heads []int, h, i, d int) {
	if i == h {
		return
	}
	n, o := b.n, d*b.sq
	c := int(b.bpL0[o+h*n+i])
	heads[c] = h + 1
	k := int(b.bpIL0[o+h*n+c])
	b.backRightN(heads, c, k, d)
	b.backLeft0(heads, c, i, d)
	b.backLeft1(heads, h, k+1, d)
}

// backLeft1 recovers h's left half over i..h in context d, every child's
// right half one deeper when its subtree has more than Chunk words.
func (b *BoundedChart) backLeft1(heads []int, h, i, d int) {
	n, o, lam := b.n, d*b.sq, b.chunk
	for i < h {
		c := int(b.bpL1[o+h*n+i])
		heads[c] = h + 1
		l := min(c-i, lam)
		k := int(b.bpA[l][o+h*n+c])
		inner := d
		if l+k-c >= lam {
			inner++
		}
		b.backRightN(heads, c, k, inner)
		b.backLeft0(heads, c, i, d)
		i = k + 1
	}
}

// DecodeMBR writes to heads the tree within the bound that maximises the
// sum of the posteriors of the last Outside (Chart.DecodeMBR, bounded).
func (b *BoundedChart) DecodeMBR(heads []int) {
	n := b.n
	edge, root := make([]float64, n*n), make([]float64, n)
	copy(edge, b.pot.edgePost[:n*n])
	copy(root, b.pot.rootPost[:n])
	b.LoadScores(n, edge, root)
	b.Viterbi(heads)
}
