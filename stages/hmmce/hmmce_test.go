package hmmce

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// score is the log weight of one tagged string, from the definition.
func (m *Model) score(theta []float64, x, tags []int) float64 {
	s, prev := 0.0, m.K
	for i, w := range x {
		s += theta[m.trans(prev, tags[i])] + m.local(theta, tags[i], w)
		prev = tags[i]
	}
	return s + theta[m.trans(prev, m.K)]
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

func tiny(spell bool, seed uint64) (*Model, []float64) {
	words := []string{"The", "dog-s", "ran", "42", "runs"}
	m := &Model{K: 3, V: len(words)}
	if spell {
		m.Spell, m.F = SpellingFeatures(words)
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
	for _, spell := range []bool{false, true, true} {
		m, theta := tiny(spell, 1)
		if spell && dict {
			// a tag dictionary: word w may not take tag w mod K
			m.Allowed = make([]bool, m.V*m.K)
			for w := 0; w < m.V; w++ {
				for k := 0; k < m.K; k++ {
					m.Allowed[w*m.K+k] = k != w%m.K
				}
			}
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
					t.Errorf("spell %v %s %v: log Z(N) = %.12f, enumeration %.12f", spell, kind, x, got, want)
				}
			}
		}
		for _, x := range sents {
			got := m.LogZ(theta, dmv.ChainLattice(x), nil, 0)
			if want := m.bruteLogZ(theta, [][]int{x}); math.Abs(got-want) > 1e-9 {
				t.Errorf("spell %v %v: log Z(x) = %.12f, enumeration %.12f", spell, x, got, want)
			}
		}
	}
}

func TestGradientAgainstFiniteDifferences(t *testing.T) {
	sents := [][]int{{0, 1, 2}, {1, 1, 2, 1}, {0, 3, 4}, {2}}
	for _, kind := range []string{nbhd.Trans1, nbhd.Del1OrTrans1, nbhd.Length} {
		for _, spell := range []bool{false, true} {
			m, theta := tiny(spell, 2)
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
				t.Errorf("%s spell %v: gradient off finite differences by %g", kind, spell, worst)
			}
		}
	}
}

func TestViterbiAgainstEnumeration(t *testing.T) {
	m, theta := tiny(true, 3)
	x := []int{0, 3, 2, 4}
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
		t.Errorf("Viterbi %v, enumeration %v", got, want)
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
