package dmvccm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ccm"
)

// oderiv is one enumerated derivation under an order: its DMV log weight,
// its brackets, and its events (per-side CONT/STOP as [dir, adj, h]; for
// footnote 8 HALT as [vL, vR, h] and GO as [dir, vL, vR, h]).
type oderiv struct {
	logW     float64
	brackets [][2]int
	heads    []int
	stops    [][3]int
	conts    [][3]int
	halts    [][3]int
	gos      [][4]int
}

// orderDerivations lists every derivation of a tree under an order, with
// its DMV weight (root, attachments, the order's decisions; ½ per head's
// order choice under Mixture), by brute force over each head's sequence
// of sides.
func orderDerivations(heads []int, order Order, w Weights, fn8 *Fn8Weights) []oderiv {
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
	base := oderiv{heads: heads}
	for i, h := range heads {
		switch {
		case h == -1:
			base.logW += math.Log(w.Root[i])
		case i < h:
			base.logW += math.Log(w.Choose[Left][h][i])
		default:
			base.logW += math.Log(w.Choose[Right][h][i])
		}
	}
	out := []oderiv{base}
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
		// Each head's options: a sequence of sides and a log weight for
		// the order's choice (½ for each order of the mixture).
		type option struct {
			seq  []int
			logW float64
		}
		var opts []option
		var gen func(seq []int, l, r int, ok func(seq []int, d int) bool, lw float64)
		gen = func(seq []int, l, r int, ok func(seq []int, d int) bool, lw float64) {
			if l == 0 && r == 0 {
				opts = append(opts, option{append([]int(nil), seq...), lw})
				return
			}
			if l > 0 && ok(seq, Left) {
				gen(append(seq, Left), l-1, r, ok, lw)
			}
			if r > 0 && ok(seq, Right) {
				gen(append(seq, Right), l, r-1, ok, lw)
			}
		}
		all := func([]int, int) bool { return true }
		rf := func(seq []int, d int) bool { return d == Left || !slices.Contains(seq, Left) }
		lf := func(seq []int, d int) bool { return d == Right || !slices.Contains(seq, Right) }
		switch order {
		case Released, Footnote8:
			gen(nil, len(left), len(right), all, 0)
		case RightFirstOrder:
			gen(nil, len(left), len(right), rf, 0)
		case Mixture:
			gen(nil, len(left), len(right), rf, math.Log(0.5))
			gen(nil, len(left), len(right), lf, math.Log(0.5))
		}
		var next []oderiv
		for _, d := range out {
			for _, op := range opts {
				e := d
				e.logW += op.logW
				e.brackets = slices.Clone(d.brackets)
				e.conts, e.stops = slices.Clone(d.conts), slices.Clone(d.stops)
				e.halts, e.gos = slices.Clone(d.halts), slices.Clone(d.gos)
				i, j, li, ri := h, h+1, 0, 0
				for _, dir := range op.seq {
					vL, vR := adjOf(li == 0), adjOf(ri == 0)
					e.gos = append(e.gos, [4]int{dir, vL, vR, h})
					if order == Footnote8 {
						e.logW += math.Log(fn8.Go[dir][vL][vR][h])
					}
					if dir == Left {
						e.conts = append(e.conts, [3]int{Left, vL, h})
						if order != Footnote8 {
							e.logW += math.Log(w.Cont[Left][vL][h])
						}
						i = lo[left[li]]
						li++
					} else {
						e.conts = append(e.conts, [3]int{Right, vR, h})
						if order != Footnote8 {
							e.logW += math.Log(w.Cont[Right][vR][h])
						}
						j = hi[right[ri]]
						ri++
					}
					e.brackets = append(e.brackets, [2]int{i, j})
				}
				vL, vR := adjOf(li == 0), adjOf(ri == 0)
				e.stops = append(e.stops, [3]int{Left, vL, h}, [3]int{Right, vR, h})
				e.halts = append(e.halts, [3]int{vL, vR, h})
				if order == Footnote8 {
					e.logW += math.Log(fn8.Halt[vL][vR][h])
				} else {
					e.logW += math.Log(w.Stop[Left][vL][h]) + math.Log(w.Stop[Right][vR][h])
				}
				next = append(next, e)
			}
		}
		out = next
	}
	return out
}

