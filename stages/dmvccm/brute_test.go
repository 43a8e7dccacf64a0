package dmvccm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/internal/brute"
	"github.com/grind-nlp/grind/stages/bintree"
	"github.com/grind-nlp/grind/stages/ccm"
)

// derivation is one enumerated derivation: its weight and its brackets
// and DMV events.
type derivation struct {
	logW     float64
	brackets [][2]int
	heads    []int // 0-based head per word, −1 for the root
	stops    [][3]int
	conts    [][3]int // dir, adj, h
}

// projectiveTrees lists every single-root projective head array over n
// words, 0-based here (−1 = root).
func projectiveTrees(n int) [][]int {
	var out [][]int
	for _, tree := range brute.ProjectiveTrees(n) {
		heads := make([]int, n)
		for d, h := range tree {
			heads[d] = h - 1
		}
		out = append(out, heads)
	}
	return out
}

// derivations lists every derivation of a tree: for each head, every
// interleaving of its left and right dependents (each side inside-out),
// or with rightFirst only the one that takes the right side first.
func derivations(heads []int, rightFirst bool) []derivation {
	n := len(heads)
	lo, hi := make([]int, n), make([]int, n)
	for i := range n {
		lo[i], hi[i] = i, i+1
	}
	for i := range n {
		for h := heads[i]; h != -1; h = heads[h] {
			lo[h], hi[h] = min(lo[h], i), max(hi[h], i+1)
		}
	}
	out := []derivation{{heads: heads}}
	for h := range n {
		var left, right []int
		for a := h - 1; a >= 0; a-- {
			if heads[a] == h {
				left = append(left, a)
			}
		}
		for a := h + 1; a < n; a++ {
			if heads[a] == h {
				right = append(right, a)
			}
		}
		var seqs [][]int // 0 = left, 1 = right
		var gen func(seq []int, l, r int)
		gen = func(seq []int, l, r int) {
			if l == 0 && r == 0 {
				seqs = append(seqs, append([]int(nil), seq...))
				return
			}
			if l > 0 && !(rightFirst && r > 0) {
				gen(append(seq, Left), l-1, r)
			}
			if r > 0 {
				gen(append(seq, Right), l, r-1)
			}
		}
		gen(nil, len(left), len(right))
		var next []derivation
		for _, d := range out {
			for _, seq := range seqs {
				e := d
				e.brackets = append([][2]int(nil), d.brackets...)
				e.conts = append([][3]int(nil), d.conts...)
				e.stops = append([][3]int(nil), d.stops...)
				i, j, li, ri := h, h+1, 0, 0
				for _, dir := range seq {
					if dir == Left {
						a := left[li]
						e.conts = append(e.conts, [3]int{Left, adjOf(li == 0), h})
						li++
						i = lo[a]
					} else {
						a := right[ri]
						e.conts = append(e.conts, [3]int{Right, adjOf(ri == 0), h})
						ri++
						j = hi[a]
					}
					e.brackets = append(e.brackets, [2]int{i, j})
				}
				e.stops = append(e.stops, [3]int{Left, adjOf(li == 0), h}, [3]int{Right, adjOf(ri == 0), h})
				next = append(next, e)
			}
		}
		out = next
	}
	return out
}

func adjOf(b bool) int {
	if b {
		return Adj
	}
	return NonAdj
}

func randomWeights(rng *rand.Rand, n int) Weights {
	vec := func() []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 0.05 + rng.Float64()
		}
		return v
	}
	var w Weights
	w.Root = vec()
	for d := range 2 {
		w.Choose[d] = make([][]float64, n)
		for h := range n {
			w.Choose[d][h] = vec()
		}
		for a := range 2 {
			w.Stop[d][a], w.Cont[d][a] = vec(), vec()
		}
	}
	return w
}

