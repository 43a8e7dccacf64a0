package dmv

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Ties says how Viterbi EM chooses among a sentence's best trees when
// several share the best weight: from uniform multinomials every
// projective tree of a sentence does (each attachment costs one cont and
// one child factor, each side one stop), so the first E-step of Viterbi
// EM from the uninformed start is decided by this rule alone.
type Ties string

const (
	// TiesLeft is grind's deterministic rule, Viterbi's: the leftmost
	// root, the leftmost split point, the last child nearest its head.
	TiesLeft Ties = "left"
	// TiesRandom draws one best tree uniformly at random (each of them
	// equally likely, not each choice of the chart), from a generator
	// seeded by the run's seed and the sentence's position.
	TiesRandom Ties = "random"
	// TiesSplit counts every best tree, each with weight 1/(their number):
	// the counts of the uniform distribution over the best trees (the
	// limit of DA's posterior as β → ∞).
	TiesSplit Ties = "split"
)

// ParseTies reads a tie rule's name ("" is TiesLeft).
func ParseTies(s string) (Ties, error) {
	switch t := Ties(s); t {
	case "":
		return TiesLeft, nil
	case TiesLeft, TiesRandom, TiesSplit:
		return t, nil
	}
	return "", fmt.Errorf("ties are broken %q, %q or %q, not %q", TiesLeft, TiesRandom, TiesSplit, s)
}

// checkTies refuses a tie rule where it has no chart: it is Viterbi
// EM's (Hard), over the plain DMV's chart.
func checkTies(opts EStepOptions, v Valence) error {
	if _, err := ParseTies(string(opts.Ties)); err != nil {
		return err
	}
	switch {
	case !opts.Hard:
		return fmt.Errorf("ties %s: ties are broken among Viterbi EM's best trees (--hard)", opts.Ties)
	case opts.Bound.On(), opts.Segment:
		return fmt.Errorf("ties %s: for the plain chart, not with the depth bound or Model S's segments", opts.Ties)
	}
	return RefuseValence(v, "ties "+string(opts.Ties))
}

// tieTol is how close to the best a weight counts as equal to it: the
// chart multiplies the same factors in different orders for different
// trees, so equal weights differ by rounding (a few ulps a factor).
const tieTol = 1e-9

// tieChart holds the log-numbers of best sub-derivations of every item of
// the Viterbi chart (in) and of the ways to complete each into a best tree
// (out), indexed as the chart's items. Its tables are the chart's own
// that a Viterbi pass leaves unused (the outside pass's adjoints and the
// inside pass's transposes), so ties take no memory beyond the chart's.
type tieChart struct {
	r, l, ir, il                 []float64 // log-counts; Rs, Rc share r (Ls, Lc share l)
	ors, orc, ols, olc, oir, oil []float64 // log-counts of completions
	total                        float64
	roots                        []float64 // log-count of the best trees with root r (−Inf: not a best root)
}

// bind points t's tables at c's free ones, after c's Viterbi pass.
func (t *tieChart) bind(c *Chart) {
	t.r, t.l, t.ir, t.il = c.brs, c.bls, c.bir, c.bil
	t.ors, t.orc, t.ols, t.olc, t.oir, t.oil = c.brsT, c.brc, c.blsT, c.blc, c.rsT, c.lsT
	if cap(t.roots) < c.n {
		t.roots = make([]float64, c.capacity)
	}
	t.roots = t.roots[:c.n]
}

// logPlus is log(eˣ + eʸ).
func logPlus(x, y float64) float64 {
	if x < y {
		x, y = y, x
	}
	if math.IsInf(y, -1) {
		return x
	}
	return x + math.Log1p(math.Exp(y-x))
}

// tight says whether v is within tieTol of best (a best choice).
func tight(v, best float64) bool { return best > 0 && v >= best*(1-tieTol) }