// randomFn8 draws footnote 8's decisions: in each state a distribution
// over HALT, GO left and GO right.
func randomFn8(rng *rand.Rand, n int) *Fn8Weights {
	f := &Fn8Weights{}
	for vL := range 2 {
		for vR := range 2 {
			f.Halt[vL][vR] = make([]float64, n)
			for d := range 2 {
				f.Go[d][vL][vR] = make([]float64, n)
			}
			for h := range n {
				a, b, c := 0.05+rng.Float64(), 0.05+rng.Float64(), 0.05+rng.Float64()
				s := a + b + c
				f.Halt[vL][vR][h], f.Go[Left][vL][vR][h], f.Go[Right][vL][vR][h] = a/s, b/s, c/s
			}
		}
	}
	return f
}

// randomCCM is a random CCM over a few random sentences of 1…maxN words.
func randomCCM(t *testing.T, rng *rand.Rand, maxN int) (*ccm.Model, *ccm.Corpus) {
	names := []string{"A", "B", "C"}
	var sents [][]string
	for n := 1; n <= maxN; n++ {
		s := make([]string, n)
		for i := range s {
			s[i] = names[rng.IntN(len(names))]
		}
		sents = append(sents, s)
	}
	c, err := ccm.NewCorpus(sents, nil)
	if err != nil {
		t.Fatal(err)
	}
	cnt := &ccm.Counts{}
	for range c.Sym.NumYields() {
		cnt.SpanN = append(cnt.SpanN, 3)
		cnt.SpanT = append(cnt.SpanT, 3*rng.Float64())
	}
	for range c.Sym.NumContexts() {
		cnt.ContextN = append(cnt.ContextN, 3)
		cnt.ContextT = append(cnt.ContextT, 3*rng.Float64())
	}
	m, err := ccm.MStep(cnt, c.Sym, ccm.Model1, ccm.Smoothing{Constituent: 0.5, Distituent: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	return m, c
}

// TestOrdersAgainstEnumeration sums every derivation of every projective
// tree under each order (n ≤ 6), with a random DMV, random footnote-8
// decisions and a random CCM, and checks the likelihood, the bracket
// posteriors, every expected event and the Viterbi derivation.
func TestOrdersAgainstEnumeration(t *testing.T) {
	for _, order := range []Order{Released, RightFirstOrder, Mixture, Footnote8} {
		t.Run(order.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, uint64(order)))
			m, c := randomCCM(t, rng, 6)
			for k, s := range c.Sentences {
				n := s.N
				w := randomWeights(rng, n)
				fn8 := randomFn8(rng, n)
				f := m.SpanFactors(c, k)
				total := math.Inf(-1)
				var all []oderiv
				for _, heads := range projectiveTrees(n) {
					for _, d := range orderDerivations(heads, order, w, fn8) {
						d.logW += ccmLogProb(m, c, k, d.brackets)
						total = logAdd(total, d.logW)
						all = append(all, d)
					}
				}
				ch := insideOrder(n, order, w, fn8, f)
				if e := relErr(ch.logProb(), total); e > 1e-9 {
					t.Fatalf("n=%d: log P %v, enumeration %v (%d derivations)", n, ch.logProb(), total, len(all))
				}
				ch.outside()
				post := make([]float64, (n+1)*(n+1))
				ch.bracketsTo(post)
				got := ch.counts()
				var want OrderCounts
				want.Root = make([]float64, n)
				for d := range 2 {
					want.Attach[d] = make([][]float64, n)
					for h := range n {
						want.Attach[d][h] = make([]float64, n)
					}
					for v := range 2 {
						want.Stop[d][v], want.Cont[d][v] = make([]float64, n), make([]float64, n)
						want.Fn8.Halt[d][v] = make([]float64, n)
						for v2 := range 2 {
							want.Fn8.Go[d][v][v2] = make([]float64, n)
						}
					}
				}
				wantPost := make([]float64, (n+1)*(n+1))
				for _, d := range all {
					p := math.Exp(d.logW - total)
					for _, b := range d.brackets {
						wantPost[b[0]*(n+1)+b[1]] += p
					}
					for i, h := range d.heads {
						switch {
						case h == -1:
							want.Root[i] += p
						case i < h:
							want.Attach[Left][h][i] += p
						default:
							want.Attach[Right][h][i] += p
						}
					}
					for _, e := range d.conts {
						want.Cont[e[0]][e[1]][e[2]] += p
					}
					for _, e := range d.stops {
						want.Stop[e[0]][e[1]][e[2]] += p
					}
					for _, e := range d.halts {
						want.Fn8.Halt[e[0]][e[1]][e[2]] += p
					}
					for _, e := range d.gos {
						want.Fn8.Go[e[0]][e[1]][e[2]][e[3]] += p
					}
				}
				check := func(what string, got, want float64) {
					t.Helper()
					if relErr(got, want) > 1e-9 && math.Abs(got-want) > 1e-13 {
						t.Errorf("n=%d %s: %v, enumeration %v", n, what, got, want)
					}
				}
				for i := 0; i < n; i++ {
					for j := i + 2; j <= n; j++ {
						check("bracket posterior", post[i*(n+1)+j], wantPost[i*(n+1)+j])
					}
				}
				for h := range n {
					check("root", got.Root[h], want.Root[h])
					for d := range 2 {
						for a := range n {
							check("attach", got.Attach[d][h][a], want.Attach[d][h][a])
						}
						for v := range 2 {
							check("stop", got.Stop[d][v][h], want.Stop[d][v][h])
							check("cont", got.Cont[d][v][h], want.Cont[d][v][h])
							check("halt", got.Fn8.Halt[d][v][h], want.Fn8.Halt[d][v][h])
							for v2 := range 2 {
								check("go", got.Fn8.Go[d][v][v2][h], want.Fn8.Go[d][v][v2][h])
							}
						}
					}
				}
				best := all[0]
				for _, d := range all[1:] {
					if d.logW > best.logW {
						best = d
					}
				}
				vit := ViterbiOrder(n, order, w, fn8, f)
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
			}
		})
	}
}

