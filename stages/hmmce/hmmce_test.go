package hmmce

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// score is the log weight of one tagged string, from the definition.
func (m *Model) score(theta []float64, x, tags []int) float64 {
	k1 := m.K + 1
	s, prev2, prev := 0.0, m.K, m.K
	ctx := func() int {
		if m.Trigram() {
			return prev2*k1 + prev
		}
		return prev
	}
	for i, w := range x {
		s += theta[m.trans(ctx(), tags[i])] + m.local(theta, tags[i], w)
		prev2, prev = prev, tags[i]
	}
	return s + theta[m.trans(ctx(), m.K)]
}

// bruteLogZ sums over every tagging of every string, each string once,
// leaving out the taggings the dictionary forbids (and scoring the others
// without it).
func (m *Model) bruteLogZ(theta []float64, strs [][]int) float64 {
	free := *m
	free.Allowed = nil
	var terms []float64
	for _, x := range strs {
		if len(x) == 0 {
			continue // the model gives the empty string no weight
		}
		tags := make([]int, len(x))
		for {
			ok := true
			for i, w := range x {
				ok = ok && (m.Allowed == nil || m.Allowed[w*m.K+tags[i]])
			}
			if ok {
				terms = append(terms, free.score(theta, x, tags))
			}
			i := 0
			for ; i < len(tags); i++ {
				tags[i]++
				if tags[i] < m.K {
					break
				}
				tags[i] = 0
			}
			if i == len(tags) {
				break
			}
		}
	}
	return logSum(terms)
}

// strings of each neighbourhood, by its definition, without repeats.
func neighbours(kind string, x []int, v int) [][]int {
	var out [][]int
	add := func(y []int) {
		for _, z := range out {
			if slices.Equal(z, y) {
				return
			}
		}
		out = append(out, y)
	}
	add(slices.Clone(x))
	switch kind {
	case nbhd.Trans1, nbhd.Del1OrTrans1:
		for i := 0; i+1 < len(x); i++ {
			y := slices.Clone(x)
			y[i], y[i+1] = y[i+1], y[i]
			add(y)
		}
		if kind == nbhd.Del1OrTrans1 {
			for i := range x {
				add(slices.Concat(x[:i:i], x[i+1:]))
			}
		}
	case nbhd.Length:
		y := make([]int, len(x))
		for {
			add(slices.Clone(y))
			i := 0
			for ; i < len(y); i++ {
				y[i]++
				if y[i] < v {
					break
				}
				y[i] = 0
			}
			if i == len(y) {
				break
			}
		}
	}
	return out
}

func tiny(spell bool, seed uint64) (*Model, []float64) { return tinyOrder(spell, seed, 1) }