// TiedViterbi is Viterbi under ties (TiesRandom, TiesSplit): it runs the
// Viterbi chart, counts the best derivations of every item, and for
// TiesRandom writes one best tree drawn uniformly with rng into heads; for
// TiesSplit it leaves the expected counts of the uniform distribution over
// the best trees for AddCounts, as Outside does for the posterior. It
// returns the best tree's log weight, as Viterbi does (−Inf, NaN: heads
// and counts untouched). For the plain DMV's chart (no valence settings,
// no segments).
func (c *Chart) TiedViterbi(heads []int, ties Ties, rng *rand.Rand) float64 {
	logZ := c.viterbi(heads, false)
	if math.IsInf(logZ, -1) || math.IsNaN(logZ) {
		return logZ
	}
	c.tieInside()
	if ties == TiesRandom {
		c.sampleTree(heads, rng)
		return logZ
	}
	c.tieOutside()
	return logZ
}

// tieInside counts, bottom-up as inside(true) maximises, the best
// derivations of every item: the sum over its best choices (tight) of the
// product of its parts' counts, in log space (a sentence of n words has up
// to about 6.75ⁿ best trees).
func (c *Chart) tieInside() {
	n := c.n
	t := &c.ties
	t.bind(c)
	for i := range n * n {
		t.r[i], t.l[i], t.ir[i], t.il[i] = math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)
	}
	for h := 0; h < n; h++ {
		t.r[h*n+h], t.l[h*n+h] = 0, 0
	}
	for w := 1; w < n; w++ {
		for h := 0; h+w < n; h++ {
			d := h + w
			// IR[h][d] over k: Rc[h][k]·Ls[d][k+1]; IL[d][h]: Rs[h][k]·Lc[d][k+1].
			bestR, bestL := 0.0, 0.0
			for k := h; k < d; k++ {
				bestR = max(bestR, c.rc[h*n+k]*c.ls[d*n+k+1])
				bestL = max(bestL, c.rs[h*n+k]*c.lc[d*n+k+1])
			}
			for k := h; k < d; k++ {
				if tight(c.rc[h*n+k]*c.ls[d*n+k+1], bestR) {
					t.ir[h*n+d] = logPlus(t.ir[h*n+d], t.r[h*n+k]+t.l[d*n+k+1])
				}
				if tight(c.rs[h*n+k]*c.lc[d*n+k+1], bestL) {
					t.il[d*n+h] = logPlus(t.il[d*n+h], t.r[h*n+k]+t.l[d*n+k+1])
				}
			}
		}
		for h := 0; h+w < n; h++ {
			j := h + w
			// R[h][j] over c: IR[h][c]·Rs[c][j]; L[j][h] over c: IL[j][c]·Ls[c][h].
			bestR, bestL := 0.0, 0.0
			for m := h + 1; m <= j; m++ {
				bestR = max(bestR, c.ir[h*n+m]*c.rs[m*n+j])
			}
			for m := h; m < j; m++ {
				bestL = max(bestL, c.il[j*n+m]*c.ls[m*n+h])
			}
			for m := h + 1; m <= j; m++ {
				if tight(c.ir[h*n+m]*c.rs[m*n+j], bestR) {
					t.r[h*n+j] = logPlus(t.r[h*n+j], t.ir[h*n+m]+t.r[m*n+j])
				}
			}
			for m := h; m < j; m++ {
				if tight(c.il[j*n+m]*c.ls[m*n+h], bestL) {
					t.l[j*n+h] = logPlus(t.l[j*n+h], t.il[j*n+m]+t.l[m*n+h])
				}
			}
		}
	}
	best := 0.0
	for r := 0; r < n; r++ {
		best = max(best, c.root[r]*c.ls[r*n]*c.rs[r*n+n-1])
	}
	t.total = math.Inf(-1)
	for r := 0; r < n; r++ {
		t.roots[r] = math.Inf(-1)
		if tight(c.root[r]*c.ls[r*n]*c.rs[r*n+n-1], best) {
			t.roots[r] = t.l[r*n] + t.r[r*n+n-1]
			t.total = logPlus(t.total, t.roots[r])
		}
	}
}

// pick draws one of the options whose log-counts are given (−Inf: not an
// option), each with probability its count over their sum.
func pick(rng *rand.Rand, logCounts []float64, sum float64) int {
	u := rng.Float64()
	last := -1
	for i, lc := range logCounts {
		if math.IsInf(lc, -1) {
			continue
		}
		last = i
		if u -= math.Exp(lc - sum); u < 0 {
			return i
		}
	}
	return last // rounding left u a hair above 0
}

