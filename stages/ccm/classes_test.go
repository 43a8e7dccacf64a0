package ccm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// randomClassModel draws a multi-class model with classes constituent
// classes by an M-step on random counts.
func randomClassModel(rng *rand.Rand, c *Corpus, classes int) *Model {
	cnt := &Counts{Classes: make([]ClassCounts, classes)}
	for range c.Sym.NumYields() {
		n := 1 + 5*rng.Float64()
		cnt.SpanN = append(cnt.SpanN, n)
		cnt.SpanT = append(cnt.SpanT, n*rng.Float64())
		for l := range cnt.Classes {
			cnt.Classes[l].Span = append(cnt.Classes[l].Span, 3*rng.Float64())
		}
	}
	for range c.Sym.NumContexts() {
		n := 1 + 5*rng.Float64()
		cnt.ContextN = append(cnt.ContextN, n)
		cnt.ContextT = append(cnt.ContextT, n*rng.Float64())
		for l := range cnt.Classes {
			cnt.Classes[l].Context = append(cnt.Classes[l].Context, 3*rng.Float64())
		}
	}
	m, err := MStep(cnt, c.Sym, Model1, Smoothing{0.1, 0.1})
	if err != nil {
		panic(err)
	}
	return m
}

// classEnumeration is what the multi-class model's E-step must give for
// sentence s, from the definition: every binary bracketing and every
// labelling of its constituents (the distituents all d) with its joint
// probability P_bin(B)·Π P(L|B)·P(α|L)·P(x|L). It returns log P(s), the
// bracket posteriors, each class's expected yield and context counts
// (class 0 the distituent label) and the best bracketing with the labels
// summed out.
type classEnumeration struct {
	logP         float64
	post         map[[2]int]float64
	span, ctx    []map[int32]float64
	best         [][2]int
	bestLogScore float64
}

func enumerateClasses(m *Model, c *Corpus, s Sentence) classEnumeration {
	L := len(m.Classes)
	trees := binaryBracketings(0, s.N)
	e := classEnumeration{logP: math.Inf(-1), post: map[[2]int]float64{}, bestLogScore: math.Inf(-1)}
	for range L + 1 {
		e.span, e.ctx = append(e.span, map[int32]float64{}), append(e.ctx, map[int32]float64{})
	}
	type labelled struct {
		logP   float64
		labels map[[2]int]int
	}
	var joint [][]labelled // per tree
	for _, tree := range trees {
		isT := map[[2]int]bool{}
		var cons [][2]int
		for i := 0; i < s.N; i++ {
			cons = append(cons, [2]int{i, i + 1})
		}
		for _, b := range tree {
			isT[b] = true
			cons = append(cons, b)
		}
		var rows []labelled
		treeSum := math.Inf(-1)
		assign := make([]int, len(cons)) // the class (1..L) of each constituent
		for i := range assign {
			assign[i] = 1
		}
		for {
			labels := map[[2]int]int{}
			for i, sp := range cons {
				labels[sp] = assign[i]
			}
			lp := -math.Log(float64(len(trees)))
			for i := 0; i <= s.N; i++ {
				for j := i; j <= s.N; j++ {
					k := s.Span(i, j)
					y, x := c.Yield[k], c.Context[k]
					if l, ok := labels[[2]int{i, j}]; ok {
						cl := m.Classes[l-1]
						lp += math.Log(cl.Span[y]*cl.Context[x]) - math.Log(float64(L))
					} else {
						lp += math.Log(m.Span[Distituent][y] * m.Context[Distituent][x])
					}
				}
			}
			rows = append(rows, labelled{lp, labels})
			treeSum = logAddTest(treeSum, lp)
			e.logP = logAddTest(e.logP, lp)
			i := 0
			for i < len(assign) && assign[i] == L {
				assign[i] = 1
				i++
			}
			if i == len(assign) {
				break
			}
			assign[i]++
		}
		joint = append(joint, rows)
		if treeSum > e.bestLogScore {
			e.bestLogScore, e.best = treeSum, tree
		}
	}
	for t, tree := range trees {
		for _, sp := range tree {
			for _, r := range joint[t] {
				e.post[sp] += math.Exp(r.logP - e.logP)
			}
		}
		for _, r := range joint[t] {
			p := math.Exp(r.logP - e.logP)
			for i := 0; i < s.N; i++ {
				for j := i + 1; j <= s.N; j++ {
					k := s.Span(i, j)
					l := r.labels[[2]int{i, j}] // 0: the distituent label
					e.span[l][c.Yield[k]] += p
					e.ctx[l][c.Context[k]] += p
				}
			}
		}
	}
	return e
}

