package dmvccm

import (
	"math"

	"github.com/grind-nlp/grind/stages/bintree"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Parse is the best derivation: its dependency tree, its brackets and its
// log score, log P_DMV · P_CCM.
type Parse struct {
	Heads  []int    // 1-based, 0 = root (the records' convention)
	Spans  [][2]int // brackets of two or more words, in preorder
	LogMax float64
}

// Viterbi finds the best derivation of a sentence of n words by the
// max-product version of Inside. Tie rule: the first maximum in a fixed
// order — the root by position, an item's right attachments (split points
// ascending) before its left ones (ascending), a dependent by position;
// when every derivation has probability 0, the first in that order.
func Viterbi(n int, w Weights, f ccm.Factors) Parse {
	W := n + 1
	lphi := make([]float64, W*W)
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			lphi[i*W+j] = math.Log(f.Phi[i*W+j])
		}
	}
	return viterbi(n, w, lphi, f.LogK-bintree.LogCatalan(n-1)-float64(2*n-1)*f.Shift)
}

// viterbi is Viterbi over the span factors in log space, lphi, and the
// log of the constant the score leaves out, logC.
func viterbi(n int, w Weights, lphi []float64, logC float64) Parse {
	size := (n + 1) * (n + 1) * n
	W := n + 1
	c := &Chart{n: n}
	at := c.at
	neg := math.Inf(-1)
	open, sealed := make([]float64, size), make([]float64, size)
	right, left := make([]float64, size), make([]float64, size)
	openSplit := make([]int, size) // k > h: right attachment; k ≤ h: left; 0 unused for words
	depArg := make([]int, size)    // the best dependent of R(k,j,h) or L(i,k,h)
	lg := math.Log
	adj := func(b bool) int {
		if b {
			return Adj
		}
		return NonAdj
	}
	for l := 1; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l
			lp := lphi[i*W+j]
			for h := i; h < j; h++ {
				x := at(i, j, h)
				best := neg
				if l == 1 {
					best = lp
				} else {
					// The first candidate, should every one score −Inf
					// (a derivation of probability 0 is still a parse).
					if openSplit[x] = h + 1; h+1 == j || w.RightFirst && i < h {
						openSplit[x] = i + 1
					}
					for k := h + 1; k < j && (!w.RightFirst || i == h); k++ {
						if v := open[at(i, k, h)] + lg(w.Cont[Right][adj(k == h+1)][h]) + right[at(k, j, h)]; v > best {
							best, openSplit[x] = v, k
						}
					}
					for k := i + 1; k <= h; k++ {
						if v := left[at(i, k, h)] + lg(w.Cont[Left][adj(k == h)][h]) + open[at(k, j, h)]; v > best {
							best, openSplit[x] = v, k
						}
					}
					best += lp
				}
				open[x] = best
				sealed[x] = best + lg(w.Stop[Left][adj(i == h)][h]) + lg(w.Stop[Right][adj(j == h+1)][h])
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
					if v := sealed[at(i, j, a)] + lg(w.Choose[dir][h][a]); v > best {
						best, arg = v, a
					}
				}
				if dir == Right {
					right[at(i, j, h)] = best
				} else {
					left[at(i, j, h)] = best
				}
				depArg[at(i, j, h)] = arg
			}
		}
	}
	p := Parse{Heads: make([]int, n), LogMax: neg}
	root := 0
	for h := 0; h < n; h++ {
		if v := sealed[at(0, n, h)] + lg(w.Root[h]); v > p.LogMax {
			p.LogMax, root = v, h
		}
	}
	p.LogMax += logC
	var build func(i, j, h int)
	build = func(i, j, h int) { // the open item's derivation
		if j-i < 2 {
			return
		}
		p.Spans = append(p.Spans, [2]int{i, j})
		k := openSplit[at(i, j, h)]
		if k > h { // [i,k) headed by h takes [k,j)
			a := depArg[at(k, j, h)]
			p.Heads[a] = h + 1
			build(i, k, h)
			build(k, j, a)
		} else { // [i,k) is a dependent of h over [k,j)
			a := depArg[at(i, k, h)]
			p.Heads[a] = h + 1
			build(i, k, a)
			build(k, j, h)
		}
	}
	p.Heads[root] = 0
	build(0, n, root)
	return p
}

