package dmv

import (
	"math"
	"sync"
)

// Ad-Hoc* (Spitkovsky, Alshawi & Jurafsky 2010, "From Baby Steps to
// Leapfrog", NAACL, §5.1 "Algorithm #0: Ad-Hoc∗ — A Variation on Original
// Ad-Hoc Initialization"; the initializer of Spitkovsky et al. 2010,
// "Viterbi Training Improves Unsupervised Dependency Parsing", footnote 2):
// every token other than the root ♦ is scored by "ad-hoc harmonic scores"
//
//	P̃ORDER ≡ 1/2;  P̃STOP ≡ (d_s + 3)⁻¹, d_s ≥ 0;  P̃ATTACH ≡ (d_a + 2)⁻¹, d_a ≥ 1,
//
// d_s the distance from a head to its stopping boundary and d_a to its
// dependent; ♦ takes each token with the same score (Klein & Manning's
// "♦ generated heads uniformly at random"). The best-scoring parses of
// every sentence become a model "via maximum-likelihood estimation (a
// single step of Viterbi training)".
//
// grind's reading of what the paper leaves implicit:
//   - a decision to go on taking children on a side scores 1 − P̃STOP at
//     the same distance (the paper's footnote 8: δ_s = 3 is "one higher
//     than is strictly necessary to avoid both division by zero and
//     determinism", which only 1 − P̃STOP makes matter, while "we never
//     compute 1−PATTACH");
//   - the distance of a stop or continue decision is that from the head to
//     the edge of its constituent so far on that side (0 before its first
//     child there, then the far edge of its last child's subtree);
//   - P̃ORDER is a constant factor of every tree (one per token), so it
//     does not change the best parses;
//   - the paper's parser "carefully randomizes tie-breaking, so that all
//     parse trees having the same score get an equal shot at being
//     selected"; grind counts every best tree with weight 1/(their
//     number), the expectation of that random choice, so the initializer is
//     deterministic. (Ties are the rule, not the exception: the scores
//     depend on positions alone, so a tree and its mirror image score the
//     same.)
//
// The scores depend on nothing but positions, so a sentence's best trees
// depend on its length alone: AdHocTrees computes them once per length.

// adhocStop and adhocAttach are the paper's δ_s and δ_a.
const (
	adhocStop   = 3
	adhocAttach = 2
)

// adhocTieTol is how close two log-scores must be to count as tied: a
// tree's log-score sums the same logarithms in a different order from its
// mirror image's, so equal scores differ by rounding.
const adhocTieTol = 1e-9

// AdHocScore is the log of the Ad-Hoc* score of a projective tree (heads
// 1-based, 0 the root), without the constant P̃ORDER and root factors.
func AdHocScore(heads []int) float64 {
	n := len(heads)
	s := 0.0
	for h := 1; h <= n; h++ {
		// Left side: children nearest first; the edge is h until the first
		// child, then the left edge of the last child's subtree.
		edge := h
		for d := h - 1; d >= 1; d-- {
			if heads[d-1] != h {
				continue
			}
			s += math.Log(1 - 1/float64(h-edge+adhocStop))
			s -= math.Log(float64(h - d + adhocAttach))
			edge = leftEdge(heads, d)
		}
		s -= math.Log(float64(h - edge + adhocStop))
		edge = h
		for d := h + 1; d <= n; d++ {
			if heads[d-1] != h {
				continue
			}
			s += math.Log(1 - 1/float64(edge-h+adhocStop))
			s -= math.Log(float64(d - h + adhocAttach))
			edge = rightEdge(heads, d)
		}
		s -= math.Log(float64(edge - h + adhocStop))
	}
	return s
}

// leftEdge and rightEdge are the edges (1-based) of d's subtree.
func leftEdge(heads []int, d int) int {
	e := d
	for x := range heads {
		if x+1 < e && dominates(heads, d, x+1) {
			e = x + 1
		}
	}
	return e
}

func rightEdge(heads []int, d int) int {
	e := d
	for x := range heads {
		if x+1 > e && dominates(heads, d, x+1) {
			e = x + 1
		}
	}
	return e
}

