package dmv

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigInside is the split-head inside program of ALGORITHMS.md in
// arbitrary-precision floats with no scaling at all (a big.Float's
// exponent does not underflow): log Z, and each position's root
// posterior root(t_r)·Ls[r][0]·Rs[r][n−1] / Z, for checking the scaled
// float64 chart on long sentences.
func bigInside(tags []int, w *Params) (logZ float64, rootPost []float64) {
	const prec = 200
	n := len(tags)
	num := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	zero := func() *big.Float { return new(big.Float).SetPrec(prec) }
	mk := func() [][]*big.Float {
		t := make([][]*big.Float, n)
		for i := range t {
			t[i] = make([]*big.Float, n)
			for j := range t[i] {
				t[i][j] = zero()
			}
		}
		return t
	}
	// R[h][j], Rs, Rc: h's right half over h..j; L[h][i], Ls, Lc: its
	// left half over i..h; IR[h][c], IL[h][c]: the half up to its new child c.
	R, Rs, Rc, L, Ls, Lc, IR, IL := mk(), mk(), mk(), mk(), mk(), mk(), mk(), mk()
	mul := func(a, b *big.Float) *big.Float { return zero().Mul(a, b) }
	dec := func(tab []float64, h, dir int, adj bool) *big.Float {
		v := NonAdj
		if adj {
			v = Adj
		}
		return num(tab[DecisionIndex(tags[h], dir, v)])
	}
	for width := 0; width < n; width++ {
		for h := 0; h < n; h++ {
			// Right half of h over h..h+width.
			if j := h + width; j < n {
				if width == 0 {
					R[h][j] = num(1)
				} else {
					s := zero()
					for c := h + 1; c <= j; c++ {
						s.Add(s, mul(IR[h][c], Rs[c][j]))
					}
					R[h][j] = s
				}
				Rs[h][j] = mul(R[h][j], dec(w.Stop, h, Right, width == 0))
				Rc[h][j] = mul(R[h][j], dec(w.Cont, h, Right, width == 0))
			}
			// Left half of h over h−width..h.
			if i := h - width; i >= 0 {
				if width == 0 {
					L[h][i] = num(1)
				} else {
					s := zero()
					for c := i; c < h; c++ {
						s.Add(s, mul(IL[h][c], Ls[c][i]))
					}
					L[h][i] = s
				}
				Ls[h][i] = mul(L[h][i], dec(w.Stop, h, Left, width == 0))
				Lc[h][i] = mul(L[h][i], dec(w.Cont, h, Left, width == 0))
			}
		}
		// Attachments of span width+1 (h and c width+1 apart) use halves
		// of width ≤ width only.
		for h := 0; h < n; h++ {
			if c := h + width + 1; c < n {
				s := zero()
				for k := h; k < c; k++ {
					s.Add(s, mul(Rc[h][k], Ls[c][k+1]))
				}
				IR[h][c] = mul(s, num(w.Child[w.ChildIndex(tags[h], Right, tags[c])]))
			}
			if c := h - width - 1; c >= 0 {
				s := zero()
				for k := c; k < h; k++ {
					s.Add(s, mul(Rs[c][k], Lc[h][k+1]))
				}
				IL[h][c] = mul(s, num(w.Child[w.ChildIndex(tags[h], Left, tags[c])]))
			}
		}
	}
	z := zero()
	roots := make([]*big.Float, n)
	for r := 0; r < n; r++ {
		roots[r] = mul(mul(num(w.Root[tags[r]]), Ls[r][0]), Rs[r][n-1])
		z.Add(z, roots[r])
	}
	mant := zero()
	exp := z.MantExp(mant)
	m, _ := mant.Float64()
	logZ = math.Log(m) + float64(exp)*math.Ln2
	for _, x := range roots {
		p, _ := zero().Quo(x, z).Float64()
		rootPost = append(rootPost, p)
	}
	return logZ, rootPost
}

// A sentence of 100 tokens under a random model: log Z is far below what
// an unscaled float64 chart holds (e^−745), yet the scaled chart agrees
// with the same program in 200-bit floats to 1e-9 (relative), its root
// posteriors too, and its expected counts add up as a tree must: one
// head per word (Σ root + Σ child = n), one stop per half-head (Σ stop =
// 2n), one cont per child (Σ cont = n − 1).
func TestLength100AgreesWithHighPrecision(t *testing.T) {
	const n, tagCount = 100, 800
	rng := rand.New(rand.NewPCG(100, 1))
	// A random model with peaked multinomials (uniform draws to the fifth power, then
	// normalised): the probability of the sentence is far from every
	// multinomial's mean, as on real data.
	w := randomWeights(rng, tagCount, false)
	for _, tab := range w.Tables() {
		for i, v := range tab {
			tab[i] = v * v * v * v * v
		}
	}
	w = MStep(w, 0)
	tags := make([]int, n)
	for i := range tags {
		tags[i] = rng.IntN(tagCount)
	}
	c := NewChart(n)
	c.Load(tags, w, nil)
	logZ := c.Inside()
	want, wantRoot := bigInside(tags, w)
	if want > -745 {
		t.Fatalf("log Z = %v: the test wants a sentence plain float64 cannot hold", want)
	}
	if math.IsInf(logZ, 0) || math.IsNaN(logZ) || relErr(logZ, want) > 1e-9 {
		t.Fatalf("log Z = %v, 200-bit floats give %v (relative error %.2g)", logZ, want, relErr(logZ, want))
	}
	t.Logf("n=%d: log Z %.17g, 200-bit floats %.17g: relative error %.2g", n, logZ, want, relErr(logZ, want))
	if !c.Outside() {
		t.Fatal("Outside failed")
	}
	counts := NewParams(tagCount)
	c.AddCounts(tags, counts, 1)
	sum := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s
	}
	for _, tc := range []struct {
		what      string
		got, want float64
	}{
		{"Σ root + Σ child (one head per word)", sum(counts.Root) + sum(counts.Child), n},
		{"Σ root", sum(counts.Root), 1},
		{"Σ stop (one per half-head)", sum(counts.Stop), 2 * n},
		{"Σ cont (one per child)", sum(counts.Cont), n - 1},
	} {
		if math.Abs(tc.got-tc.want) > 1e-9*tc.want {
			t.Errorf("%s = %.15g, want %v", tc.what, tc.got, tc.want)
		}
	}
	// Root posteriors by tag, against the high-precision ones.
	byTag := make([]float64, tagCount)
	for r, p := range wantRoot {
		byTag[tags[r]] += p
	}
	for tag, p := range byTag {
		if math.Abs(counts.Root[tag]-p) > 1e-9*math.Max(p, 1e-3) {
			t.Errorf("root posterior of tag %d = %.15g, 200-bit floats give %.15g", tag, counts.Root[tag], p)
		}
	}
}

// The high-precision program is itself checked against tree enumeration
// on short sentences, so that it can vouch for the long one.
func TestBigInsideMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w := randomWeights(rng, 4, true)
	for n := 1; n <= 6; n++ {
		tags := make([]int, n)
		for i := range tags {
			tags[i] = rng.IntN(4)
		}
		got, _ := bigInside(tags, w)
		if want := bruteForce(tags, w, nil).logZ; relErr(got, want) > 1e-12 {
			t.Errorf("n=%d: big inside log Z %v, enumeration %v", n, got, want)
		}
	}
}