// ccmLogProb is log P_CCM(s, B) from the model's tables.
func ccmLogProb(m *ccm.Model, c *ccm.Corpus, k int, brackets [][2]int) float64 {
	s := c.Sentences[k]
	isT := map[[2]int]bool{}
	for _, b := range brackets {
		isT[b] = true
	}
	logP := -bintree.LogCatalan(s.N - 1)
	for i := 0; i <= s.N; i++ {
		for j := i; j <= s.N; j++ {
			b := ccm.Distituent
			if j-i == 1 || isT[[2]int{i, j}] {
				b = ccm.Constituent
			}
			x := s.Span(i, j)
			logP += math.Log(m.Span[b][c.Yield[x]]) + math.Log(m.Context[b][c.Context[x]])
		}
	}
	return logP
}

func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

// TestChartAgainstEnumeration sums every derivation of every projective
// tree (each head's dependents in every interleaving) for n ≤ 7, with a
// random DMV and a random CCM, and checks the likelihood, the bracket
// posteriors and every DMV expected count.
func TestChartAgainstEnumeration(t *testing.T) {
	for _, rightFirst := range []bool{false, true} {
		t.Run(map[bool]string{false: "interleaved", true: "right-first"}[rightFirst], func(t *testing.T) {
			chartAgainstEnumeration(t, rightFirst)
		})
	}
}

func chartAgainstEnumeration(t *testing.T, rightFirst bool) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, c := randomCCM(t, rng, 7)
	for k, s := range c.Sentences {
		n := s.N
		w := randomWeights(rng, n)
		w.RightFirst = rightFirst
		total := math.Inf(-1)
		var all []derivation
		for _, heads := range projectiveTrees(n) {
			for _, d := range derivations(heads, rightFirst) {
				lw := ccmLogProb(m, c, k, d.brackets)
				for i, h := range heads {
					if h == -1 {
						lw += math.Log(w.Root[i])
					} else {
						dir := Right
						if i < h {
							dir = Left
						}
						lw += math.Log(w.Choose[dir][h][i])
					}
				}
				for _, e := range d.conts {
					lw += math.Log(w.Cont[e[0]][e[1]][e[2]])
				}
				for _, e := range d.stops {
					lw += math.Log(w.Stop[e[0]][e[1]][e[2]])
				}
				d.logW = lw
				total = logAdd(total, lw)
				all = append(all, d)
			}
		}
		best := all[0]
		for _, d := range all[1:] {
			if d.logW > best.logW {
				best = d
			}
		}
		vit := Viterbi(n, w, m.SpanFactors(c, k))
		if e := relErr(vit.LogMax, best.logW); e > 1e-9 {
			t.Errorf("n=%d: Viterbi %v, enumeration's best %v", n, vit.LogMax, best.logW)
		}
		for i, h := range best.heads {
			if vit.Heads[i] != h+1 {
				t.Errorf("n=%d: Viterbi heads %v, enumeration's best %v (0-based)", n, vit.Heads, best.heads)
				break
			}
		}
		if got, want := sortedSpans(vit.Spans), sortedSpans(best.brackets); !slices.Equal(got, want) {
			t.Errorf("n=%d: Viterbi brackets %v, enumeration's best %v", n, got, want)
		}
		ch := Inside(n, w, m.SpanFactors(c, k))
		if e := relErr(ch.LogProb(), total); e > 1e-9 {
			t.Fatalf("n=%d: log P %v, enumeration %v (%d derivations)", n, ch.LogProb(), total, len(all))
		}
		ch.Outside()
		post := ch.Brackets()
		counts := ch.DMVCounts()
		wantPost := make([][]float64, n+1)
		for i := range wantPost {
			wantPost[i] = make([]float64, n+1)
		}
		var want Counts
		for d := range 2 {
			want.Attach[d] = make([][]float64, n)
			for h := range n {
				want.Attach[d][h] = make([]float64, n)
			}
			for a := range 2 {
				want.Stop[d][a], want.Cont[d][a] = make([]float64, n), make([]float64, n)
			}
		}
		want.Root = make([]float64, n)
		for _, d := range all {
			p := math.Exp(d.logW - total)
			for _, b := range d.brackets {
				wantPost[b[0]][b[1]] += p
			}
			for i, h := range d.heads {
				if h == -1 {
					want.Root[i] += p
				} else if i < h {
					want.Attach[Left][h][i] += p
				} else {
					want.Attach[Right][h][i] += p
				}
			}
			for _, e := range d.conts {
				want.Cont[e[0]][e[1]][e[2]] += p
			}
			for _, e := range d.stops {
				want.Stop[e[0]][e[1]][e[2]] += p
			}
		}
		check := func(what string, got, want float64) {
			if relErr(got, want) > 1e-9 && math.Abs(got-want) > 1e-14 {
				t.Errorf("n=%d %s: %v, enumeration %v", n, what, got, want)
			}
		}
		for i := 0; i < n; i++ {
			for j := i + 2; j <= n; j++ {
				check("bracket posterior", post[i][j], wantPost[i][j])
			}
		}
		if n > 1 {
			check("P(0,n)", post[0][n], 1)
		}
		for h := range n {
			check("root", counts.Root[h], want.Root[h])
			for d := range 2 {
				for a := range n {
					check("attach", counts.Attach[d][h][a], want.Attach[d][h][a])
				}
				for adj := range 2 {
					check("stop", counts.Stop[d][adj][h], want.Stop[d][adj][h])
					check("cont", counts.Cont[d][adj][h], want.Cont[d][adj][h])
				}
			}
		}
	}
}

