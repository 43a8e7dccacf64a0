package dmvccm

import (
	"math"

	"github.com/grind-nlp/grind/stages/bintree"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Order is how a head's derivation orders its dependents: the readings of
// Klein (2005) §6.2–6.3 that grind implements.
type Order int

const (
	// Released (the default, family dmvccm): every interleaving of left
	// and right dependents is a derivation, each paying the DMV's
	// per-side CONT and STOP factors, so a tree weighs P_DMV(T)·N(T) with
	// a flat CCM (Chart).
	Released Order = iota
	// RightFirstOrder is the DMV alone's order (§6.2, dmvccm-right-first):
	// every right dependent before any left one (Weights.RightFirst).
	RightFirstOrder
	// Mixture is §6.3's DMV alone: "we allow each word to have even
	// probability for either generation order, this order being chosen
	// as the first step in a head's outward dependency generation
	// process". Each head first chooses right-first or left-first with
	// probability ½ each, then runs the DMV's per-side process in that
	// order. Its stops and attachments are the DMV's, so a tree's two
	// orders have the same DMV factors and Σ over derivations is exactly
	// P_DMV(T): the DMV alone under the mixture is the DMV; with the CCM
	// the two orders of a head with dependents on both sides bracket
	// differently.
	Mixture
	// Footnote8 is footnote 8's process: before each dependent the head
	// chooses whether to stop entirely (HALT) and, if not, a side, then
	// an argument on that side. The decisions are conditioned on the head
	// and on whether it has a dependent yet on each side (vL, vR): the
	// valence the chart knows. Weights.Halt and Weights.Go hold them.
	Footnote8
)

// OrderNames are the orders' names in flags and family names.
var OrderNames = [...]string{Released: "released", RightFirstOrder: "right-first", Mixture: "mixture", Footnote8: "footnote8"}

func (o Order) String() string { return OrderNames[o] }

// ParseOrder reads an order's name.
func ParseOrder(s string) (Order, bool) {
	for o, name := range OrderNames {
		if name == s {
			return Order(o), true
		}
	}
	return 0, false
}

// Fn8Weights are footnote 8's decisions for one sentence's positions:
// Halt[vL][vR][h], the probability that h stops entirely with valence
// (vL, vR) (Adj: no dependent yet on that side), and Go[dir][vL][vR][h],
// the probability that it goes on and takes its next dependent on side
// dir: Halt + Go[Left] + Go[Right] = 1 in each state.
type Fn8Weights struct {
	Halt [2][2][]float64
	Go   [2][2][2][]float64
}

// ochart is the chart of every order in one program: one open table per
// head order o (two for Mixture), each weighted by mu[o] at sealing.
// Attaching on side d from a head item of valence (vL, vR) multiplies
// g[o][d][vL][vR][h] (0 where the order forbids it); sealing at (vL, vR)
// multiplies sigma[vL][vR][h]. It is the plain O(n⁴) program; when Z
// leaves floating point's range it settles a common factor on the
// attachments as Chart does (settle), without Chart's first rescaling of
// each weight.
type ochart struct {
	n      int
	w      Weights
	phi    []float64
	mu     []float64
	g      [][2][2][2][]float64
	sigma  [2][2][]float64
	open   [][]float64
	sealed []float64
	right  []float64
	left   []float64
	gOpen  [][]float64
	gSeal  []float64
	gRight []float64
	gLeft  []float64
	z      float64
	logC   float64
	scale  float64 // the common factor on every attachment (settle)
	// conts[d][vL][vR][h] and seals[vL][vR][h] sum, in outside, the
	// weight of the derivations through each attachment and sealing.
	conts  [2][2][2][]float64
	seals  [2][2][]float64
	attach [2][]float64
}

func (c *ochart) at(i, j, h int) int { return (i*(c.n+1)+j)*c.n + h }

// orderTables fills mu, g and sigma from w and the order.
func (c *ochart) tables(order Order, w Weights, fn8 *Fn8Weights) {
	n := c.n
	vec := func() []float64 { return make([]float64, n) }
	one := func(o int, allow func(d, vL, vR int) bool) {
		for d := range 2 {
			for vL := range 2 {
				for vR := range 2 {
					g := vec()
					if allow(d, vL, vR) {
						for h := range n {
							switch {
							case order == Footnote8:
								g[h] = fn8.Go[d][vL][vR][h]
							case d == Left:
								g[h] = w.Cont[Left][vL][h]
							default:
								g[h] = w.Cont[Right][vR][h]
							}
						}
					}
					c.g[o][d][vL][vR] = g
				}
			}
		}
	}
	all := func(d, vL, vR int) bool { return true }
	rightFirst := func(d, vL, vR int) bool { return d == Left || vL == Adj }
	leftFirst := func(d, vL, vR int) bool { return d == Right || vR == Adj }
	switch order {
	case Mixture:
		c.mu = []float64{0.5, 0.5}
		c.g = make([][2][2][2][]float64, 2)
		one(0, rightFirst)
		one(1, leftFirst)
	case RightFirstOrder:
		c.mu = []float64{1}
		c.g = make([][2][2][2][]float64, 1)
		one(0, rightFirst)
	default:
		c.mu = []float64{1}
		c.g = make([][2][2][2][]float64, 1)
		one(0, all)
	}
	for vL := range 2 {
		for vR := range 2 {
			s := vec()
			for h := range n {
				if order == Footnote8 {
					s[h] = fn8.Halt[vL][vR][h]
				} else {
					s[h] = w.Stop[Left][vL][h] * w.Stop[Right][vR][h]
				}
			}
			c.sigma[vL][vR] = s
		}
	}
}

func adjIdx(b bool) int {
	if b {
		return Adj
	}
	return NonAdj
}

// insideOrder fills an ochart of a sentence of n words.
func insideOrder(n int, order Order, w Weights, fn8 *Fn8Weights, f ccm.Factors) *ochart {
	c := &ochart{n: n, w: w, phi: f.Phi}
	c.logC = f.LogK - bintree.LogCatalan(n-1) - float64(2*n-1)*f.Shift
	c.tables(order, w, fn8)
	size := (n + 1) * (n + 1) * n
	c.open = make([][]float64, len(c.mu))
	for o := range c.open {
		c.open[o] = make([]float64, size)
	}
	c.sealed, c.right, c.left = make([]float64, size), make([]float64, size), make([]float64, size)
	c.scale = 1
	c.inside()
	if !normal(c.z) && n > 1 {
		c.settle(order, fn8)
	}
	return c
}

// settle brings Z into floating point's range when the sum over
// derivations leaves it (sentences of a hundred words and more), as
// Chart.settle does: every derivation has n − 1 attachments, so a common
// factor x on them multiplies Z by xⁿ⁻¹; x is sought straight to
// log Z = 0 when Z is a number, by doubling steps while it is 0 or
// infinite, by bisection once both are seen, and logC keeps it. A
// sentence no derivation can take keeps Z = 0; one that never settles
// gets Z = NaN.
func (c *ochart) settle(order Order, fn8 *Fn8Weights) {
	n := c.n
	if c.z == 0 {
		W := n + 1
		lphi := make([]float64, W*W)
		for i := 0; i < n; i++ {
			for j := i + 1; j <= n; j++ {
				lphi[i*W+j] = math.Log(c.phi[i*W+j])
			}
		}
		if math.IsInf(viterbiOrder(n, order, c.w, fn8, lphi, 0).LogMax, -1) {
			return // probability 0
		}
	}
	m := float64(n - 1)
	x, _ := dmv.SeekScale(c.z, m, 100, func(_, next float64) float64 {
		c.scale = math.Exp(next)
		c.inside()
		return c.z
	})
	c.logC -= m * x
	if !normal(c.z) {
		c.z = math.NaN()
	}
}

// inside is insideOrder's pass over the loaded tables: every attachment
// weighs Choose·scale.
func (c *ochart) inside() {
	n, w, W := c.n, c.w, c.n+1
	c.z = 0
	for l := 1; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l
			phi := c.phi[i*W+j]
			for h := i; h < j; h++ {
				x := c.at(i, j, h)
				vL, vR := adjIdx(i == h), adjIdx(j == h+1)
				seal := 0.0
				for o, open := range c.open {
					v := phi
					if l > 1 {
						sum := 0.0
						for k := h + 1; k < j; k++ {
							sum += open[c.at(i, k, h)] * c.right[c.at(k, j, h)] * c.g[o][Right][vL][adjIdx(k == h+1)][h]
						}
						for k := i + 1; k <= h; k++ {
							sum += c.left[c.at(i, k, h)] * open[c.at(k, j, h)] * c.g[o][Left][adjIdx(k == h)][vR][h]
						}
						v *= sum
					}
					open[x] = v
					seal += c.mu[o] * v
				}
				c.sealed[x] = seal * c.sigma[vL][vR][h]
			}
			for h := 0; h < n; h++ {
				if h >= i && h < j {
					continue
				}
				dir := Right
				if h >= j {
					dir = Left
				}
				sum := 0.0
				for a := i; a < j; a++ {
					sum += c.sealed[c.at(i, j, a)] * w.Choose[dir][h][a]
				}
				sum *= c.scale
				if dir == Right {
					c.right[c.at(i, j, h)] = sum
				} else {
					c.left[c.at(i, j, h)] = sum
				}
			}
		}
	}
	for h := 0; h < n; h++ {
		c.z += c.sealed[c.at(0, n, h)] * w.Root[h]
	}
}