// dominates says whether a is an ancestor of x (1-based).
func dominates(heads []int, a, x int) bool {
	for steps := 0; x != 0 && steps <= len(heads); steps++ {
		if x == a {
			return true
		}
		x = heads[x-1]
	}
	return false
}

var adhocCache struct {
	sync.Mutex
	trees map[int][][]int
}

// AdHocTrees are the best trees of a sentence of n tokens under the Ad-Hoc*
// scores (heads 1-based, 0 the root), in a fixed order. The caller must
// not change them.
func AdHocTrees(n int) [][]int {
	adhocCache.Lock()
	defer adhocCache.Unlock()
	if t, ok := adhocCache.trees[n]; ok {
		return t
	}
	if adhocCache.trees == nil {
		adhocCache.trees = map[int][][]int{}
	}
	t := adhocBest(n)
	adhocCache.trees[n] = t
	return t
}

// adhocChart is Eisner's first-order chart over half-constituents with
// the Ad-Hoc* scores (log domain, 0-based positions). A head's sides are
// independent, so:
//
//	or[h][j]  h's right side open (children so far), its edge at j ≥ h
//	sr[h][j]  or[h][j] stopped: + log P̃STOP(j − h)
//	ir[h][a]  h has just taken its right child a, the edge before a's
//	          left side at r: max_r or[h][r] + log(1 − P̃STOP(r − h)) +
//	          sl[a][r+1] + log P̃ATTACH(a − h)
//	or[h][j]  (j > h) max_a ir[h][a] + sr[a][j]
//
// and the mirror images ol, sl, il.
type adhocChart struct {
	n                      int
	or, sr, ir, ol, sl, il [][]float64
}

func newAdhocChart(n int) *adhocChart {
	c := &adhocChart{n: n}
	for _, t := range []*[][]float64{&c.or, &c.sr, &c.ir, &c.ol, &c.sl, &c.il} {
		*t = make([][]float64, n)
		for i := range *t {
			(*t)[i] = make([]float64, n)
			for j := range (*t)[i] {
				(*t)[i][j] = math.Inf(-1)
			}
		}
	}
	return c
}

func adhocLogStop(d int) float64 { return -math.Log(float64(d + adhocStop)) }
func adhocLogCont(d int) float64 { return math.Log(1 - 1/float64(d+adhocStop)) }
func adhocLogAtt(d int) float64  { return -math.Log(float64(d + adhocAttach)) }

func (c *adhocChart) fill() {
	n := c.n
	for h := 0; h < n; h++ {
		c.or[h][h], c.ol[h][h] = 0, 0
		c.sr[h][h], c.sl[h][h] = adhocLogStop(0), adhocLogStop(0)
	}
	for w := 1; w < n; w++ {
		for h := 0; h+w < n; h++ {
			a := h + w // right attachment h → a, and left attachment a → h
			best := math.Inf(-1)
			for r := h; r < a; r++ {
				best = max(best, c.irSplit(h, a, r))
			}
			c.ir[h][a] = best
			best = math.Inf(-1)
			for r := h + 1; r <= a; r++ {
				best = max(best, c.ilSplit(a, h, r))
			}
			c.il[a][h] = best
		}
		for h := 0; h+w < n; h++ {
			j := h + w
			best := math.Inf(-1)
			for a := h + 1; a <= j; a++ {
				best = max(best, c.ir[h][a]+c.sr[a][j])
			}
			c.or[h][j] = best
			c.sr[h][j] = best + adhocLogStop(w)
			i, g := h, j // left side of g reaching i
			best = math.Inf(-1)
			for a := i; a < g; a++ {
				best = max(best, c.il[g][a]+c.sl[a][i])
			}
			c.ol[g][i] = best
			c.sl[g][i] = best + adhocLogStop(w)
		}
	}
}