// sampleTree writes into heads a best tree drawn uniformly: every choice
// of the backtrace is drawn among its best options in proportion to the
// number of best trees each leads to.
func (c *Chart) sampleTree(heads []int, rng *rand.Rand) {
	n, t := c.n, &c.ties
	r := pick(rng, t.roots[:n], t.total)
	heads[r] = 0
	opts := make([]float64, n)
	c.sampleLeft(heads, r, 0, rng, opts)
	c.sampleRight(heads, r, n-1, rng, opts)
}

// sampleRight draws h's right half over h..j, as backRight follows it.
func (c *Chart) sampleRight(heads []int, h, j int, rng *rand.Rand, opts []float64) {
	n, t := c.n, &c.ties
	for j > h {
		best := 0.0
		for m := h + 1; m <= j; m++ {
			best = max(best, c.ir[h*n+m]*c.rs[m*n+j])
		}
		for m := range opts {
			opts[m] = math.Inf(-1)
			if m > h && m <= j && tight(c.ir[h*n+m]*c.rs[m*n+j], best) {
				opts[m] = t.ir[h*n+m] + t.r[m*n+j]
			}
		}
		d := pick(rng, opts, t.r[h*n+j]) // h's farthest right child
		heads[d] = h + 1
		best = 0
		for k := h; k < d; k++ {
			best = max(best, c.rc[h*n+k]*c.ls[d*n+k+1])
		}
		for k := range opts {
			opts[k] = math.Inf(-1)
			if k >= h && k < d && tight(c.rc[h*n+k]*c.ls[d*n+k+1], best) {
				opts[k] = t.r[h*n+k] + t.l[d*n+k+1]
			}
		}
		k := pick(rng, opts, t.ir[h*n+d])
		c.sampleLeft(heads, d, k+1, rng, opts)
		c.sampleRight(heads, d, j, rng, opts)
		j = k
	}
}

// sampleLeft draws h's left half over i..h, as backLeft follows it.
func (c *Chart) sampleLeft(heads []int, h, i int, rng *rand.Rand, opts []float64) {
	n, t := c.n, &c.ties
	for i < h {
		best := 0.0
		for m := i; m < h; m++ {
			best = max(best, c.il[h*n+m]*c.ls[m*n+i])
		}
		for m := range opts {
			opts[m] = math.Inf(-1)
			if m >= i && m < h && tight(c.il[h*n+m]*c.ls[m*n+i], best) {
				opts[m] = t.il[h*n+m] + t.l[m*n+i]
			}
		}
		d := pick(rng, opts, t.l[h*n+i]) // h's farthest left child
		heads[d] = h + 1
		best = 0
		for k := d; k < h; k++ {
			best = max(best, c.rs[d*n+k]*c.lc[h*n+k+1])
		}
		for k := range opts {
			opts[k] = math.Inf(-1)
			if k >= d && k < h && tight(c.rs[d*n+k]*c.lc[h*n+k+1], best) {
				opts[k] = t.r[d*n+k] + t.l[h*n+k+1]
			}
		}
		k := pick(rng, opts, t.il[h*n+d])
		c.sampleRight(heads, d, k, rng, opts)
		c.sampleLeft(heads, d, i, rng, opts)
		i = k + 1
	}
}