func (c *ochart) logProb() float64 { return math.Log(c.z) + c.logC }

// outside fills the derivatives of Z and the events' weights.
func (c *ochart) outside() {
	n, w, W := c.n, c.w, c.n+1
	size := len(c.sealed)
	c.gOpen = make([][]float64, len(c.open))
	for o := range c.gOpen {
		c.gOpen[o] = make([]float64, size)
	}
	c.gSeal, c.gRight, c.gLeft = make([]float64, size), make([]float64, size), make([]float64, size)
	for d := range 2 {
		c.attach[d] = make([]float64, n*n)
		for vL := range 2 {
			c.seals[d][vL] = make([]float64, n)
			for vR := range 2 {
				c.conts[d][vL][vR] = make([]float64, n)
			}
		}
	}
	for h := 0; h < n; h++ {
		c.gSeal[c.at(0, n, h)] = w.Root[h]
	}
	for l := n; l >= 1; l-- {
		for i := 0; i+l <= n; i++ {
			j := i + l
			for h := 0; h < n; h++ {
				if h >= i && h < j {
					continue
				}
				dir, g := Right, c.gRight[c.at(i, j, h)]
				if h >= j {
					dir, g = Left, c.gLeft[c.at(i, j, h)]
				}
				for a := i; a < j; a++ {
					x := g * w.Choose[dir][h][a] * c.scale
					c.gSeal[c.at(i, j, a)] += x
					c.attach[dir][h*n+a] += x * c.sealed[c.at(i, j, a)]
				}
			}
			phi := c.phi[i*W+j]
			for h := i; h < j; h++ {
				x := c.at(i, j, h)
				vL, vR := adjIdx(i == h), adjIdx(j == h+1)
				c.seals[vL][vR][h] += c.gSeal[x] * c.sealed[x]
				for o, open := range c.open {
					gOpen := c.gOpen[o]
					gOpen[x] += c.gSeal[x] * c.mu[o] * c.sigma[vL][vR][h]
					if l == 1 {
						continue
					}
					g := gOpen[x] * phi
					for k := h + 1; k < j; k++ {
						head, dep := c.at(i, k, h), c.at(k, j, h)
						vk := adjIdx(k == h+1)
						gr := g * c.g[o][Right][vL][vk][h]
						gOpen[head] += gr * c.right[dep]
						c.gRight[dep] += gr * open[head]
						c.conts[Right][vL][vk][h] += gr * open[head] * c.right[dep]
					}
					for k := i + 1; k <= h; k++ {
						dep, head := c.at(i, k, h), c.at(k, j, h)
						vk := adjIdx(k == h)
						gl := g * c.g[o][Left][vk][vR][h]
						gOpen[head] += gl * c.left[dep]
						c.gLeft[dep] += gl * open[head]
						c.conts[Left][vk][vR][h] += gl * open[head] * c.left[dep]
					}
				}
			}
		}
	}
}

