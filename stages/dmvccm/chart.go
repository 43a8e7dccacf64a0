// Package dmvccm is the chart of Klein's DMV+CCM product model (Klein 2005,
// §6.3): the score of a lexicalised binary derivation is the DMV's
// probability of its dependency tree times the CCM's probability of its
// bracketing, summed over every derivation by inside–outside.
//
// A derivation builds each head's span outward, one dependent's whole
// (sealed) span at a time, on either side in any interleaving (Klein
// releases the DMV's right-first order for the product); every attachment
// builds a span of two or more words, which is a CCM constituent and
// multiplies φ into the score, and sealing (both STOP decisions, at the
// end) adds no φ. Distinct interleavings give distinct bracketings, so
// every (projective tree, compatible binary bracketing) pair is one
// derivation.
//
// The naive program over items (i, j, head) with a split point and a
// dependent is O(n⁵). Here the dependent is summed out first: R(k,j,h) =
// Σ_a S(k,j,a)·P(a | h, right) and L(i,k,h) likewise, O(n⁴), and each
// attachment then needs only the split point: O(n⁴) time, O(n³) space in
// all. The package takes per-sentence weights, so the models' own tables
// and records stay with stages/dmv and stages/ccm.
package dmvccm

import (
	"math"

	"github.com/grind-nlp/grind/stages/bintree"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Directions and adjacency, as array indices (as in stages/dmv).
const (
	Left, Right = 0, 1
	Adj, NonAdj = 0, 1 // Adj: no dependent yet on that side
)

// Weights are the DMV's weights for one sentence's positions (0-based):
// Root[h], Choose[dir][h][a] (h takes a on side dir), Stop[dir][adj][h]
// and Cont[dir][adj][h] (the decision to stop, or to take another
// dependent, on side dir).
type Weights struct {
	Root   []float64
	Choose [2][][]float64
	Stop   [2][2][]float64
	Cont   [2][2][]float64
	// RightFirst keeps the DMV alone's one order (Klein §6.2): a head
	// takes every right dependent before any left one, so a dependency
	// tree has one derivation and one bracketing. False (Klein §6.3) lets
	// a head interleave its sides in every order, one derivation each.
	RightFirst bool
}

// Chart holds one sentence's inside and outside values.
type Chart struct {
	n       int
	w       Weights
	phi     []float64 // (n+1)² φ(i,j), rescaled
	open    []float64 // O(i,j,h): h's span [i,j), still taking dependents
	sealed  []float64 // S(i,j,h) = O(i,j,h)·stops
	right   []float64 // R(k,j,h) = Σ_a S(k,j,a)·Choose[right][h][a], h < k
	left    []float64 // L(i,k,h) = Σ_a S(i,k,a)·Choose[left][h][a], h ≥ k
	gOpen   []float64 // ∂Z/∂ of the above
	gSealed []float64
	gRight  []float64
	gLeft   []float64
	z       float64
	logC    float64 // log P(s) − log Z: the CCM's constant part and scale
	// cont[dir][adj][h] sums, during Outside, the weight of the
	// derivations through each attachment (divided by Z in DMVCounts).
	cont [2][2][]float64
	// attach[dir][h·n+a] sums, during Outside, the weight of the
	// derivations in which h takes a on side dir.
	attach [2][]float64
}

func (c *Chart) at(i, j, h int) int { return (i*(c.n+1)+j)*c.n + h }

// Inside fills a new chart of a sentence of n words from the DMV weights
// and the CCM factors; LogProb then gives log P(s) = log Σ_derivations
// P_DMV · P_CCM.
func Inside(n int, w Weights, f ccm.Factors) *Chart {
	c := &Chart{}
	c.Inside(n, w, f)
	return c
}

// sized sizes a buffer, reusing its memory, without zeroing it: Inside
// writes every entry of its four tables that anything reads (open and
// sealed for heads inside the span, right and left for heads outside).
func sized(b []float64, size int) []float64 {
	if cap(b) < size {
		return make([]float64, size)
	}
	return b[:size]
}

// grow sizes a buffer, reusing its memory, and zeroes it.
func grow(b []float64, size int) []float64 {
	if cap(b) < size {
		return make([]float64, size)
	}
	b = b[:size]
	clear(b)
	return b
}

// Inside refills c for another sentence, reusing its memory. When the
// sum over derivations leaves the range of a float64 (sentences of a
// hundred words and more) it scales the weights and settles (settle);
// w's tables and f's leaf factors are then scaled in place.
func (c *Chart) Inside(n int, w Weights, f ccm.Factors) {
	size := (n + 1) * (n + 1) * n
	c.n, c.w, c.phi = n, w, f.Phi
	c.open, c.sealed = sized(c.open, size), sized(c.sealed, size)
	c.right, c.left = sized(c.right, size), sized(c.left, size)
	c.logC = f.LogK - bintree.LogCatalan(n-1) - float64(2*n-1)*f.Shift
	c.inside()
	if !normal(c.z) {
		c.settle(f)
	}
}

// normal says whether a partition function is far enough inside the
// range of a float64 (the DMV's chart's bound).
func normal(z float64) bool { return z > 1e-280 && z < 1e280 }

// settle brings Z into range, as the DMV's chart does (dmv.Chart.settle).
// A sentence with no derivation of positive weight (an unsmoothed DMV's
// unseen attachment) keeps Z = 0. Otherwise every derivation's score is
// divided by the same factors, which logC keeps: each word's incoming
// attachments (and its root weight) by their largest, each head side's
// stops by theirs, the largest cont of a side moved into that side's
// attachments, each word's own span factor φ(i,i+1) removed. Every
// weight is then at most 1 but the larger spans' φ, and a common factor
// x on the n − 1 attachments, which multiplies Z by xⁿ⁻¹, is sought as
// the DMV's chart seeks it: straight to log Z = 0 when Z is a number, by
// doubling steps while it is 0 or infinite, by bisection once both are
// seen. One that never settles gets Z = NaN.
func (c *Chart) settle(f ccm.Factors) {
	if c.z == 0 && math.IsInf(Viterbi(c.n, c.w, f).LogMax, -1) {
		return // probability 0
	}
	c.scale()
	c.inside()
	n := float64(c.n - 1)
	if c.n == 1 {
		n = 1
	}
	dmv.SeekScale(c.z, n, 60, func(x, next float64) float64 {
		r := math.Exp(next - x)
		for d := range 2 {
			for _, row := range c.w.Choose[d] {
				for a := range row {
					row[a] *= r
				}
			}
		}
		c.logC -= float64(c.n-1) * (next - x)
		c.inside()
		return c.z
	})
	if !normal(c.z) {
		c.z = math.NaN()
	}
}

// scale divides the weights as settle says, adding the logs of the
// factors to logC.
func (c *Chart) scale() {
	n, w, W := c.n, c.w, c.n+1
	usable := func(x float64) bool { return x > 0 && x <= math.MaxFloat64 }
	for i := 0; i < n; i++ {
		if p := c.phi[i*W+i+1]; usable(p) {
			c.logC += math.Log(p)
			c.phi[i*W+i+1] = 1
		}
	}
	for h := 0; h < n; h++ {
		for d := range 2 {
			// The first word has no left dependents and the last no right
			// ones: their only stop there is the adjacent one.
			edge := d == Left && h == 0 || d == Right && h == n-1
			s := max(w.Stop[d][Adj][h], w.Stop[d][NonAdj][h])
			if edge {
				s = w.Stop[d][Adj][h]
			}
			if usable(s) {
				w.Stop[d][Adj][h] /= s
				w.Stop[d][NonAdj][h] /= s
				c.logC += math.Log(s)
			}
			if q := max(w.Cont[d][Adj][h], w.Cont[d][NonAdj][h]); !edge && usable(q) {
				w.Cont[d][Adj][h] /= q
				w.Cont[d][NonAdj][h] /= q
				for a := range w.Choose[d][h] {
					w.Choose[d][h][a] *= q
				}
			}
		}
	}
	for a := 0; a < n; a++ {
		m := w.Root[a]
		for h := 0; h < n; h++ {
			switch {
			case h < a:
				m = max(m, w.Choose[Right][h][a])
			case h > a:
				m = max(m, w.Choose[Left][h][a])
			}
		}
		if !usable(m) {
			continue
		}
		w.Root[a] /= m
		for h := 0; h < n; h++ {
			w.Choose[Right][h][a] /= m
			w.Choose[Left][h][a] /= m
		}
		c.logC += math.Log(m)
	}
}

// inside is Inside's pass over the loaded weights.
func (c *Chart) inside() {
	n, w := c.n, c.w
	c.z = 0
	W := n + 1
	adj := func(b bool) int {
		if b {
			return Adj
		}
		return NonAdj
	}
	// Item (i,j,h) is open[(i·W + j)·n + h]; a split point moves i or j.
	open, right, left := c.open, c.right, c.left
	for l := 1; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l
			phi := c.phi[i*W+j]
			for h := i; h < j; h++ {
				o := 0.0
				if l == 1 {
					o = phi
				} else {
					// right: [i,k) headed by h takes the sealed [k,j)
					// (right-first: only before any left dependent).
					sum, inner := 0.0, 0.0
					if !w.RightFirst || i == h {
						if h+1 < j {
							sum = open[(i*W+h+1)*n+h] * right[((h+1)*W+j)*n+h] * w.Cont[Right][Adj][h]
						}
						for k := h + 2; k < j; k++ {
							inner += open[(i*W+k)*n+h] * right[(k*W+j)*n+h]
						}
						sum += inner * w.Cont[Right][NonAdj][h]
					}
					// left: the sealed [i,k) goes to h heading [k,j).
					inner = 0
					if h > i {
						sum += left[(i*W+h)*n+h] * open[(h*W+j)*n+h] * w.Cont[Left][Adj][h]
					}
					for k := i + 1; k < h; k++ {
						inner += left[(i*W+k)*n+h] * open[(k*W+j)*n+h]
					}
					sum += inner * w.Cont[Left][NonAdj][h]
					o = phi * sum
				}
				c.open[c.at(i, j, h)] = o
				c.sealed[c.at(i, j, h)] = o * w.Stop[Left][adj(i == h)][h] * w.Stop[Right][adj(j == h+1)][h]
			}
			// The span as a dependent: of a head on its left (h < i) or on
			// its right (h ≥ j).
			base := (i*W + j) * n
			seal := c.sealed[base+i : base+j]
			for h := 0; h < n; h++ {
				if h >= i && h < j {
					continue
				}
				dir := Right
				if h >= j {
					dir = Left
				}
				choose := w.Choose[dir][h][i:j]
				sum := 0.0
				for a, v := range seal {
					sum += v * choose[a]
				}
				if dir == Right {
					c.right[base+h] = sum
				} else {
					c.left[base+h] = sum
				}
			}
		}
	}
	for h := 0; h < n; h++ {
		c.z += c.sealed[c.at(0, n, h)] * w.Root[h]
	}
}