// parse is the Viterbi derivation of sentence k of cc, of tags (over p's
// tags), under the DMV weights p and the CCM cm, and whether the pair
// gives it probability 0. Such a sentence is parsed by the DMV's
// decoders' rule: every probability of 0 in either half read as
// dmv.Floor, so that the derivation uses as few impossible events as it
// can. Factors beyond floating point are taken in log space.
func parse(p *dmv.Params, tags []int, cm *ccm.Model, cc *ccm.Corpus, k int, headChoice, rightFirst bool) (Parse, bool) {
	n := cc.Sentences[k].N
	w := WeightsFromDMV(p, tags)
	w.RightFirst = rightFirst
	f := cm.SpanFactors(cc, k)
	if headChoice {
		f = headChoiceFactors(f, n)
	}
	if par := Viterbi(n, w, f); finite(par.LogMax) {
		return par, false
	}
	logFactors := func(floored bool) ([]float64, float64) {
		lphi, logK := cm.LogFactors(cc, k, floored)
		if headChoice {
			W := n + 1
			for i := 0; i < n; i++ {
				for j := i + 2; j <= n; j++ {
					lphi[i*W+j] -= math.Log(float64(j - i))
				}
			}
		}
		return lphi, logK - bintree.LogCatalan(n-1)
	}
	lphi, logC := logFactors(false)
	if par := viterbi(n, w, lphi, logC); finite(par.LogMax) {
		return par, false
	}
	floor(w.Root)
	for d := range 2 {
		for h := range n {
			floor(w.Choose[d][h])
		}
		for v := range 2 {
			floor(w.Stop[d][v])
			floor(w.Cont[d][v])
		}
	}
	lphi, logC = logFactors(true)
	return viterbi(n, w, lphi, logC), true
}

func finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

// floor raises every weight of 0 to dmv.Floor.
func floor(ws []float64) {
	for i, v := range ws {
		ws[i] = max(v, dmv.Floor)
	}
}

// parseGeneral is parse under the general program (the mixture, footnote
// 8, a flat CCM): the Viterbi derivation of sentence k of cc under the DMV
// p (and footnote 8's fn8) and m's CCM (flat: φ ≡ 1), with parse's
// fallback when the pair gives the sentence probability 0.
func (m *Model) parseGeneral(p *dmv.Params, fn8 *Fn8Params, tags []int, cc *ccm.Corpus, k int) (Parse, bool) {
	n := cc.Sentences[k].N
	w := WeightsFromDMV(p, tags)
	var fw *Fn8Weights
	if m.order == Footnote8 {
		fw = fn8.weights(tags)
	}
	logFactors := func(floored bool) ([]float64, float64) {
		if m.flat {
			return make([]float64, (n+1)*(n+1)), 0
		}
		lphi, logK := m.CCM.LogFactors(cc, k, floored)
		if m.headChoice {
			W := n + 1
			for i := 0; i < n; i++ {
				for j := i + 2; j <= n; j++ {
					lphi[i*W+j] -= math.Log(float64(j - i))
				}
			}
		}
		return lphi, logK - bintree.LogCatalan(n-1)
	}
	lphi, logC := logFactors(false)
	if par := viterbiOrder(n, m.order, w, fw, lphi, logC); finite(par.LogMax) {
		return par, false
	}
	floor(w.Root)
	for d := range 2 {
		for h := range n {
			floor(w.Choose[d][h])
		}
		for v := range 2 {
			floor(w.Stop[d][v])
			floor(w.Cont[d][v])
		}
	}
	if fw != nil {
		for vL := range 2 {
			for vR := range 2 {
				floor(fw.Halt[vL][vR])
				floor(fw.Go[Left][vL][vR])
				floor(fw.Go[Right][vL][vR])
			}
		}
	}
	lphi, logC = logFactors(true)
	return viterbiOrder(n, m.order, w, fw, lphi, logC), true
}
