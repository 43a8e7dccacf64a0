package modelu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// trees enumerates every projective tree of n words rooted at word 0:
// heads[i] the head of word i, −1 for word 0.
func trees(n int, fn func(heads []int)) {
	heads := make([]int, n)
	heads[0] = -1
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			if isTree(heads) && projective(heads) {
				fn(heads)
			}
			return
		}
		for h := 0; h < n; h++ {
			if h != i {
				heads[i] = h
				rec(i + 1)
			}
		}
	}
	rec(1)
}

func isTree(heads []int) bool {
	for i := range heads {
		seen := 0
		for j := i; j != 0; j = heads[j] {
			if seen++; seen > len(heads) {
				return false
			}
		}
	}
	return true
}

// projective: every word between a head and its child descends from the
// head.
func projective(heads []int) bool {
	for d, h := range heads {
		if h < 0 {
			continue
		}
		lo, hi := min(h, d), max(h, d)
		for k := lo + 1; k < hi; k++ {
			j := k
			for j != h && j != 0 {
				j = heads[j]
			}
			if j != h {
				return false
			}
		}
	}
	return true
}

// noncrossing: no two undirected edges cross.
func noncrossing(heads []int) bool {
	for d, h := range heads {
		for d2, h2 := range heads {
			if h < 0 || h2 < 0 {
				continue
			}
			a, b := min(h, d), max(h, d)
			c, e := min(h2, d2), max(h2, d2)
			if a < c && c < b && b < e {
				return false
			}
		}
	}
	return true
}

func TestTreeCounts(t *testing.T) {
	want := []float64{1, 1, 3, 12, 55, 273}
	for n := 1; n <= 6; n++ {
		count := 0
		trees(n, func(h []int) {
			count++
			if !noncrossing(h) {
				t.Errorf("a projective tree rooted at the first word with crossing edges: %v", h)
			}
		})
		if float64(count) != want[n-1] {
			t.Errorf("%d words: %d trees by enumeration, want %v", n, count, want[n-1])
		}
		x := make([]int, n)
		ch := NewChart(dmv.ChainLattice(x))
		ch.Load(func(a, b int) float64 { return 0 })
		if z := ch.Inside(false); math.Abs(z-math.Log(want[n-1])) > 1e-12 {
			t.Errorf("%d words: Z = %v, want %v", n, math.Exp(z), want[n-1])
		}
	}
}

// paths enumerates the strings of a lattice as arc lists.
func paths(l *dmv.Lattice, fn func(arcs []int)) {
	var rec func(s int, arcs []int)
	rec = func(s int, arcs []int) {
		if l.Final[s] && len(arcs) > 0 {
			fn(arcs)
		}
		for a, x := range l.Arcs {
			if x.From == s {
				rec(x.To, append(arcs, a))
			}
		}
	}
	rec(0, nil)
}

// brute is Z, the edge marginals by arc pair, and the best score over a
// lattice's strings and trees, by enumeration.
func brute(l *dmv.Lattice, score func(a, b int) float64) (z float64, mu map[[2]int]float64, best float64) {
	mu = map[[2]int]float64{}
	best = math.Inf(-1)
	paths(l, func(arcs []int) {
		trees(len(arcs), func(heads []int) {
			s := 0.0
			for d, h := range heads {
				if h >= 0 {
					s += score(arcs[min(h, d)], arcs[max(h, d)])
				}
			}
			z += math.Exp(s)
			best = max(best, s)
			for d, h := range heads {
				if h >= 0 {
					mu[[2]int{arcs[min(h, d)], arcs[max(h, d)]}] += math.Exp(s)
				}
			}
		})
	})
	for k := range mu {
		mu[k] /= z
	}
	return
}