// LogProb is log P(s), the sum over every derivation: −Inf when the
// sentence has probability 0, NaN when its weights span more than
// floating point can hold at any scale.
func (c *Chart) LogProb() float64 { return math.Log(c.z) + c.logC }

// Outside fills the derivatives of Z with respect to every item.
func (c *Chart) Outside() {
	n, w, W := c.n, c.w, c.n+1
	size := len(c.open)
	c.gOpen, c.gSealed = grow(c.gOpen, size), grow(c.gSealed, size)
	c.gRight, c.gLeft = grow(c.gRight, size), grow(c.gLeft, size)
	for d := range 2 {
		for a := range 2 {
			c.cont[d][a] = grow(c.cont[d][a], n)
		}
		c.attach[d] = grow(c.attach[d], n*n)
	}
	adj := func(b bool) int {
		if b {
			return Adj
		}
		return NonAdj
	}
	for h := 0; h < n; h++ {
		c.gSealed[c.at(0, n, h)] = w.Root[h]
	}
	for l := n; l >= 1; l-- {
		for i := 0; i+l <= n; i++ {
			j := i + l
			// S(i,j,a) feeds R(i,j,h) and L(i,j,h) of outer heads.
			base := (i*W + j) * n
			seal, gSeal := c.sealed[base+i:base+j], c.gSealed[base+i:base+j]
			for h := 0; h < n; h++ {
				if h >= i && h < j {
					continue
				}
				dir, g := Right, c.gRight[c.at(i, j, h)]
				if h >= j {
					dir, g = Left, c.gLeft[c.at(i, j, h)]
				}
				if g == 0 {
					continue
				}
				choose, att := w.Choose[dir][h][i:j], c.attach[dir][h*n+i:h*n+j]
				for a, v := range seal {
					x := g * choose[a]
					gSeal[a] += x
					att[a] += x * v
				}
			}
			phi := c.phi[i*W+j]
			for h := i; h < j; h++ {
				x := c.at(i, j, h)
				c.gOpen[x] += c.gSealed[x] * w.Stop[Left][adj(i == h)][h] * w.Stop[Right][adj(j == h+1)][h]
				if l == 1 {
					continue
				}
				g := c.gOpen[x] * phi
				if g == 0 {
					continue
				}
				// Right: [i,k) headed by h took the sealed [k,j); the
				// first dependent (k = h+1) continues adjacently.
				rightOK := !w.RightFirst || i == h // right-first: none after a left one
				if k := h + 1; k < j && rightOK {
					gr := g * w.Cont[Right][Adj][h]
					head, dep := (i*W+k)*n+h, (k*W+j)*n+h
					c.gOpen[head] += gr * c.right[dep]
					x := gr * c.open[head]
					c.gRight[dep] += x
					c.cont[Right][Adj][h] += x * c.right[dep]
				}
				gr, cont := g*w.Cont[Right][NonAdj][h], 0.0
				for k := h + 2; k < j && rightOK; k++ {
					head, dep := (i*W+k)*n+h, (k*W+j)*n+h
					c.gOpen[head] += gr * c.right[dep]
					x := gr * c.open[head]
					c.gRight[dep] += x
					cont += x * c.right[dep]
				}
				c.cont[Right][NonAdj][h] += cont
				// Left: the sealed [i,k) went to h heading [k,j).
				gl := g * w.Cont[Left][NonAdj][h]
				cont = 0
				for k := i + 1; k < h; k++ {
					dep, head := (i*W+k)*n+h, (k*W+j)*n+h
					x := gl * c.open[head]
					c.gLeft[dep] += x
					c.gOpen[head] += gl * c.left[dep]
					cont += x * c.left[dep]
				}
				c.cont[Left][NonAdj][h] += cont
				if k := h; k > i {
					gl := g * w.Cont[Left][Adj][h]
					dep, head := (i*W+k)*n+h, (k*W+j)*n+h
					x := gl * c.open[head]
					c.gLeft[dep] += x
					c.gOpen[head] += gl * c.left[dep]
					c.cont[Left][Adj][h] += x * c.left[dep]
				}
			}
		}
	}
}