// brackets is the posterior of every span [i,j) of two or more words.
func (c *ochart) bracketsTo(p []float64) {
	n, W := c.n, c.n+1
	for i := 0; i < n; i++ {
		p[i*W+i+1] = 1
		for j := i + 2; j <= n; j++ {
			sum := 0.0
			for o := range c.open {
				for h := i; h < j; h++ {
					sum += c.open[o][c.at(i, j, h)] * c.gOpen[o][c.at(i, j, h)]
				}
			}
			p[i*W+j] = sum / c.z
		}
	}
}

// OrderCounts are a sentence's expected events under any order: Counts,
// whose Stop and Cont are the DMV's per-side events (each sealing one
// STOP on each side), and footnote 8's: Halt[vL][vR][h] and
// Go[d][vL][vR][h].
type OrderCounts struct {
	Counts
	Fn8 Fn8Weights
}

func (c *ochart) counts() OrderCounts {
	n, z := c.n, c.z
	var out OrderCounts
	out.Root = make([]float64, n)
	for d := range 2 {
		out.Attach[d] = make([][]float64, n)
		for h := range n {
			out.Attach[d][h] = make([]float64, n)
			for a := range n {
				out.Attach[d][h][a] = c.attach[d][h*n+a] / z
			}
		}
		for v := range 2 {
			out.Stop[d][v], out.Cont[d][v] = make([]float64, n), make([]float64, n)
			out.Fn8.Halt[d][v] = make([]float64, n)
			for v2 := range 2 {
				out.Fn8.Go[d][v][v2] = make([]float64, n)
			}
		}
	}
	for h := range n {
		out.Root[h] = c.w.Root[h] * c.sealed[c.at(0, n, h)] / z
		for vL := range 2 {
			for vR := range 2 {
				s := c.seals[vL][vR][h] / z
				out.Fn8.Halt[vL][vR][h] = s
				out.Stop[Left][vL][h] += s
				out.Stop[Right][vR][h] += s
				for d := range 2 {
					g := c.conts[d][vL][vR][h] / z
					out.Fn8.Go[d][vL][vR][h] = g
					if d == Left {
						out.Cont[Left][vL][h] += g
					} else {
						out.Cont[Right][vR][h] += g
					}
				}
			}
		}
	}
	return out
}

