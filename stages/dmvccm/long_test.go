package dmvccm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/stages/bintree"
	"github.com/grind-nlp/grind/stages/ccm"
)

// logInsideRef is the product's inside pass written again in log space,
// where nothing leaves the range of a float64, for checking the scaled
// chart on long sentences: log P(s).
func logInsideRef(n int, w Weights, f ccm.Factors) float64 {
	W := n + 1
	at := func(i, j, h int) int { return (i*W+j)*n + h }
	size := W * W * n
	neg := math.Inf(-1)
	open, sealed, right, left := make([]float64, size), make([]float64, size), make([]float64, size), make([]float64, size)
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
			lphi := lg(f.Phi[i*W+j])
			for h := i; h < j; h++ {
				o := lphi
				if l > 1 {
					sum := neg
					if !w.RightFirst || i == h {
						for k := h + 1; k < j; k++ {
							sum = logAdd(sum, open[at(i, k, h)]+right[at(k, j, h)]+lg(w.Cont[Right][adj(k == h+1)][h]))
						}
					}
					for k := i + 1; k <= h; k++ {
						sum = logAdd(sum, left[at(i, k, h)]+open[at(k, j, h)]+lg(w.Cont[Left][adj(k == h)][h]))
					}
					o += sum
				}
				open[at(i, j, h)] = o
				sealed[at(i, j, h)] = o + lg(w.Stop[Left][adj(i == h)][h]) + lg(w.Stop[Right][adj(j == h+1)][h])
			}
			for h := 0; h < n; h++ {
				if h >= i && h < j {
					continue
				}
				dir := Right
				if h >= j {
					dir = Left
				}
				sum := neg
				for a := i; a < j; a++ {
					sum = logAdd(sum, sealed[at(i, j, a)]+lg(w.Choose[dir][h][a]))
				}
				if dir == Right {
					right[at(i, j, h)] = sum
				} else {
					left[at(i, j, h)] = sum
				}
			}
		}
	}
	z := neg
	for h := 0; h < n; h++ {
		z = logAdd(z, sealed[at(0, n, h)]+lg(w.Root[h]))
	}
	return z + f.LogK - bintree.LogCatalan(n-1) - float64(2*n-1)*f.Shift
}

// peaked draws a multinomial of size k: uniform draws to the fifth
// power, normalised (far from uniform, as trained models are).
func peaked(rng *rand.Rand, k int) []float64 {
	p := make([]float64, k)
	sum := 0.0
	for i := range p {
		p[i] = math.Pow(rng.Float64(), 5)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// longSentence is random DMV weights for n positions (each head's
// choices over 40 tags, peaked) and random span factors, as a trained
// CCM's vary.
func longSentence(rng *rand.Rand, n int, rightFirst bool) (Weights, ccm.Factors) {
	var w Weights
	w.RightFirst = rightFirst
	w.Root = peaked(rng, n)
	for d := range 2 {
		w.Choose[d] = make([][]float64, n)
		for h := range n {
			w.Choose[d][h] = peaked(rng, n)
		}
		for v := range 2 {
			w.Stop[d][v], w.Cont[d][v] = make([]float64, n), make([]float64, n)
			for h := range n {
				s := rng.Float64()
				w.Stop[d][v][h], w.Cont[d][v][h] = s, 1-s
			}
		}
	}
	W := n + 1
	f := ccm.Factors{Phi: make([]float64, W*W), LogK: -3 * float64(n*n)}
	for i := 0; i < n; i++ {
		for j := i + 1; j <= n; j++ {
			f.Phi[i*W+j] = math.Exp(2*rng.NormFloat64() - 2)
		}
	}
	return w, f
}

// A sentence of 100 words: its log P(s) is far below what an unscaled
// float64 chart holds, yet the chart (scaled and settled) agrees with
// the same program in log space to 1e-9, relatively, and its
// posteriors are those of derivations: one head per word, two stops per
// word, n − 1 brackets of two or more words in each bracketing.
func TestLength100AgreesWithLogSpace(t *testing.T) {
	const n = 100
	for _, rightFirst := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(100, 7))
		w, f := longSentence(rng, n, rightFirst)
		want := logInsideRef(n, w, f)
		if z := want - f.LogK + bintree.LogCatalan(n-1); z > -745 {
			t.Fatalf("log Z %v: not beyond an unscaled chart, the test would not test the scaling", z)
		}
		c := Inside(n, w, f)
		got := c.LogProb()
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Fatalf("right-first %v: log P %v, log space %v", rightFirst, got, want)
		}
		c.Outside()
		cnt := c.DMVCounts()
		heads, stops := 0.0, 0.0
		for h := range n {
			heads += cnt.Root[h]
			for d := range 2 {
				for a := range n {
					heads += cnt.Attach[d][h][a]
				}
				stops += cnt.Stop[d][Adj][h] + cnt.Stop[d][NonAdj][h]
			}
		}
		brackets := 0.0
		for i, row := range c.Brackets() {
			for j := i + 2; j <= n; j++ {
				brackets += row[j]
			}
		}
		for _, chk := range []struct {
			what      string
			got, want float64
		}{{"heads", heads, n}, {"stops", stops, 2 * n}, {"brackets", brackets, n - 1}} {
			if math.Abs(chk.got-chk.want) > 1e-6 {
				t.Errorf("right-first %v: Σ %s %v, want %v", rightFirst, chk.what, chk.got, chk.want)
			}
		}
	}
}
