package dmv

import "math"

// Chart is the split-head dynamic program of Eisner & Satta (1999) for the
// DMV over one sentence at a time: O(n³) inside, outside (as reverse-mode
// differentiation of inside), posteriors of every event, and Viterbi. A
// Chart is one worker's workspace, reused across sentences so the E-step
// allocates nothing per sentence.
//
// The chart sees only per-position potentials (root, edge, stop, cont),
// set by Load from a weight table. Re-weighted E-steps (annealing's β, a
// skew model, a distance factor per edge, log-linear weights) change the
// potentials, never the program.
//
// Items, for a head h (right halves; left halves mirror them):
//
//	Rs[h][j]  h's right half over h..j, finished (its stop decision taken)
//	Rc[h][j]  the same half, ready for one more child (a cont decision)
//	IR[h][c]  h's right half up to and including its new child c
//
// The valence of a decision is known from the span: width 0 means no
// child yet, and so is a child's (the extended valence grammar's Stop 2,
// Child 2, whose first child splits next to its head; other valence
// settings go to vchart). Values are stored scaled (see Load), so long sentences
// neither underflow nor overflow.
type Chart struct {
	n int // sentence length, also the row stride of every table

	// Potentials of the loaded sentence, after scaling.
	root       []float64 // [c]
	edge       []float64 // [h·n + c], c ≠ h
	stop, cont []float64 // [h·4 + dir·2 + valence]
	logScale   float64   // log of the factor scaling removed from Z

	// Inside items, [h·n + j]; the T tables are transposes ([j·n + h]) so
	// that every inner loop runs over contiguous memory.
	rs, rsT, rc, ls, lsT, lc, ir, il []float64
	z                                float64 // scaled partition function

	// Adjoints of the inside items (∂Z/∂item, scaled by 1/Z).
	brs, brsT, brc, bls, blsT, blc, bir, bil []float64

	// Viterbi back-pointers: the split point of an attachment, the last
	// child of a half, and the root.
	bpIR, bpIL, bpR, bpL []int32
	bestRoot             int

	// Posteriors, filled by Outside.
	edgePost           []float64 // [h·n + c]
	rootPost           []float64 // [c]
	stopPost, contPost []float64 // [h·4 + dir·2 + valence]
	capacity           int

	// With two child valences (Headden et al.'s extended valence
	// grammar: Stop 2, Child 2) edge is a head's first child on a side and
	// more a later one ([h·n + c]); a first child is the one whose
	// attachment splits next to its head, so the span tells the valence as
	// it tells the decisions'. irMore and ilMore are the attachments'
	// parts by later children, firstPost and morePost the posteriors.
	twoChild             bool
	more, irMore, ilMore []float64
	firstPost, morePost  []float64
	twoChildCapacity     int
	attach               [2][]float64 // edge and more, for attachments

	seg  segmentation // Model S's top step, when on (segment.go)
	ties tieChart     // the best derivations' counts, for TiedViterbi (ties.go)

	// A model with valence settings is loaded into vc (vchart.go), and
	// every method below answers from it while valenced.
	vc       vchart
	valenced bool
}

// NewChart makes a chart for sentences of up to n tokens; it grows as
// needed.
func NewChart(n int) *Chart {
	c := &Chart{}
	c.grow(n)
	return c
}

func (c *Chart) grow(n int) {
	if n <= c.capacity {
		return
	}
	sq := n * n
	f := func() []float64 { return make([]float64, sq) }
	c.root, c.rootPost = make([]float64, n), make([]float64, n)
	c.edge, c.edgePost = f(), f()
	c.stop, c.cont = make([]float64, 4*n), make([]float64, 4*n)
	c.stopPost, c.contPost = make([]float64, 4*n), make([]float64, 4*n)
	c.rs, c.rsT, c.rc, c.ls, c.lsT, c.lc, c.ir, c.il = f(), f(), f(), f(), f(), f(), f(), f()
	c.brs, c.brsT, c.brc, c.bls, c.blsT, c.blc, c.bir, c.bil = f(), f(), f(), f(), f(), f(), f(), f()
	g := func() []int32 { return make([]int32, sq) }
	c.bpIR, c.bpIL, c.bpR, c.bpL = g(), g(), g(), g()
	c.attach[0] = c.edge
	c.capacity = n
}