// Brackets returns the posterior of every span [i,j) of two or more
// words being a constituent, as p[i][j] (single words and the whole
// sentence are 1). Outside must have run.
func (c *Chart) Brackets() [][]float64 {
	n := c.n
	flat := make([]float64, (n+1)*(n+1))
	c.bracketsTo(flat)
	p := make([][]float64, n+1)
	for i := range p {
		p[i] = flat[i*(n+1) : (i+1)*(n+1)]
	}
	return p
}

// bracketsTo writes the posterior of [i,j) at p[i·(n+1)+j] (a ccm
// sentence's slice of a corpus posterior buffer).
func (c *Chart) bracketsTo(p []float64) {
	n, W := c.n, c.n+1
	for i := 0; i < n; i++ {
		p[i*W+i+1] = 1
		for j := i + 2; j <= n; j++ {
			sum := 0.0
			base := (i*W + j) * n
			for h := i; h < j; h++ {
				sum += c.open[base+h] * c.gOpen[base+h]
			}
			p[i*W+j] = sum / c.z
		}
	}
}

// Counts are the DMV's expected counts in one sentence, by position:
// Attach[dir][h][a], Stop and Cont [dir][adj][h], Root[h].
type Counts struct {
	Attach     [2][][]float64
	Stop, Cont [2][2][]float64
	Root       []float64
}