// tieOutside counts, top-down, the ways to complete every item into a
// best tree, and from them fills the posteriors AddCounts reads (those of
// the uniform distribution over the best trees): an item's share is its
// best derivations times its completions over the number of best trees.
func (c *Chart) tieOutside() {
	n, t := c.n, &c.ties
	ninf := math.Inf(-1)
	for i := range n * n {
		t.ors[i], t.orc[i], t.ols[i], t.olc[i], t.oir[i], t.oil[i] = ninf, ninf, ninf, ninf, ninf, ninf
	}
	clear(c.edgePost[:n*n])
	clear(c.rootPost[:n])
	clear(c.stopPost[:4*n])
	clear(c.contPost[:4*n])
	share := func(in, out float64) float64 { return math.Exp(in + out - t.total) }
	for r := 0; r < n; r++ {
		if math.IsInf(t.roots[r], -1) {
			continue
		}
		c.rootPost[r] = share(t.roots[r], 0)
		t.ols[r*n] = logPlus(t.ols[r*n], t.r[r*n+n-1])
		t.ors[r*n+n-1] = logPlus(t.ors[r*n+n-1], t.l[r*n])
	}
	for w := n - 1; w >= 1; w-- {
		for h := 0; h+w < n; h++ {
			j := h + w
			// R[h][j], used as Rs or Rc: its best choices c.
			if o := logPlus(t.ors[h*n+j], t.orc[h*n+j]); !math.IsInf(o, -1) {
				best := 0.0
				for m := h + 1; m <= j; m++ {
					best = max(best, c.ir[h*n+m]*c.rs[m*n+j])
				}
				for m := h + 1; m <= j; m++ {
					if tight(c.ir[h*n+m]*c.rs[m*n+j], best) {
						t.oir[h*n+m] = logPlus(t.oir[h*n+m], o+t.r[m*n+j])
						t.ors[m*n+j] = logPlus(t.ors[m*n+j], o+t.ir[h*n+m])
					}
				}
			}
			// L[j][h], used as Ls or Lc.
			if o := logPlus(t.ols[j*n+h], t.olc[j*n+h]); !math.IsInf(o, -1) {
				best := 0.0
				for m := h; m < j; m++ {
					best = max(best, c.il[j*n+m]*c.ls[m*n+h])
				}
				for m := h; m < j; m++ {
					if tight(c.il[j*n+m]*c.ls[m*n+h], best) {
						t.oil[j*n+m] = logPlus(t.oil[j*n+m], o+t.l[m*n+h])
						t.ols[m*n+h] = logPlus(t.ols[m*n+h], o+t.il[j*n+m])
					}
				}
			}
		}
		for h := 0; h+w < n; h++ {
			d := h + w
			if o := t.oir[h*n+d]; !math.IsInf(o, -1) {
				c.edgePost[h*n+d] = share(t.ir[h*n+d], o)
				best := 0.0
				for k := h; k < d; k++ {
					best = max(best, c.rc[h*n+k]*c.ls[d*n+k+1])
				}
				for k := h; k < d; k++ {
					if tight(c.rc[h*n+k]*c.ls[d*n+k+1], best) {
						t.orc[h*n+k] = logPlus(t.orc[h*n+k], o+t.l[d*n+k+1])
						t.ols[d*n+k+1] = logPlus(t.ols[d*n+k+1], o+t.r[h*n+k])
					}
				}
			}
			if o := t.oil[d*n+h]; !math.IsInf(o, -1) {
				c.edgePost[d*n+h] = share(t.il[d*n+h], o)
				best := 0.0
				for k := h; k < d; k++ {
					best = max(best, c.rs[h*n+k]*c.lc[d*n+k+1])
				}
				for k := h; k < d; k++ {
					if tight(c.rs[h*n+k]*c.lc[d*n+k+1], best) {
						t.ors[h*n+k] = logPlus(t.ors[h*n+k], o+t.l[d*n+k+1])
						t.olc[d*n+k+1] = logPlus(t.olc[d*n+k+1], o+t.r[h*n+k])
					}
				}
			}
		}
	}
	// Stops and conts: a half of width 0 is the side's first decision,
	// a wider one a later decision.
	for h := 0; h < n; h++ {
		for m := 0; m < n; m++ {
			right, left := h*n+m, h*n+m // Rs/Rc[h][m] for m ≥ h; Ls/Lc[h][m] for m ≤ h
			v := NonAdj
			if m == h {
				v = Adj
			}
			if m >= h {
				c.stopPost[h*4+Right*2+v] += share(t.r[right], t.ors[right])
				c.contPost[h*4+Right*2+v] += share(t.r[right], t.orc[right])
			}
			if m <= h {
				c.stopPost[h*4+Left*2+v] += share(t.l[left], t.ols[left])
				c.contPost[h*4+Left*2+v] += share(t.l[left], t.olc[left])
			}
		}
	}
}