// growTwoChild makes the tables of two child valences for n tokens.
func (c *Chart) growTwoChild(n int) {
	if n <= c.twoChildCapacity {
		return
	}
	sq := n * n
	c.more, c.irMore, c.ilMore = make([]float64, sq), make([]float64, sq), make([]float64, sq)
	c.firstPost, c.morePost = make([]float64, sq), make([]float64, sq)
	c.attach[1] = c.more
	c.twoChildCapacity = n
}

// attachments are the loaded sentence's tables of edges ([h·n + d]):
// edge, and with two child valences more — what the factors, scaling and
// rescaling multiply alike.
func (c *Chart) attachments() [][]float64 {
	if c.twoChild {
		return c.attach[:]
	}
	return c.attach[:1]
}

// Len is the length of the loaded sentence.
func (c *Chart) Len() int { return c.n }

// Load sets the potentials for the tag sequence tags under weight table
// w: root(t), child(h, dir, c), stop and cont, each edge also multiplied
// by dist[|h−c|] when dist is not nil (the km and local initializers,
// Model L's e^{δ·|h−c|}). A table with valence settings goes to the
// valence chart (vchart.go), which every method then answers from.
//
// Scaling: every word is attached exactly once, every half-head takes
// exactly one stop decision, and every attachment comes with exactly one
// cont decision of its head. So dividing a word's incoming attachments by
// their largest value, a half-head's stops by theirs, and moving the
// largest cont of a half-head into its edges changes every tree's score
// by the same factor, which logScale keeps. Every potential is then at
// most 1 and Z stays in range for hundreds of tokens.
func (c *Chart) Load(tags []int, w *Params, dist []float64) {
	c.loadPotentials(tags, w, dist)
	if !c.valenced { // the valence chart scales its own (vlinear.go)
		c.scale()
	}
}

// LoadFactored is Load with every attachment also multiplied by a factor
// of the sentence's own: d attached to h by edge[h·n+d], to the wall by
// root[d] (posterior regularization's e^{−λ} per potential edge,
// stages/pr).
func (c *Chart) LoadFactored(tags []int, w *Params, dist []float64, edge, root []float64) {
	c.loadPotentials(tags, w, dist)
	n := len(tags)
	if c.valenced {
		c.vc.factor(edge[:n*n], root[:n])
		return
	}
	for _, e := range c.attachments() {
		for i, f := range edge[:n*n] {
			e[i] *= f
		}
	}
	for d, f := range root[:n] {
		c.root[d] *= f
	}
	c.scale()
}

// loadPotentials is Load before scaling.
func (c *Chart) loadPotentials(tags []int, w *Params, dist []float64) {
	n := len(tags)
	c.seg.on = false
	c.twoChild = w.V == twoChildValences
	if c.valenced = !w.V.onDMVChart(); c.valenced {
		c.n = n
		c.vc.load(tags, w, dist)
		return
	}
	c.grow(n)
	if c.twoChild {
		c.growTwoChild(n)
	}
	c.n = n
	c.logScale = 0
	for h, th := range tags {
		for dir := Left; dir <= Right; dir++ {
			for v := Adj; v <= NonAdj; v++ {
				c.stop[h*4+dir*2+v] = w.Stop[DecisionIndex(th, dir, v)]
				c.cont[h*4+dir*2+v] = w.Cont[DecisionIndex(th, dir, v)]
			}
		}
		c.root[h] = w.Root[th]
	}
	for v, e := range c.attachments() {
		edges(e, w, tags, v, dist)
	}
}

// edges sets e ([h·n + d]) to the edges of tags from child valence v's
// distributions of w, each also times dist[|h−d|] when dist is not nil
// (a word's own place 0).
func edges(e []float64, w *Params, tags []int, v int, dist []float64) {
	n := len(tags)
	for h, th := range tags {
		row := e[h*n : h*n+n]
		left := w.Child[w.ChildAt(th, Left, v, 0):]
		right := w.Child[w.ChildAt(th, Right, v, 0):]
		for d, td := range tags {
			switch {
			case d < h:
				row[d] = left[td]
			case d > h:
				row[d] = right[td]
			default:
				row[d] = 0
			}
			if dist != nil && d != h {
				row[d] *= dist[abs(h-d)]
			}
		}
	}
}