// DMVCounts returns the expected DMV events of the sentence. Outside must
// have run.
func (c *Chart) DMVCounts() Counts {
	var out Counts
	c.dmvCountsTo(&out)
	return out
}

// dmvCountsTo is DMVCounts into out's memory.
func (c *Chart) dmvCountsTo(out *Counts) {
	n, w := c.n, c.w
	for d := range 2 {
		if cap(out.Attach[d]) < n {
			out.Attach[d] = make([][]float64, n)
		}
		out.Attach[d] = out.Attach[d][:n]
		for h := range n {
			out.Attach[d][h] = resize(out.Attach[d][h], n)
		}
		for a := range 2 {
			out.Stop[d][a], out.Cont[d][a] = resize(out.Stop[d][a], n), resize(out.Cont[d][a], n)
		}
	}
	out.Root = resize(out.Root, n)
	adj := func(b bool) int {
		if b {
			return Adj
		}
		return NonAdj
	}
	z := c.z
	W := n + 1
	for h := range n {
		for d := range 2 {
			row, att := out.Attach[d][h], c.attach[d][h*n:(h+1)*n]
			for a := range n {
				row[a] = att[a] / z
			}
		}
		out.Root[h] = w.Root[h] * c.sealed[c.at(0, n, h)] / z
		for d := range 2 {
			for v := range 2 {
				out.Cont[d][v][h] = c.cont[d][v][h] / z
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			base := (i*W + j) * n
			for h := i; h < j; h++ {
				// Sealing: one stop on each side.
				s := c.gSealed[base+h] * c.sealed[base+h] / z
				out.Stop[Left][adj(i == h)][h] += s
				out.Stop[Right][adj(j == h+1)][h] += s
			}
		}
	}
}