func checkChart(t *testing.T, name string, l *dmv.Lattice, score func(a, b int) float64) {
	t.Helper()
	z, mu, best := brute(l, score)
	ch := NewChart(l)
	ch.Load(score)
	logZ := ch.Inside(false)
	if math.Abs(logZ-math.Log(z)) > 1e-9 {
		t.Errorf("%s: log Z = %v, by enumeration %v", name, logZ, math.Log(z))
	}
	got := map[[2]int]float64{}
	ch.Outside(logZ, func(a, b int, m float64) { got[[2]int{a, b}] += m })
	for k, v := range mu {
		if math.Abs(got[k]-v) > 1e-9 {
			t.Errorf("%s: edge %v: marginal %v, by enumeration %v", name, k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := mu[k]; !ok && v > 1e-12 {
			t.Errorf("%s: edge %v: marginal %v, never in a tree", name, k, v)
		}
	}
	vit := ch.Inside(true)
	if math.Abs(vit-best) > 1e-9 {
		t.Errorf("%s: Viterbi %v, by enumeration %v", name, vit, best)
	}
	arcs, heads := ch.Best()
	s := 0.0
	for d, h := range heads {
		if h >= 0 {
			s += score(arcs[min(h, d)], arcs[max(h, d)])
		}
	}
	if math.Abs(s-best) > 1e-9 || !isTree(heads) || !projective(heads) || heads[0] != -1 {
		t.Errorf("%s: best tree %v over arcs %v scores %v, want a projective tree rooted at the first word scoring %v", name, heads, arcs, s, best)
	}
}

func TestChartAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 6; n++ {
		x := make([]int, n)
		table := make([]float64, n*n)
		for i := range table {
			table[i] = r.NormFloat64() * 2
		}
		checkChart(t, "chain", dmv.ChainLattice(x), func(a, b int) float64 { return table[a*n+b] })
	}
	x := []int{0, 1, 2, 1, 3}
	for _, kind := range nbhd.Kinds {
		tags := 4
		y := x
		if kind == nbhd.Length {
			tags, y = 2, x[:3]
		}
		l, err := nbhd.Build(kind, y, tags)
		if err != nil {
			t.Fatal(err)
		}
		// scores by symbol pair and by the arcs' depths, so that two
		// arcs of one symbol differ too
		sym := make([]float64, 16)
		for i := range sym {
			sym[i] = r.NormFloat64()
		}
		checkChart(t, kind, l, func(a, b int) float64 {
			p, q := l.Arcs[a], l.Arcs[b]
			return sym[p.Tag*4+q.Tag] + 0.1*float64(l.Depth[q.From]-l.Depth[p.From])
		})
	}
}

func corpus() []*format.Sentence {
	return []*format.Sentence{
		{Words: []string{"The", "dog", "barks"}, Tags: []string{"DT", "NN", "VBZ"}},
		{Words: []string{"A", "cat", "sat", "down"}, Tags: []string{"DT", "NN", "VBD", "RB"}},
		{Words: []string{"Dogs", "bark"}, Tags: []string{"NNS", "VBP"}},
		{Words: []string{"the", "12", "cats", "sat"}, Tags: []string{"DT", "CD", "NNS", "VBD"}},
	}
}

func TestGradientAgainstFiniteDifferences(t *testing.T) {
	for _, c := range []struct {
		kind     string
		spelling bool
		sigma2   float64
	}{{nbhd.Trans1, false, math.Inf(1)}, {nbhd.Del1OrTrans2, true, 2}, {nbhd.Length, false, 1}, {nbhd.Del1Subseq, true, math.Inf(1)}} {
		m := New([]string{"CD", "DT", "NN", "NNS", "RB", "VBD", "VBP", "VBZ"}, c.spelling)
		p, err := NewProblem(m, corpus(), c.kind, 2, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		theta := make([]float64, len(m.Theta))
		for i := range theta {
			theta[i] = r.NormFloat64()
		}
		grad := make([]float64, len(theta))
		p.Objective(theta, c.sigma2, 2, grad)
		const h = 1e-5
		worst := 0.0
		for i := range theta {
			old := theta[i]
			theta[i] = old + h
			f1 := p.Objective(theta, c.sigma2, 2, nil)
			theta[i] = old - h
			f0 := p.Objective(theta, c.sigma2, 2, nil)
			theta[i] = old
			worst = max(worst, math.Abs((f1-f0)/(2*h)-grad[i]))
		}
		if worst > 1e-6 {
			t.Errorf("%s (spelling %v): gradient differs from finite differences by %g", c.kind, c.spelling, worst)
		}
		t.Logf("%s (spelling %v): %d features, worst difference %.2g", c.kind, c.spelling, len(theta), worst)
	}
}

func TestObjectiveIndependentOfWorkers(t *testing.T) {
	m := New([]string{"CD", "DT", "NN", "NNS", "RB", "VBD", "VBP", "VBZ"}, true)
	p, err := NewProblem(m, corpus(), nbhd.Del1OrTrans1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	theta := make([]float64, len(m.Theta))
	for i := range theta {
		theta[i] = float64(i%7) / 5
	}
	g1, g4 := make([]float64, len(theta)), make([]float64, len(theta))
	if a, b := p.Objective(theta, 1, 1, g1), p.Objective(theta, 1, 4, g4); a != b {
		t.Errorf("objective %v with 1 worker, %v with 4", a, b)
	}
	for i := range g1 {
		if g1[i] != g4[i] {
			t.Fatalf("gradient %d: %v with 1 worker, %v with 4", i, g1[i], g4[i])
		}
	}
}

func TestAffixes(t *testing.T) {
	got := Affixes("Oct.")
	want := []string{"-.", "-t.", "-ct.", "o-", "oc-", "oct-"}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("Affixes(Oct.) = %v, want %v", got, want)
		}
	}
	if got := Affixes("1987"); got[0] != "-0" || got[5] != "000-" {
		t.Errorf("digits not collapsed: %v", got)
	}
}