// TestClassesAgainstEnumeration checks the multi-class model's likelihood,
// bracket posteriors, expected counts of every class (the distituent
// label's included) and Viterbi bracketing against enumeration of every
// bracketing and labelling, with 2 and 3 constituent classes.
func TestClassesAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, run := range []struct{ classes, maxLen int }{{1, 5}, {2, 5}, {3, 4}} {
		c := randomCorpus(rng, 25, run.maxLen, 3)
		m := randomClassModel(rng, c, run.classes)
		wantSpan := make([]map[int32]float64, run.classes+1)
		wantCtx := make([]map[int32]float64, run.classes+1)
		for l := range wantSpan {
			wantSpan[l], wantCtx[l] = map[int32]float64{}, map[int32]float64{}
		}
		wantLogLik := 0.0
		for k, s := range c.Sentences {
			e := enumerateClasses(m, c, s)
			wantLogLik += e.logP
			for l := range e.span {
				for y, v := range e.span[l] {
					wantSpan[l][y] += v
				}
				for x, v := range e.ctx[l] {
					wantCtx[l][x] += v
				}
			}
			got, logP := m.Posteriors(c, k)
			if relErr(logP, e.logP) > 1e-10 {
				t.Errorf("%d classes, sentence %d: log P %v, enumeration %v", run.classes, k, logP, e.logP)
			}
			for i := 0; i < s.N; i++ {
				for j := i + 2; j <= s.N; j++ {
					if want := e.post[[2]int{i, j}]; math.Abs(got[i][j]-want) > 1e-10 {
						t.Errorf("%d classes, sentence %d span (%d,%d): posterior %v, enumeration %v", run.classes, k, i, j, got[i][j], want)
					}
				}
			}
			spans, _, _ := m.Parse(c, k, Viterbi)
			if !slices.Equal(sortedSpans(spans), sortedSpans(e.best)) {
				t.Errorf("%d classes, sentence %d: Viterbi %v, enumeration %v", run.classes, k, spans, e.best)
			}
		}
		cnt := m.EStep(c, 2)
		if relErr(cnt.LogLik, wantLogLik) > 1e-10 {
			t.Errorf("%d classes: E-step log-likelihood %v, enumeration %v", run.classes, cnt.LogLik, wantLogLik)
		}
		for l := range wantSpan {
			gotSpan := func(y int) float64 {
				if l == 0 {
					// the distituent count of a non-empty yield (empty
					// spans are distituents in every bracketing)
					return cnt.SpanCount(Distituent, y)
				}
				return cnt.Classes[l-1].Span[y]
			}
			for y := 1; y < c.Sym.NumYields(); y++ {
				if g, w := gotSpan(y), wantSpan[l][int32(y)]; math.Abs(g-w) > 1e-9 {
					t.Errorf("%d classes: class %d yield %v: count %v, enumeration %v", run.classes, l, c.Sym.Yield(y), g, w)
				}
			}
			if l == 0 {
				continue // contexts of the empty spans count too
			}
			for x := range c.Sym.NumContexts() {
				if g, w := cnt.Classes[l-1].Context[x], wantCtx[l][int32(x)]; math.Abs(g-w) > 1e-9 {
					t.Errorf("%d classes: class %d context %d: count %v, enumeration %v", run.classes, l, x, g, w)
				}
			}
		}
	}
}

func sortedSpans(spans [][2]int) [][2]int {
	out := slices.Clone(spans)
	slices.SortFunc(out, cmpSpan)
	return out
}