// LoadScores sets potentials for maximising a sum of additive scores:
// edge[h·n+c] for attaching c to h and root[c] for attaching c to the
// wall, with no stop or cont cost. Viterbi over these finds the projective
// tree of highest total score (minimum-Bayes-risk decoding).
func (c *Chart) LoadScores(n int, edge, root []float64) {
	c.grow(n)
	c.n = n
	c.logScale = 0
	c.seg.on, c.valenced, c.twoChild = false, false, false
	for i := 0; i < n*n; i++ {
		c.edge[i] = math.Exp(edge[i])
	}
	for h := 0; h < n; h++ {
		c.edge[h*n+h] = 0
		c.root[h] = math.Exp(root[h])
	}
	for i := 0; i < 4*n; i++ {
		c.stop[i], c.cont[i] = 1, 1
	}
	c.scale()
}

// scale divides the potentials as Load's comment explains. The factors
// removed are multiplied into a running product, logged only when it
// nears the ends of the floating-point range: one log per sentence, not
// one per word.
func (c *Chart) scale() {
	n := c.n
	removed := 1.0
	keep := func(f float64) {
		if p := removed * f; p > 1e-150 && p < 1e150 {
			removed = p
		} else { // f alone may be huge or tiny: never let the product leave the range
			c.logScale += math.Log(removed) + math.Log(f)
			removed = 1
		}
	}
	for h := 0; h < n; h++ {
		for dir := Left; dir <= Right; dir++ {
			d := h*4 + dir*2
			// The first word has no left dependents and the last no right
			// ones: their only decision on that side is the first stop.
			edge := dir == Left && h == 0 || dir == Right && h == n-1
			s := larger(c.stop[d+Adj], c.stop[d+NonAdj])
			if edge {
				s = c.stop[d+Adj]
			}
			if s > 0 && s <= math.MaxFloat64 {
				c.stop[d+Adj] /= s
				c.stop[d+NonAdj] /= s
				keep(s)
			}
			if edge {
				continue
			}
			if q := larger(c.cont[d+Adj], c.cont[d+NonAdj]); q > 0 && q <= math.MaxFloat64 && q != 1 {
				c.cont[d+Adj] /= q
				c.cont[d+NonAdj] /= q
				lo, hi := h*n, h*n+h // left dependents of h
				if dir == Right {
					lo, hi = h*n+h+1, h*n+n
				}
				for _, e := range c.attachments() {
					for i := lo; i < hi; i++ {
						e[i] *= q
					}
				}
			}
		}
	}
	for d := 0; d < n; d++ {
		m := c.root[d]
		for _, e := range c.attachments() {
			for h := 0; h < n; h++ {
				m = larger(m, e[h*n+d])
			}
		}
		if m > 0 && m <= math.MaxFloat64 && m != 1 {
			inv := 1 / m
			c.root[d] *= inv
			for _, e := range c.attachments() {
				for h := 0; h < n; h++ {
					e[h*n+d] *= inv
				}
			}
			keep(m)
		}
	}
	c.logScale += math.Log(removed)
}