func logAdd(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

func sortedSpans(s [][2]int) [][2]int {
	out := slices.Clone(s)
	slices.SortFunc(out, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return out
}

// TestFlatCCMWeighsTreesByBracketings: with the CCM flat (φ ≡ 1), the
// product gives a dependency tree T the DMV's probability times N(T), the
// number of its derivations — Π over heads of C(l+r, l) for l left and r
// right dependents, the interleavings of its sides, each a different
// binary bracketing. So the product's DMV half is not the DMV alone even
// when the CCM says nothing: it prefers trees whose heads take dependents
// on both sides. Checked by enumeration for n ≤ 6; with RightFirst the
// product is the DMV's Σ_T P_DMV(T).
func TestFlatCCMWeighsTreesByBracketings(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	choose := func(n, k int) float64 {
		c := 1.0
		for i := 1; i <= k; i++ {
			c = c * float64(n-k+i) / float64(i)
		}
		return c
	}
	for n := 1; n <= 6; n++ {
		w := randomWeights(rng, n)
		phi := make([]float64, (n+1)*(n+1))
		for i := range phi {
			phi[i] = 1
		}
		c := Inside(n, w, ccm.Factors{Phi: phi})
		want, alone := 0.0, 0.0
		for _, heads := range projectiveTrees(n) {
			ds := derivations(heads, false)
			nt := 1.0
			for h := range n {
				l, r := 0, 0
				for a, g := range heads {
					if g == h && a < h {
						l++
					} else if g == h {
						r++
					}
				}
				nt *= choose(l+r, l)
			}
			if float64(len(ds)) != nt {
				t.Fatalf("n=%d tree %v: %d derivations, Π C(l+r, l) = %v", n, heads, len(ds), nt)
			}
			d := ds[0]
			p := 1.0
			for a, h := range heads {
				if h < 0 {
					p *= w.Root[a]
				} else if a < h {
					p *= w.Choose[Left][h][a]
				} else {
					p *= w.Choose[Right][h][a]
				}
			}
			for _, x := range d.conts {
				p *= w.Cont[x[0]][x[1]][x[2]]
			}
			for _, x := range d.stops {
				p *= w.Stop[x[0]][x[1]][x[2]]
			}
			want += p * nt
			alone += p
		}
		if relErr(c.z, want) > 1e-12 {
			t.Errorf("n=%d: Z %v, Σ_T P_DMV(T)·N(T) %v", n, c.z, want)
		}
		if n >= 3 && relErr(c.z, alone) < 1e-6 {
			t.Errorf("n=%d: Z equals the DMV's Σ_T P_DMV(T)", n)
		}
		// The right-first order has one derivation per tree: the DMV's.
		w.RightFirst = true
		if rf := Inside(n, w, ccm.Factors{Phi: phi}); relErr(rf.z, alone) > 1e-12 {
			t.Errorf("n=%d: right-first Z %v, the DMV's Σ_T P_DMV(T) %v", n, rf.z, alone)
		}
	}
}