// TestOrdersMatchChart: the general program under the released and
// right-first orders is Chart's.
func TestOrdersMatchChart(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	m, c := randomCCM(t, rng, 7)
	for k, s := range c.Sentences {
		for _, order := range []Order{Released, RightFirstOrder} {
			w := randomWeights(rng, s.N)
			w.RightFirst = order == RightFirstOrder
			a := Inside(s.N, w, m.SpanFactors(c, k))
			b := insideOrder(s.N, order, w, nil, m.SpanFactors(c, k))
			if relErr(b.logProb(), a.LogProb()) > 1e-12 {
				t.Errorf("n=%d %v: %v, Chart %v", s.N, order, b.logProb(), a.LogProb())
			}
		}
	}
}

// TestMixtureAloneIsTheDMV: with a flat CCM (φ ≡ 1) the ½/½ mixture
// gives each tree exactly P_DMV(T) (its two orders have the same DMV
// factors), so its sum and its expected DMV events are the right-first
// order's, the DMV alone's; footnote 8's process is a proper model too
// (its derivations' DMV weights sum to at most 1 over every tree of
// every length: checked here as Σ_T P(T) ≤ 1 per length).
func TestMixtureAloneIsTheDMV(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for n := 1; n <= 6; n++ {
		w := randomWeights(rng, n)
		phi := make([]float64, (n+1)*(n+1))
		for i := range phi {
			phi[i] = 1
		}
		f := ccm.Factors{Phi: phi}
		rf := insideOrder(n, RightFirstOrder, w, nil, f)
		mix := insideOrder(n, Mixture, w, nil, f)
		if relErr(mix.z, rf.z) > 1e-12 {
			t.Errorf("n=%d: mixture Z %v, right-first (DMV) Z %v", n, mix.z, rf.z)
		}
		rf.outside()
		mix.outside()
		a, b := rf.counts(), mix.counts()
		for h := range n {
			for d := range 2 {
				for v := range 2 {
					if relErr(b.Stop[d][v][h], a.Stop[d][v][h]) > 1e-9 || relErr(b.Cont[d][v][h], a.Cont[d][v][h]) > 1e-9 {
						t.Errorf("n=%d: mixture's expected stops and conts differ from the DMV's", n)
					}
				}
			}
		}
	}
}