// larger is max for the non-negative, non-NaN numbers of a chart.
func larger(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// rescaleAttachments multiplies every attachment by f, for when a
// sentence's scaled Z still leaves the floating-point range.
func (c *Chart) rescaleAttachments(f float64) {
	n := c.n
	for _, e := range c.attachments() {
		for i := range e[:n*n] {
			e[i] *= f
		}
	}
	for d := 0; d < n; d++ {
		c.root[d] *= f
	}
	c.logScale -= float64(n) * math.Log(f)
}

// Inside runs the inside pass and returns log Z, the log of the total
// weight of all projective single-root trees: −Inf when it is 0, NaN when
// the potentials span more than floating point can hold at any scale.
func (c *Chart) Inside() float64 {
	if c.valenced || !c.settle(false, true) {
		return c.vc.inside(false)
	}
	return c.LogZ()
}

// LogZ is log Z of the last inside pass.
func (c *Chart) LogZ() float64 {
	if c.valenced {
		return c.vc.logZ
	}
	switch {
	case math.IsNaN(c.z):
		return math.NaN()
	case c.z <= 0:
		return math.Inf(-1)
	}
	return math.Log(c.z) + c.logScale
}

// settle runs inside until Z is a normal number. Scaling bounds every
// tree's weight by 1 but not how small the best one is, nor (in the
// max-sum semiring or with log-linear weights) how many there are; a
// common factor x on every attachment multiplies Z by xⁿ, so settle looks
// for one: straight to log Z = 0 when Z is a usable number, by doubling
// steps while Z is 0 or infinite, by bisection once it has seen both. A
// sentence whose Z stays 0 at every factor has weight 0; one that never
// settles although some factor shows weight (some items overflow while
// others underflow) gets Z = NaN.
//
// No factor on the attachments helps when Z is out of range because of a
// potential below tinyPotential: two of them in one item underflow
// whatever the attachments are multiplied by (a leaf's two stops of
// 10⁻³⁰⁰), and the trees holding them are lost. Such a sentence, when
// handOver allows (Model S and TiedViterbi read this chart's own items),
// goes to the valence chart, which runs it in log space (vlinear.go);
// settle then returns false and leaves the valenced chart to answer.
func (c *Chart) settle(viterbi, handOver bool) bool {
	c.inside(viterbi)
	if handOver && !normal(c.z) && !c.seg.on && c.tinyPotential() {
		c.vc.takePlain(c.n, c.root, c.attachments(), c.stop, c.cont, c.logScale)
		c.valenced = true
		return false
	}
	_, weight := SeekScale(c.z, float64(c.n), 40, func(x, next float64) float64 {
		c.rescaleAttachments(math.Exp(next - x))
		c.inside(viterbi)
		return c.z
	})
	if !normal(c.z) {
		// noTree runs inside over the support, overwriting z: decide
		// first, then set z, so no caller sees the support's Z.
		none := !weight && c.noTree()
		c.z, c.bestRoot = math.NaN(), -1
		if none {
			c.z = 0
		}
	}
	return true
}

// tinyPotential says whether a scaled potential of the loaded sentence is
// positive and below tinyPotential.
func (c *Chart) tinyPotential() bool {
	for _, p := range c.potentials() {
		for _, v := range p {
			if v > 0 && v < tinyPotential {
				return true
			}
		}
	}
	return false
}

// noTree says whether no tree has positive weight at all: inside over the
// potentials' support (1 where a potential is positive) is 0. It is run
// only when scaling fails, and overwrites the potentials.
func (c *Chart) noTree() bool {
	for _, p := range c.potentials() {
		for i, v := range p {
			if v > 0 {
				p[i] = 1
			} else {
				p[i] = 0
			}
		}
	}
	c.inside(false)
	return c.z == 0
}

// potentials are the loaded sentence's potential tables.
func (c *Chart) potentials() [][]float64 {
	n := c.n
	p := [][]float64{c.root[:n], c.stop[:4*n], c.cont[:4*n]}
	for _, e := range c.attachments() {
		p = append(p, e[:n*n])
	}
	return p
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// inside fills the chart bottom-up by width. With viterbi it takes the
// maximum instead of the sum and keeps back-pointers: the same program in
// the max-product semiring.
func (c *Chart) inside(viterbi bool) {
	n := c.n
	for h := 0; h < n; h++ {
		hh := h*n + h
		c.rs[hh] = c.stop[h*4+Right*2+Adj]
		c.rc[hh] = c.cont[h*4+Right*2+Adj]
		c.ls[hh] = c.stop[h*4+Left*2+Adj]
		c.lc[hh] = c.cont[h*4+Left*2+Adj]
		c.rsT[hh], c.lsT[hh] = c.rs[hh], c.ls[hh]
	}
	two := c.twoChild
	for w := 1; w < n; w++ {
		// Attachments of width w: h takes its next child c = h+w on the
		// right, or c = h−w on the left, next to c's finished inner half.
		for h := 0; h+w < n && two; h++ {
			c.attachTwoChild(h, h+w, viterbi)
		}
		for h := 0; h+w < n && !two; h++ {
			d := h + w
			// IR[h][d] = edge · Σ_{k=h}^{d−1} Rc[h][k]·Ls[d][k+1]
			a, b := c.rc[h*n+h:h*n+d], c.ls[d*n+h+1:d*n+d+1]
			// IL[d][h] = edge · Σ_{k=h}^{d−1} Rs[h][k]·Lc[d][k+1]
			a2, b2 := c.rs[h*n+h:h*n+d], c.lc[d*n+h+1:d*n+d+1]
			if viterbi {
				s, k := maxDot(a, b)
				c.ir[h*n+d], c.bpIR[h*n+d] = c.edge[h*n+d]*s, int32(h+k)
				s, k = maxDot(a2, b2)
				c.il[d*n+h], c.bpIL[d*n+h] = c.edge[d*n+h]*s, int32(h+k)
			} else {
				c.ir[h*n+d] = c.edge[h*n+d] * dot(a, b)
				c.il[d*n+h] = c.edge[d*n+h] * dot(a2, b2)
			}
		}
		// Halves of width w: the farthest child so far, closed off.
		for h := 0; h+w < n; h++ {
			j := h + w
			// R[h][j] = Σ_{c=h+1}^{j} IR[h][c]·Rs[c][j]
			a, b := c.ir[h*n+h+1:h*n+j+1], c.rsT[j*n+h+1:j*n+j+1]
			// L[j][h] = Σ_{c=h}^{j−1} IL[j][c]·Ls[c][h]
			a2, b2 := c.il[j*n+h:j*n+j], c.lsT[h*n+h:h*n+j]
			var r, l float64
			if viterbi {
				var k int
				r, k = maxDot(a, b)
				c.bpR[h*n+j] = int32(h + 1 + k)
				l, k = maxDot(a2, b2)
				c.bpL[j*n+h] = int32(h + k)
			} else {
				r, l = dot(a, b), dot(a2, b2)
			}
			c.rs[h*n+j] = r * c.stop[h*4+Right*2+NonAdj]
			c.rc[h*n+j] = r * c.cont[h*4+Right*2+NonAdj]
			c.rsT[j*n+h] = c.rs[h*n+j]
			c.ls[j*n+h] = l * c.stop[j*4+Left*2+NonAdj]
			c.lc[j*n+h] = l * c.cont[j*4+Left*2+NonAdj]
			c.lsT[h*n+j] = c.ls[j*n+h]
		}
	}
	if c.seg.on {
		c.segmentTop(viterbi)
		return
	}
	c.z, c.bestRoot = 0, -1
	for r := 0; r < n; r++ {
		s := c.root[r] * c.ls[r*n] * c.rs[r*n+n-1]
		if !viterbi {
			c.z += s
		} else if s > c.z || c.bestRoot < 0 {
			c.z, c.bestRoot = s, r
		}
	}
}

// attachTwoChild is inside's attachments of h and d (h < d) under two
// child valences: d as h's right child, h as d's left child. A first
// child's attachment is the way that splits next to its head — k = h for
// IR[h][d], the last k = d − 1 for IL[d][h] — and takes edge; the others
// take more. Viterbi keeps the leftmost split among equals, as inside's
// maxDot does.
func (c *Chart) attachTwoChild(h, d int, viterbi bool) {
	n := c.n
	a, b := c.rc[h*n+h:h*n+d], c.ls[d*n+h+1:d*n+d+1]
	first := c.edge[h*n+d] * (a[0] * b[0])
	a2, b2 := c.rs[h*n+h:h*n+d], c.lc[d*n+h+1:d*n+d+1]
	last := len(a2) - 1
	first2 := c.edge[d*n+h] * (a2[last] * b2[last])
	if viterbi {
		c.ir[h*n+d], c.bpIR[h*n+d] = first, int32(h)
		if s, k := maxDot(a[1:], b[1:]); last > 0 && c.more[h*n+d]*s > first {
			c.ir[h*n+d], c.bpIR[h*n+d] = c.more[h*n+d]*s, int32(h+1+k)
		}
		c.il[d*n+h], c.bpIL[d*n+h] = first2, int32(d-1)
		if s, k := maxDot(a2[:last], b2[:last]); last > 0 && c.more[d*n+h]*s >= first2 {
			c.il[d*n+h], c.bpIL[d*n+h] = c.more[d*n+h]*s, int32(h+k)
		}
		return
	}
	c.irMore[h*n+d] = c.more[h*n+d] * dot(a[1:], b[1:])
	c.ir[h*n+d] = first + c.irMore[h*n+d]
	c.ilMore[d*n+h] = c.more[d*n+h] * dot(a2[:last], b2[:last])
	c.il[d*n+h] = c.ilMore[d*n+h] + first2
}

// dot is Σ a[i]·b[i]; len(b) ≥ len(a).
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// maxDot is max a[i]·b[i] and the first i that attains it.
func maxDot(a, b []float64) (float64, int) {
	b = b[:len(a)]
	best, arg := -1.0, 0
	for i, x := range a {
		if v := x * b[i]; v > best {
			best, arg = v, i
		}
	}
	return best, arg
}

// axpy adds f·x to y; len(x) ≥ len(y).
func axpy(f float64, x, y []float64) {
	x = x[:len(y)]
	for i := range y {
		y[i] += f * x[i]
	}
}