// tinyOrder is a model of 3 tags over 5 words of the given order, with
// random weights.
func tinyOrder(spell bool, seed uint64, order int) (*Model, []float64) {
	words := []string{"The", "dog-s", "ran", "42", "runs"}
	m := &Model{K: 3, V: len(words), Order: order}
	if spell {
		var names []string
		m.Spell, names = SpellingFeatures(words)
		m.F = len(names)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	theta := make([]float64, m.Dim())
	for i := range theta {
		theta[i] = r.NormFloat64()
	}
	return m, theta
}

func TestLogZAgainstEnumeration(t *testing.T) {
	dict := false // the third round adds a dictionary
	sents := [][]int{{0}, {0, 1}, {0, 1, 2}, {1, 1, 2, 1}, {0, 3, 2, 4, 4}}
	for _, run := range []struct {
		spell bool
		order int
	}{{false, 1}, {true, 1}, {true, 1}, {false, 2}, {true, 2}, {true, 2}} {
		spell := run.spell
		m, theta := tinyOrder(spell, 1, run.order)
		if spell && dict {
			forbid(m)
		}
		dict = spell
		for _, kind := range []string{nbhd.Trans1, nbhd.Del1OrTrans1, nbhd.Length} {
			for _, x := range sents {
				if kind == nbhd.Length && len(x) > 4 {
					continue
				}
				l, err := Neighbourhood(kind, x, m.V)
				if err != nil {
					t.Fatal(err)
				}
				got := m.LogZ(theta, l, nil, 0)
				want := m.bruteLogZ(theta, neighbours(kind, x, m.V))
				if math.Abs(got-want) > 1e-9 {
					t.Errorf("order %d spell %v %s %v: log Z(N) = %.12f, enumeration %.12f", m.Order, spell, kind, x, got, want)
				}
			}
		}
		for _, x := range sents {
			got := m.LogZ(theta, dmv.ChainLattice(x), nil, 0)
			if want := m.bruteLogZ(theta, [][]int{x}); math.Abs(got-want) > 1e-9 {
				t.Errorf("order %d spell %v %v: log Z(x) = %.12f, enumeration %.12f", m.Order, spell, x, got, want)
			}
		}
	}
}

// forbid gives m a tag dictionary: word w may not take tag w mod K.
func forbid(m *Model) {
	m.Allowed = make([]bool, m.V*m.K)
	for w := 0; w < m.V; w++ {
		for k := 0; k < m.K; k++ {
			m.Allowed[w*m.K+k] = k != w%m.K
		}
	}
}

func TestGradientAgainstFiniteDifferences(t *testing.T) {
	sents := [][]int{{0, 1, 2}, {1, 1, 2, 1}, {0, 3, 4}, {2}}
	for _, kind := range []string{nbhd.Trans1, nbhd.Del1OrTrans1, nbhd.Length} {
		for _, setup := range []string{"plain", "spelling", "spelling+dictionary", "trigram", "trigram+spelling+dictionary"} {
			spell := strings.Contains(setup, "spelling")
			order := 1
			if strings.HasPrefix(setup, "trigram") {
				order = 2
			}
			m, theta := tinyOrder(spell, 2, order)
			if strings.Contains(setup, "dictionary") {
				forbid(m)
			}
			nb := make([]*dmv.Lattice, len(sents))
			for i, x := range sents {
				var err error
				if nb[i], err = Neighbourhood(kind, x, m.V); err != nil {
					t.Fatal(err)
				}
			}
			grad := make([]float64, m.Dim())
			m.Objective(theta, sents, nb, 2, grad)
			const h = 1e-5
			worst := 0.0
			for j := range theta {
				old := theta[j]
				theta[j] = old + h
				up := m.Objective(theta, sents, nb, 2, nil)
				theta[j] = old - h
				down := m.Objective(theta, sents, nb, 2, nil)
				theta[j] = old
				worst = math.Max(worst, math.Abs((up-down)/(2*h)-grad[j]))
			}
			if worst > 1e-6 {
				t.Errorf("%s %s: gradient off finite differences by %g", kind, setup, worst)
			}
		}
	}
}

func TestViterbiAgainstEnumeration(t *testing.T) {
	for _, order := range []int{1, 2} {
		for _, x := range [][]int{{2}, {0, 3}, {0, 3, 2, 4}, {4, 4, 1, 0, 2}} {
			viterbiAgainstEnumeration(t, order, x)
		}
	}
}

func viterbiAgainstEnumeration(t *testing.T, order int, x []int) {
	m, theta := tinyOrder(true, 3, order)
	best, want := math.Inf(-1), []int(nil)
	tags := make([]int, len(x))
	for {
		if s := m.score(theta, x, tags); s > best {
			best, want = s, slices.Clone(tags)
		}
		i := 0
		for ; i < len(tags); i++ {
			tags[i]++
			if tags[i] < m.K {
				break
			}
			tags[i] = 0
		}
		if i == len(tags) {
			break
		}
	}
	if got := m.Viterbi(theta, x); !slices.Equal(got, want) {
		t.Errorf("order %d %v: Viterbi %v, enumeration %v", order, x, got, want)
	}
}

// On a toy language whose word order is fixed (determiner, noun, verb),
// CE over trans1 raises its objective from the start and ends putting
// nearly all of each neighbourhood's mass on the sentence itself.
func TestTrainLearnsWordOrder(t *testing.T) {
	var sents [][]int
	for d := 0; d < 2; d++ {
		for n := 2; n < 4; n++ {
			for v := 4; v < 6; v++ {
				sents = append(sents, []int{d, n, v})
			}
		}
	}
	m := &Model{K: 3, V: 6}
	var objs []float64
	res, err := Train(m, sents, Options{Kind: nbhd.Trans1, Sigma2: 10, MaxIter: 200, Seed: 1, Noise: 0.1,
		Observe: func(_ int, o float64) { objs = append(objs, o) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) < 2 || res.Objective <= objs[0] {
		t.Fatalf("objective %v from start %v", res.Objective, objs)
	}
	for _, x := range sents {
		l, _ := Neighbourhood(nbhd.Trans1, x, m.V)
		p := math.Exp(m.LogZ(res.Theta, dmv.ChainLattice(x), nil, 0) - m.LogZ(res.Theta, l, nil, 0))
		if p < 0.9 {
			t.Errorf("%v: p(x | N(x)) = %.3f after training (start objective %.3f, end %.3f, %s)", x, p, objs[0], res.Objective, res.Status)
		}
	}
}

// The objective and its gradient are the same, bit for bit, for any
// number of workers.
func TestObjectiveSameForAnyWorkers(t *testing.T) {
	m, theta := tiny(true, 4)
	var sents [][]int
	nb := []*dmv.Lattice{}
	for i := 0; i < 23; i++ {
		x := []int{i % 5, (i * 3) % 5, (i + 2) % 5}[:1+i%3]
		l, err := Neighbourhood(nbhd.Del1OrTrans1, x, m.V)
		if err != nil {
			t.Fatal(err)
		}
		sents, nb = append(sents, x), append(nb, l)
	}
	g1 := make([]float64, m.Dim())
	f1 := m.Objective(theta, sents, nb, 3, g1)
	for _, w := range []int{2, 3, 8, 16} {
		m.Workers = w
		g := make([]float64, m.Dim())
		if f := m.Objective(theta, sents, nb, 3, g); f != f1 || !slices.Equal(g, g1) {
			t.Errorf("%d workers: objective %v, one worker %v (or the gradients differ)", w, f, f1)
		}
	}
}

// logSpaceLogZ is the forward–backward over the lattice in log space, a
// log-sum-exp per term: slow, but safe for any weights; the reference for
// the scaled passes on inputs too long to enumerate.
func (m *Model) logSpaceLogZ(theta []float64, l *dmv.Lattice, grad []float64, scale float64) float64 {
	K, S := m.K, l.States()
	B := K
	inf := math.Inf(-1)
	fill := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = inf
		}
		return s
	}
	alpha, beta := make([][]float64, S), make([][]float64, S)
	for s := range alpha {
		alpha[s], beta[s] = fill(K+1), fill(K+1)
	}
	alpha[0][B] = 0
	var terms []float64
	for s := 1; s < S; s++ {
		for t := 0; t < K; t++ {
			terms = terms[:0]
			for _, a := range l.Arcs {
				if a.To == s {
					for p := 0; p <= K; p++ {
						terms = append(terms, alpha[a.From][p]+theta[m.trans(p, t)]+m.local(theta, t, a.Tag))
					}
				}
			}
			alpha[s][t] = logSum(terms)
		}
	}
	for s := S - 1; s >= 0; s-- {
		for p := 0; p <= K; p++ {
			terms = terms[:0]
			if l.Final[s] && p != B {
				terms = append(terms, theta[m.trans(p, B)])
			}
			for _, a := range l.Arcs {
				if a.From == s {
					for t := 0; t < K; t++ {
						terms = append(terms, theta[m.trans(p, t)]+m.local(theta, t, a.Tag)+beta[a.To][t])
					}
				}
			}
			beta[s][p] = logSum(terms)
		}
	}
	logZ := beta[0][B]
	for _, a := range l.Arcs {
		for t := 0; t < K; t++ {
			for p := 0; p <= K; p++ {
				post := math.Exp(alpha[a.From][p] + theta[m.trans(p, t)] + m.local(theta, t, a.Tag) + beta[a.To][t] - logZ)
				grad[m.trans(p, t)] += scale * post
				grad[m.emit(t, a.Tag)] += scale * post
				if m.Spell != nil {
					for _, f := range m.Spell[a.Tag] {
						grad[m.spell(t, f)] += scale * post
					}
				}
			}
		}
	}
	for s := range l.Final {
		for p := 0; l.Final[s] && p < K; p++ {
			grad[m.trans(p, B)] += scale * math.Exp(alpha[s][p]+theta[m.trans(p, B)]-logZ)
		}
	}
	return logZ
}

// On 60-word sentences with weights of spread 20 — far beyond one
// double's range over a sentence, and a wide spread inside each
// potential — the scaled passes agree with the log-space ones.
func TestScaledAgainstLogSpace(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, dict := range []bool{false, true} {
		m, theta := tiny(true, 6)
		if dict {
			forbid(m)
		}
		for i := range theta {
			theta[i] = 20 * r.NormFloat64()
		}
		x := make([]int, 60)
		for i := range x {
			x[i] = r.IntN(m.V)
		}
		for _, kind := range []string{nbhd.Trans1, nbhd.Del1OrTrans1} {
			l, err := Neighbourhood(kind, x, m.V)
			if err != nil {
				t.Fatal(err)
			}
			for _, lat := range []*dmv.Lattice{dmv.ChainLattice(x), l} {
				want, got := make([]float64, m.Dim()), make([]float64, m.Dim())
				wz := m.logSpaceLogZ(theta, lat, want, 1)
				gz := m.LogZ(theta, lat, got, 1)
				if math.IsInf(wz, 0) || math.Abs(gz-wz) > 1e-9*math.Abs(wz) {
					t.Errorf("dict %v %s, %d states: log Z %.12g, log space %.12g", dict, kind, lat.States(), gz, wz)
				}
				worst := 0.0
				for j := range want {
					worst = math.Max(worst, math.Abs(got[j]-want[j]))
				}
				if worst > 1e-8 {
					t.Errorf("dict %v %s, %d states: expected counts off the log-space ones by %g", dict, kind, lat.States(), worst)
				}
			}
		}
	}
}

// A trigram model whose weight of (a, b) → t is the bitag model's b → t
// is that bitag model: on 60-word sentences with weights of spread 20
// (far beyond a double's range over a sentence) its log Z and expected
// counts, summed over a, are the bitag passes', which TestScaledAgainstLogSpace
// holds to the log-space reference.
func TestTrigramOfBitagWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, dict := range []bool{false, true} {
		bi, theta := tiny(true, 6)
		for i := range theta {
			theta[i] = 20 * r.NormFloat64()
		}
		tri := *bi
		tri.Order = 2
		if dict {
			forbid(bi)
			tri.Allowed = bi.Allowed
		}
		k1 := bi.K + 1
		theta3 := make([]float64, tri.Dim())
		for a := 0; a < k1; a++ {
			for b := 0; b < k1; b++ {
				for c := 0; c < k1; c++ {
					theta3[tri.trans(a*k1+b, c)] = theta[bi.trans(b, c)]
				}
			}
		}
		copy(theta3[tri.transLen():], theta[bi.transLen():])
		x := make([]int, 60)
		for i := range x {
			x[i] = r.IntN(bi.V)
		}
		for _, kind := range []string{nbhd.Trans1, nbhd.Del1OrTrans1} {
			l, err := Neighbourhood(kind, x, bi.V)
			if err != nil {
				t.Fatal(err)
			}
			for _, lat := range []*dmv.Lattice{dmv.ChainLattice(x), l} {
				g2, g3 := make([]float64, bi.Dim()), make([]float64, tri.Dim())
				z2 := bi.LogZ(theta, lat, g2, 1)
				z3 := tri.LogZ(theta3, lat, g3, 1)
				if math.IsInf(z2, 0) || math.Abs(z3-z2) > 1e-9*math.Abs(z2) {
					t.Errorf("dict %v %s: trigram log Z %.12g, bitag %.12g", dict, kind, z3, z2)
				}
				sum := make([]float64, bi.Dim())
				copy(sum[bi.transLen():], g3[tri.transLen():])
				for a := 0; a < k1; a++ {
					for b := 0; b < k1; b++ {
						for c := 0; c < k1; c++ {
							sum[bi.trans(b, c)] += g3[tri.trans(a*k1+b, c)]
						}
					}
				}
				worst := 0.0
				for j := range sum {
					worst = math.Max(worst, math.Abs(sum[j]-g2[j]))
				}
				if worst > 1e-8 {
					t.Errorf("dict %v %s: trigram counts off the bitag ones by %g", dict, kind, worst)
				}
			}
		}
	}
}