// viterbiOrder is the best derivation under an order, by the max-product
// program over the same items. Tie rule: the first maximum — the order
// by number, right attachments (split points ascending) before left ones.
func viterbiOrder(n int, order Order, w Weights, fn8 *Fn8Weights, lphi []float64, logC float64) Parse {
	c := &ochart{n: n, w: w}
	c.tables(order, w, fn8)
	size := (n + 1) * (n + 1) * n
	W := n + 1
	neg := math.Inf(-1)
	lg := math.Log
	open := make([][]float64, len(c.mu))
	split := make([][]int, len(c.mu))
	for o := range open {
		open[o], split[o] = make([]float64, size), make([]int, size)
	}
	sealed, bestO := make([]float64, size), make([]int, size)
	right, left, depArg := make([]float64, size), make([]float64, size), make([]int, size)
	for l := 1; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l
			lp := lphi[i*W+j]
			for h := i; h < j; h++ {
				x := c.at(i, j, h)
				vL, vR := adjIdx(i == h), adjIdx(j == h+1)
				sealed[x] = neg
				for o := range open {
					best := neg
					if l == 1 {
						best = lp
					} else {
						split[o][x] = h + 1
						if h+1 == j {
							split[o][x] = i + 1
						}
						for k := h + 1; k < j; k++ {
							if v := open[o][c.at(i, k, h)] + lg(c.g[o][Right][vL][adjIdx(k == h+1)][h]) + right[c.at(k, j, h)]; v > best {
								best, split[o][x] = v, k
							}
						}
						for k := i + 1; k <= h; k++ {
							if v := left[c.at(i, k, h)] + lg(c.g[o][Left][adjIdx(k == h)][vR][h]) + open[o][c.at(k, j, h)]; v > best {
								best, split[o][x] = v, k
							}
						}
						best += lp
					}
					open[o][x] = best
					if v := best + lg(c.mu[o]); v > sealed[x] || o == 0 {
						sealed[x], bestO[x] = v, o
					}
				}
				sealed[x] += lg(c.sigma[vL][vR][h])
			}
			for h := 0; h < n; h++ {
				if h >= i && h < j {
					continue
				}
				dir := Right
				if h >= j {
					dir = Left
				}
				best, arg := neg, i
				for a := i; a < j; a++ {
					if v := sealed[c.at(i, j, a)] + lg(w.Choose[dir][h][a]); v > best {
						best, arg = v, a
					}
				}
				if dir == Right {
					right[c.at(i, j, h)] = best
				} else {
					left[c.at(i, j, h)] = best
				}
				depArg[c.at(i, j, h)] = arg
			}
		}
	}
	p := Parse{Heads: make([]int, n), LogMax: neg}
	root := 0
	for h := 0; h < n; h++ {
		if v := sealed[c.at(0, n, h)] + lg(w.Root[h]); v > p.LogMax {
			p.LogMax, root = v, h
		}
	}
	p.LogMax += logC
	var build func(o, i, j, h int)
	build = func(o, i, j, h int) {
		if j-i < 2 {
			return
		}
		p.Spans = append(p.Spans, [2]int{i, j})
		k := split[o][c.at(i, j, h)]
		if k > h {
			a := depArg[c.at(k, j, h)]
			p.Heads[a] = h + 1
			build(o, i, k, h)
			build(bestO[c.at(k, j, a)], k, j, a)
		} else {
			a := depArg[c.at(i, k, h)]
			p.Heads[a] = h + 1
			build(bestO[c.at(i, k, a)], i, k, a)
			build(o, k, j, h)
		}
	}
	p.Heads[root] = 0
	build(bestO[c.at(0, n, root)], 0, n, root)
	return p
}

// ViterbiOrder is Viterbi under any order (fn8 for Footnote8).
func ViterbiOrder(n int, order Order, w Weights, fn8 *Fn8Weights, f ccm.Factors) Parse {
	W := n + 1
	lphi := make([]float64, W*W)
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			lphi[i*W+j] = math.Log(f.Phi[i*W+j])
		}
	}
	return viterbiOrder(n, order, w, fn8, lphi, f.LogK-bintree.LogCatalan(n-1)-float64(2*n-1)*f.Shift)
}