// TestTwoClassesAreTheCCM: with one constituent class (Klein's "2
// classes") the multi-class code trains the CCM, objective for objective
// and table for table, to the bit.
func TestTwoClassesAreTheCCM(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	c := randomCorpus(rng, 80, 9, 4)
	run := func(classes int) (*Model, []float64) {
		var objs []float64
		m, _, err := Train(c, Options{Classes: classes, Seed: 7, MaxIter: 30, Tol: 1e-12, Workers: 3,
			Observe: func(it format.Iteration, _ *Model) error {
				objs = append(objs, float64(it.Objective))
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		return m, objs
	}
	ccm, ccmObjs := run(0)
	two, twoObjs := run(2)
	if !slices.Equal(ccmObjs, twoObjs) {
		t.Errorf("objectives differ:\n CCM      %v\n 2 classes %v", ccmObjs, twoObjs)
	}
	if len(two.Classes) != 1 || !slices.Equal(two.Classes[0].Span, ccm.Span[Constituent]) || !slices.Equal(two.Classes[0].Context, ccm.Context[Constituent]) ||
		!slices.Equal(two.Span[Distituent], ccm.Span[Distituent]) || !slices.Equal(two.Context[Distituent], ccm.Context[Distituent]) {
		t.Error("the 2-class model's tables are not the CCM's")
	}
	for k := range c.Sentences {
		a, sa, _ := ccm.Parse(c, k, Viterbi)
		b, sb, _ := two.Parse(c, k, Viterbi)
		if !slices.Equal(a, b) || sa != sb {
			t.Fatalf("sentence %d: CCM %v (%v), 2 classes %v (%v)", k, a, sa, b, sb)
		}
	}
}

// TestClassesEMNeverLowersObjective: EM on the multi-class model never
// lowers the likelihood (without smoothing) or the MAP objective (with
// Klein's), whatever the seed.
func TestClassesEMNeverLowersObjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	c := randomCorpus(rng, 60, 9, 4)
	for _, classes := range []int{3, 6} {
		for _, sm := range []Smoothing{{1e-9, 1e-9}, KleinSmoothing} {
			for seed := range uint64(2) {
				prev := math.Inf(-1)
				_, _, err := Train(c, Options{Classes: classes, Seed: seed, Smoothing: sm, MaxIter: 25, Tol: 1e-12,
					Observe: func(it format.Iteration, _ *Model) error {
						if obj := float64(it.Objective); obj < prev-1e-9*math.Abs(prev) {
							t.Errorf("%d classes, smoothing %v, seed %d: objective fell from %v to %v at iteration %d", classes, sm, seed, prev, obj, it.Iter)
						}
						prev = float64(it.Objective)
						return nil
					}})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestClassCountsSameForWorkers: the classes' counts do not depend on the
// number of workers, to the bit; the start splits the CCM's start counts
// among the classes (their sums are its constituent counts) and differs
// by seed.
func TestClassCountsSameForWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	c := randomCorpus(rng, 400, 10, 5)
	m := randomClassModel(rng, c, 4)
	one := m.EStep(c, 1)
	for _, w := range []int{2, 3, 8} {
		got := m.EStep(c, w)
		for l := range one.Classes {
			if !slices.Equal(got.Classes[l].Span, one.Classes[l].Span) || !slices.Equal(got.Classes[l].Context, one.Classes[l].Context) {
				t.Errorf("%d workers give class %d different counts from one", w, l)
			}
		}
	}
	ccm, err := StartCounts(c, SplitUniform)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ClassStartCounts(c, SplitUniform, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ClassStartCounts(c, SplitUniform, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	for y := range c.Sym.NumYields() {
		sum := 0.0
		for _, cc := range a.Classes {
			sum += cc.Span[y]
		}
		if math.Abs(sum-ccm.SpanT[y]) > 1e-9*max(1, ccm.SpanT[y]) {
			t.Fatalf("yield %d: the classes' start counts sum to %v, the CCM's %v", y, sum, ccm.SpanT[y])
		}
	}
	if slices.Equal(a.Classes[0].Span, b.Classes[0].Span) {
		t.Error("seeds 1 and 2 give the same start")
	}
}