// TestOrdersEM: under the mixture and footnote 8, alone (a flat CCM: a
// proper model, whose EM may not lower the likelihood) the likelihood
// never decreases over 15 iterations, and the product's sentences'
// log-probabilities add up to its E-step's log-likelihood on a corpus
// with tags the model never saw (footnote 8's unseen tags back off to
// its average tag).
func TestOrdersEM(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	train, dev := randomSentences(rng, 30, 7, 4), randomSentences(rng, 20, 8, 6)
	for _, order := range []Order{Mixture, Footnote8} {
		for _, flat := range []bool{true, false} {
			var objs []float64
			m, _, err := Train(train, Options{Order: order, FlatCCM: flat, MaxIter: 15, Tol: 1e-300, Observe: func(it format.Iteration, m *Model) error {
				objs = append(objs, float64(it.Objective))
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != 15 {
				t.Fatalf("%v flat %v: %d iterations", order, flat, len(objs))
			}
			for i := 1; flat && i < len(objs); i++ {
				if objs[i] < objs[i-1]-1e-9*math.Abs(objs[i-1]) {
					t.Errorf("%v alone: log-likelihood %v after %v", order, objs[i], objs[i-1])
				}
			}
			c, err := m.NewCorpus(dev)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0.0
			for k := range c.Len() {
				sum += c.LogProb(m, k)
			}
			_, cc := c.EStep(m, 2)
			if math.IsInf(cc.LogLik, 0) || math.Abs(sum-cc.LogLik) > 1e-9*math.Abs(cc.LogLik) {
				t.Errorf("%v flat %v: Σ LogProb %v, the E-step's log-likelihood %v", order, flat, sum, cc.LogLik)
			}
			if _, err := m.ParseAll(dev); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A sentence of 100 words under each order: the general program settles
// a common factor on the attachments when the sum leaves floating point;
// under the released and right-first orders it agrees with the same
// program in log space, and under every order its posteriors are those of
// derivations (one head per word, one sealing per word, n − 1 brackets).
func TestOrdersLength100(t *testing.T) {
	if testing.Short() {
		t.Skip("100 words under four orders")
	}
	const n = 100
	for _, order := range []Order{Released, RightFirstOrder, Mixture, Footnote8} {
		rng := rand.New(rand.NewPCG(100, 7))
		w, f := longSentence(rng, n, order == RightFirstOrder)
		fn8 := randomFn8(rng, n)
		c := insideOrder(n, order, w, fn8, f)
		got := c.logProb()
		if order == Released || order == RightFirstOrder {
			if want := logInsideRef(n, w, f); math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Fatalf("%v: log P %v, log space %v", order, got, want)
			}
		}
		if !finite(got) || c.scale == 1 {
			t.Fatalf("%v: log P %v, scale %v", order, got, c.scale)
		}
		c.outside()
		cnt := c.counts()
		heads, seals := 0.0, 0.0
		for h := range n {
			heads += cnt.Root[h]
			for d := range 2 {
				for a := range n {
					heads += cnt.Attach[d][h][a]
				}
				for v := range 2 {
					seals += cnt.Fn8.Halt[d][v][h]
				}
			}
		}
		post := make([]float64, (n+1)*(n+1))
		c.bracketsTo(post)
		brackets := 0.0
		for i := 0; i < n; i++ {
			for j := i + 2; j <= n; j++ {
				brackets += post[i*(n+1)+j]
			}
		}
		for _, chk := range []struct {
			what      string
			got, want float64
		}{{"heads", heads, n}, {"sealings", seals, n}, {"brackets", brackets, n - 1}} {
			if math.Abs(chk.got-chk.want) > 1e-6 {
				t.Errorf("%v: Σ %s %v, want %v", order, chk.what, chk.got, chk.want)
			}
		}
	}
}

// TestFn8MStepMaximizes: footnote 8's M-step (relative frequencies of
// HALT, GO left, GO right in each tag and state) maximises the expected
// complete-data log-likelihood Σ count·log p of its decisions: any other
// distributions in the states score less, and it is a distribution.
func TestFn8MStepMaximizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	counts := NewFn8(3)
	for i := range counts.Halt {
		counts.Halt[i] = 5 * rng.Float64()
	}
	for i := range counts.Go {
		counts.Go[i] = 5 * rng.Float64()
	}
	counts.Halt[5], counts.Go[10], counts.Go[11] = 0, 0, 0 // a state never visited
	q := func(p *Fn8Params) float64 {
		sum := 0.0
		for s := range p.Halt {
			for _, e := range [][2]float64{{counts.Halt[s], p.Halt[s]}, {counts.Go[2*s], p.Go[2*s]}, {counts.Go[2*s+1], p.Go[2*s+1]}} {
				if e[0] > 0 {
					sum += e[0] * math.Log(e[1])
				}
			}
		}
		return sum
	}
	best := Fn8MStep(counts)
	for s := range best.Halt {
		if total := best.Halt[s] + best.Go[2*s] + best.Go[2*s+1]; math.Abs(total-1) > 1e-12 {
			t.Fatalf("state %d: the outcomes sum to %v", s, total)
		}
	}
	for range 200 {
		other := &Fn8Params{T: best.T, Halt: slices.Clone(best.Halt), Go: slices.Clone(best.Go)}
		for s := range other.Halt {
			other.Halt[s] *= math.Exp(0.3 * rng.NormFloat64())
			other.Go[2*s] *= math.Exp(0.3 * rng.NormFloat64())
			other.Go[2*s+1] *= math.Exp(0.3 * rng.NormFloat64())
			other.normalize(s)
		}
		if q(other) > q(best)+1e-12 {
			t.Fatalf("a perturbed table scores %v, the M-step's %v", q(other), q(best))
		}
	}
}