// irSplit is ir[h][a] through the edge r; ilSplit il[h][a] (a < h) through
// the edge r of h's left side (a's right side reaching r − 1).
func (c *adhocChart) irSplit(h, a, r int) float64 {
	return c.or[h][r] + adhocLogCont(r-h) + c.sl[a][r+1] + adhocLogAtt(a-h)
}

func (c *adhocChart) ilSplit(h, a, r int) float64 {
	return c.sr[a][r-1] + c.ol[h][r] + adhocLogCont(h-r) + adhocLogAtt(h-a)
}

func tied(x, best float64) bool { return x >= best-adhocTieTol }

// adhocBest enumerates the best trees of length n.
func adhocBest(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	c := newAdhocChart(n)
	c.fill()
	best := math.Inf(-1)
	for h := 0; h < n; h++ {
		best = max(best, c.sl[h][0]+c.sr[h][n-1])
	}
	var out [][]int
	for h := 0; h < n; h++ {
		if !tied(c.sl[h][0]+c.sr[h][n-1], best) {
			continue
		}
		for _, l := range c.edgesSL(h, 0) {
			for _, r := range c.edgesSR(h, n-1) {
				heads := make([]int, n)
				heads[h] = 0
				for _, e := range l {
					heads[e[0]] = e[1] + 1
				}
				for _, e := range r {
					heads[e[0]] = e[1] + 1
				}
				out = append(out, heads)
			}
		}
	}
	return out
}

// edge is a dependency (dependent, head), 0-based.
type edge [2]int

// cross is every concatenation of one list of xs with one of ys.
func cross(xs, ys [][]edge) [][]edge {
	var out [][]edge
	for _, x := range xs {
		for _, y := range ys {
			out = append(out, append(append([]edge(nil), x...), y...))
		}
	}
	return out
}

// edgesSR lists the edge sets of every best derivation of sr[h][j] (the
// same as or[h][j]'s).
func (c *adhocChart) edgesSR(h, j int) [][]edge {
	if j == h {
		return [][]edge{nil}
	}
	var out [][]edge
	for a := h + 1; a <= j; a++ {
		if tied(c.ir[h][a]+c.sr[a][j], c.or[h][j]) {
			out = append(out, cross(c.edgesIR(h, a), c.edgesSR(a, j))...)
		}
	}
	return out
}

func (c *adhocChart) edgesIR(h, a int) [][]edge {
	var out [][]edge
	for r := h; r < a; r++ {
		if tied(c.irSplit(h, a, r), c.ir[h][a]) {
			out = append(out, cross(cross(c.edgesSR(h, r), c.edgesSL(a, r+1)), [][]edge{{{a, h}}})...)
		}
	}
	return out
}

func (c *adhocChart) edgesSL(h, i int) [][]edge {
	if i == h {
		return [][]edge{nil}
	}
	var out [][]edge
	for a := i; a < h; a++ {
		if tied(c.il[h][a]+c.sl[a][i], c.ol[h][i]) {
			out = append(out, cross(c.edgesIL(h, a), c.edgesSL(a, i))...)
		}
	}
	return out
}

func (c *adhocChart) edgesIL(h, a int) [][]edge {
	var out [][]edge
	for r := a + 1; r <= h; r++ {
		if tied(c.ilSplit(h, a, r), c.il[h][a]) {
			out = append(out, cross(cross(c.edgesSL(h, r), c.edgesSR(a, r-1)), [][]edge{{{a, h}}})...)
		}
	}
	return out
}

// AdHocCounts are the counts of the Ad-Hoc* initializer: every best tree
// of every sentence, each with weight 1/(the number of its sentence's best
// trees).
func AdHocCounts(c *Corpus) (*Params, error) { return adhocCounts(c, DMVValence) }

func adhocCounts(c *Corpus, v Valence) (*Params, error) {
	counts := NewValenceParams(c.Tags.Len(), v)
	err := c.Each(0, c.Len(), func(_ int, tags, _ []int) {
		trees := AdHocTrees(len(tags))
		w := 1 / float64(len(trees))
		for _, heads := range trees {
			AddTreeCounts(tags, heads, counts, w)
		}
	})
	return counts, err
}
