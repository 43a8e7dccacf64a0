package pr

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/internal/brute"
	"github.com/grind-nlp/grind/stages/dmv"
)

// randomModel is a normalised DMV over t tags.
func randomModel(rng *rand.Rand, t int) *dmv.Params {
	return randomValenceModel(rng, t, dmv.DMVValence)
}

// randomValenceModel is a normalised DMV with valence settings v.
func randomValenceModel(rng *rand.Rand, t int, v dmv.Valence) *dmv.Params {
	draws := dmv.NewValenceParams(t, v)
	for _, tab := range draws.Tables() {
		for i := range tab {
			tab[i] = rng.ExpFloat64()
		}
	}
	return dmv.MStep(draws, 0)
}

func randomCorpus(rng *rand.Rand, t, sentences, maxLen int) *dmv.Corpus {
	return randomCorpusOf(rng, []string{"A", "B", "C", "D", "E", "F"}[:t], sentences, maxLen)
}

func randomCorpusOf(rng *rand.Rand, names []string, sentences, maxLen int) *dmv.Corpus {
	t := len(names)
	var sents [][]int
	for range sentences {
		x := make([]int, 1+rng.IntN(maxLen))
		for i := range x {
			x[i] = rng.IntN(t)
		}
		sents = append(sents, x)
	}
	return dmv.CorpusFromNumbers(dmv.NewTagSet(names...), sents)
}

// bruteEdgePosteriors enumerates every tree of tags under w times the
// factors e^{−λ} of each attachment (lambda[h·n+d], the root's on the
// diagonal) and returns log Z and the posterior of every slot (n ≤ 7).
func bruteEdgePosteriors(tags []int, w *dmv.Params, lambda []float64) (float64, []float64) {
	n := len(tags)
	post := make([]float64, n*n)
	trees := brute.ProjectiveTrees(n)
	var weights []float64
	for _, heads := range trees {
		lw := dmv.TreeLogWeight(tags, heads, w)
		for d, h := range heads {
			k := d*n + d
			if h > 0 {
				k = (h-1)*n + d
			}
			lw -= lambda[k]
		}
		weights = append(weights, math.Exp(lw))
	}
	z := 0.0
	for _, v := range weights {
		z += v
	}
	for i, heads := range trees {
		for d, h := range heads {
			k := d*n + d
			if h > 0 {
				k = (h-1)*n + d
			}
			post[k] += weights[i] / z
		}
	}
	return math.Log(z), post
}

// The E-step with the sparsity dual's factors is the posterior of the
// model times e^{−λ} per attachment, against enumeration (n ≤ 6), for
// every kind of instance.
func TestSparsityPosteriorsMatchEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k, opts := range []Options{
		{Sigma: 3},
		{Sigma: 3, Root: true},
		{Sigma: 3, Grouped: true},
		{Sigma: 3, Grouped: true, Direction: true, Root: true},
		{Sigma: 3, Root: true}, // with valences: the valence chart's factors
		{Sigma: 3, Root: true}, // EVG's valences: the DMV chart's factors on both child valences
	} {
		corpus := randomCorpus(rng, 3, 12, 7)
		w := randomModel(rng, 3)
		switch k {
		case 4:
			w = randomValenceModel(rng, 3, dmv.Valence{Stop: 3, Child: 2})
		case 5:
			w = randomValenceModel(rng, 3, dmv.Valence{Stop: 2, Child: 2})
		}
		sp, err := newSparsityProblem(corpus, opts)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, len(sp.rep))
		for i := range x {
			x[i] = 2 * rng.Float64()
		}
		sp.project(x) // within σ per type
		sp.post = make([]float64, len(sp.rep))
		sp.set(dmv.NewEStepper(corpus), w, dmv.EStepOptions{Workers: 2})
		grad := make([]float64, len(x))
		f, err := sp.evaluate(x, grad)
		if err != nil {
			t.Fatal(err)
		}
		wantF := 0.0
		for i, sent := range corpus.Sentences() {
			n, base := len(sent), sp.off[i]
			lambda := make([]float64, n*n) // each slot's λ, from its representative
			for k := range lambda {
				if r := sp.rep[base+k]; r >= 0 {
					lambda[k] = x[base+int(r)]
				}
			}
			logZ, post := bruteEdgePosteriors(sent, w, lambda)
			wantF += logZ
			for k, p := range post {
				if math.Abs(sp.post[base+k]-p) > 1e-9 {
					t.Fatalf("%+v: sentence %d slot %d: posterior %v, enumeration %v", opts, i, k, sp.post[base+k], p)
				}
			}
			// the gradient of a representative is minus its group's posterior
			for k := range post {
				r := sp.rep[base+k]
				if int(r) != k {
					continue
				}
				want := 0.0
				for j, rj := range sp.rep[base : base+n*n] {
					if rj == r {
						want -= post[j]
					}
				}
				if g := grad[base+k]; math.Abs(g-want) > 1e-9 {
					t.Fatalf("%+v: sentence %d slot %d: gradient %v, want %v", opts, i, k, g, want)
				}
			}
		}
		if math.Abs(f-wantF) > 1e-9*math.Abs(wantF) {
			t.Errorf("%+v: Σ log Z = %v, enumeration %v", opts, f, wantF)
		}
	}
}

// TestTypesByTableOrMap: the types are numbered alike by the table (few
// tags) and by the map (many), so the dual's layout does not depend on
// the tag set's size.
func TestTypesByTableOrMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	corpus := randomCorpus(rng, 6, 40, 8)
	tableMax := typeTableMax
	defer func() { typeTableMax = tableMax }()
	for _, opts := range []Options{{Sigma: 1}, {Sigma: 1, Grouped: true, Direction: true, Root: true}} {
		table, err := newSparsityProblem(corpus, opts)
		if err != nil {
			t.Fatal(err)
		}
		typeTableMax = 0
		byMap, err := newSparsityProblem(corpus, opts)
		typeTableMax = tableMax
		if err != nil {
			t.Fatal(err)
		}
		if len(table.typeStart) < 10 || !slices.Equal(table.typeStart, byMap.typeStart) ||
			!slices.Equal(table.slotType, byMap.slotType) || !slices.Equal(table.typeVars, byMap.typeVars) {
			t.Errorf("%+v: %d types by the table, %d by the map, or another layout", opts, len(table.typeStart)-1, len(byMap.typeStart)-1)
		}
	}
}

// The rules' dual reweights the model: its value and gradient are those
// of enumeration, where each tree's weight is multiplied by e^{−λ·#no rule},
// for the plain DMV and for models with valence settings (whose child
// tables hold every child valence: the rules apply to each).
func TestRulePosteriorsMatchEnumeration(t *testing.T) {
	contentHeads, _ := Builtin(ContentHeads)
	abc := NewRules("test", [][2]string{{Root, "A"}, {"A", "B"}, {"B", "C"}, {"C", "C"}})
	for _, c := range []struct {
		tags  []string
		rules *Rules
		v     dmv.Valence
	}{
		{[]string{"A", "B", "C"}, abc, dmv.DMVValence},
		{[]string{"w:the", "B", "w:of"}, contentHeads, dmv.DMVValence}, // function words may not head
		{[]string{"A", "B", "C"}, abc, dmv.Valence{Stop: 2, Child: 2}},
		{[]string{"A", "B", "C"}, abc, dmv.Valence{Stop: 3, Child: 3}},
	} {
		rng := rand.New(rand.NewPCG(3, 4))
		corpus := randomCorpusOf(rng, c.tags, 10, 7)
		w := randomValenceModel(rng, 3, c.v)
		rules := c.rules
		opts := Options{Rules: rules, RuleShare: 0.7}
		rp := newRuleProblem(corpus, opts)
		rp.set(dmv.NewEStepper(corpus), w, dmv.EStepOptions{Workers: 3})
		lambda := 0.83
		grad := make([]float64, 1)
		f, err := rp.evaluate([]float64{lambda}, grad)
		if err != nil {
			t.Fatal(err)
		}
		names := corpus.Tags.Names()
		wantF, wantE := 0.0, 0.0
		for _, sent := range corpus.Sentences() {
			n := len(sent)
			slot := make([]float64, n*n)
			for h := 0; h < n; h++ {
				for d := 0; d < n; d++ {
					head := Root
					if h != d {
						head = names[sent[h]]
					}
					if !rules.Allows(head, names[sent[d]]) {
						slot[h*n+d] = lambda
					}
				}
			}
			logZ, post := bruteEdgePosteriors(sent, w, slot)
			wantF += logZ
			for k, p := range post {
				if slot[k] != 0 {
					wantE += p
				}
			}
		}
		b := (1 - 0.7) * float64(corpus.Tokens)
		if math.Abs(f-(wantF+lambda*b)) > 1e-9*math.Abs(wantF) {
			t.Errorf("%s, %v: f = %v, enumeration %v", rules.Name, c.v, f, wantF+lambda*b)
		}
		if math.Abs(grad[0]-(b-wantE)) > 1e-9*b {
			t.Errorf("%s, %v: gradient %v, enumeration %v", rules.Name, c.v, grad[0], b-wantE)
		}
		if wantE == 0 {
			t.Errorf("%s: no attachment breaks a rule: the test tests nothing", rules.Name)
		}
	}
}

// content-heads: a function word (w:FORM) heads nothing, the root's
// dependent is content, every other attachment is a rule; it constrains
// the function words' tags.
func TestContentHeads(t *testing.T) {
	r, err := LoadRules(ContentHeads)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		head, dep string
		want      bool
	}{
		{"0110", "w:the", true}, {"w:the", "0110", false}, {"w:the", "w:of", false},
		{Root, "0110", true}, {Root, "w:is", false}, {"NOUN", "DET", true},
	} {
		if got := r.Allows(c.head, c.dep); got != c.want {
			t.Errorf("%s → %s: %v, want %v", c.head, c.dep, got, c.want)
		}
	}
	if n := r.Covers([]string{"0110", "w:the", "w:of", "1"}); n != 2 {
		t.Errorf("covers %d tags, want the 2 function words", n)
	}
	if n := r.Covers([]string{"NOUN", "VERB"}); n != 0 {
		t.Errorf("covers %d UPOS tags, want 0", n)
	}
	if err := r.CheckCovers([]string{"NOUN", "VERB"}); err == nil || !strings.Contains(err.Error(), "name none of the corpus's tags (NOUN VERB)") {
		t.Errorf("content-heads over UPOS: %v, want a refusal naming the tags", err)
	}
}

// Every built-in table of pairs, written (train-em --print-rules) and read
// back as a rule file, is the same table: a tag # survives its escape, and
// content-heads, a rule over names, refuses to be written.
func TestRulesWriteReadsBack(t *testing.T) {
	tables := append(BuiltinRules(), "hash")
	for _, name := range tables {
		var r *Rules
		if name == "hash" {
			r = NewRules(name, [][2]string{{Root, "#"}, {"#", `\x`}, {"NN", "DT"}})
		} else {
			var err error
			if r, err = Builtin(name); err != nil {
				t.Fatal(err)
			}
		}
		var b strings.Builder
		err := r.Write(&b)
		if name == ContentHeads {
			if err == nil {
				t.Error("content-heads written as a table of pairs")
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join(t.TempDir(), "rules.txt")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := ReadRules(path)
		if err != nil {
			t.Fatalf("%s read back: %v\n%s", name, err, b.String())
		}
		if !slices.Equal(back.Pairs(), r.Pairs()) || back.Len() == 0 {
			t.Errorf("%s read back: %v, want %v", name, back.Pairs(), r.Pairs())
		}
	}
}

// Both duals' gradients against central finite differences of their
// objective.
func TestDualGradientsFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	corpus := randomCorpus(rng, 4, 20, 7)
	w := randomModel(rng, 4)
	rules := NewRules("test", [][2]string{{Root, "A"}, {"A", "B"}, {"B", "C"}, {"D", "A"}})
	problems := map[string]eStepProblem{
		"rules": newRuleProblem(corpus, Options{Rules: rules, RuleShare: 0.8, RuleCap: DefaultRuleCap}),
	}
	sp, err := newSparsityProblem(corpus, Options{Sigma: 2, Grouped: true, Root: true})
	if err != nil {
		t.Fatal(err)
	}
	problems["sparsity"] = sp
	for name, p := range problems {
		p.set(dmv.NewEStepper(corpus), w, dmv.EStepOptions{Workers: 2})
		dim := 1
		if name == "sparsity" {
			dim = len(sp.rep)
		}
		x := make([]float64, dim)
		for i := range x {
			x[i] = 0.2 + rng.Float64()
		}
		p.project(x)
		grad := make([]float64, dim)
		if _, err := p.evaluate(x, grad); err != nil {
			t.Fatal(err)
		}
		scratch := make([]float64, dim)
		checked := 0
		for i := 0; i < dim && checked < 25; i++ {
			if x[i] == 0 { // not a variable of its own
				continue
			}
			checked++
			const h = 1e-5
			xp, xm := slices.Clone(x), slices.Clone(x)
			xp[i] += h
			xm[i] -= h
			fp, _ := p.evaluate(xp, scratch)
			fm, _ := p.evaluate(xm, scratch)
			fd := (fp - fm) / (2 * h)
			if math.Abs(fd-grad[i]) > 1e-6*math.Max(1, math.Abs(grad[i])) {
				t.Errorf("%s: ∂f/∂x[%d] = %v, finite differences %v", name, i, grad[i], fd)
			}
		}
		if checked == 0 {
			t.Errorf("%s: no variable checked", name)
		}
	}
}

// The sorted simplex threshold against bisection.
func TestSimplexThreshold(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 500; trial++ {
		v := make([]float64, 1+rng.IntN(12))
		total := 0.0
		for i := range v {
			v[i] = 5 * rng.Float64()
			total += v[i]
		}
		sum := rng.Float64() * total
		theta := simplexThreshold(slices.Clone(v), sum, total)
		got := 0.0
		for _, u := range v {
			got += math.Max(0, u-theta)
		}
		if math.Abs(got-sum) > 1e-9*math.Max(1, sum) {
			t.Fatalf("v %v, sum %v: θ %v leaves %v", v, sum, theta, got)
		}
	}
}

// The gap rule ends a projection with the duality gap within Gap·|f|,
// and under the same weights the next projection, starting where that
// one ended, takes no step; a gap that small is near the optimum: the
// projected counts are the tight projection's within it.
func TestGapRuleStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	corpus := randomCorpus(rng, 4, 60, 7)
	w := randomModel(rng, 4)
	estep := dmv.NewEStepper(corpus)
	tight, err := New(corpus, Options{Sigma: 1.5, Rule: Exact, Tol: 1e-12, MaxSteps: 2000})
	if err != nil {
		t.Fatal(err)
	}
	want, err := tight.EStep(estep, w, dmv.EStepOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, gap := range []float64{1e-2, 1e-4, 1e-6} {
		p, err := New(corpus, Options{Sigma: 1.5, Gap: gap})
		if err != nil {
			t.Fatal(err)
		}
		if p.opts.DualRule() != Exact {
			t.Fatalf("gap %v: the rule is %q, want the exact rule", gap, p.opts.DualRule())
		}
		first, err := p.EStep(estep, w, dmv.EStepOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		sp := p.prob.(*sparsityProblem)
		grad := make([]float64, len(p.dual))
		f, _ := sp.evaluate(p.dual, grad)
		if g := sp.gap(p.dual, grad); first.Steps == 0 || !first.Converged || g > gap*math.Abs(f) {
			t.Errorf("gap %v: %d steps, converged %v, gap %v > %v", gap, first.Steps, first.Converged, g, gap*math.Abs(f))
		}
		again, err := p.EStep(estep, w, dmv.EStepOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if again.Steps != 0 || again.Evaluations != 1 {
			t.Errorf("gap %v: the same weights again took %d steps, %d E-steps", gap, again.Steps, again.Evaluations)
		}
		if gap == 1e-6 {
			for k, tab := range first.Counts.Tables() {
				for i, c := range tab {
					if d := math.Abs(c - want.Counts.Tables()[k][i]); d > 1e-2*math.Max(1, c) {
						t.Errorf("gap %v: table %d entry %d: %v, the tight projection's %v", gap, k, i, c, want.Counts.Tables()[k][i])
					}
				}
			}
		}
	}
	if _, err := New(corpus, Options{Sigma: 1, Gap: 1e-3, Rule: Interleaved}); err == nil {
		t.Error("the gap rule with the interleaved rule: no error")
	}
}

// After a projection the dual's optimality conditions hold: for the
// rules, λ = 0 and E_q ≤ b, or λ > 0 and E_q = b; for sparsity, every
// type within σ, and a type's positive λ only on instances whose
// posterior is the type's largest, its λ summing to σ when the penalty
// binds.
func TestProjectionReachesTheOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	corpus := randomCorpus(rng, 4, 40, 7)
	w := randomModel(rng, 4)
	for _, share := range []float64{0.3, 0.95} {
		rules := NewRules("test", [][2]string{{Root, "A"}, {"A", "B"}, {"B", "C"}, {"D", "A"}, {"A", "D"}})
		p, err := New(corpus, Options{Rules: rules, RuleShare: share, Tol: 1e-12, MaxSteps: 500})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.EStep(dmv.NewEStepper(corpus), w, dmv.EStepOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		rp := p.prob.(*ruleProblem)
		e := nonRuleCount(res.Counts, rp.mask)
		lambda := p.Dual()[0]
		switch {
		case lambda == 0 && e > rp.b*(1+1e-6):
			t.Errorf("τ %v: λ = 0 with E_q[no rule] %v > b %v", share, e, rp.b)
		case lambda == rp.cap && e < rp.b:
			t.Errorf("τ %v: λ at its cap with E_q[no rule] %v < b %v", share, e, rp.b)
		case lambda > 0 && lambda < rp.cap && math.Abs(e-rp.b) > 1e-4*rp.b:
			t.Errorf("τ %v: λ = %v with E_q[no rule] %v ≠ b %v", share, lambda, e, rp.b)
		}
		if share == 0.95 && lambda == 0 {
			t.Errorf("τ 0.95: the constraint should bind")
		}
	}
	p, err := New(corpus, Options{Sigma: 1.5, Rule: Exact, Tol: 1e-12, MaxSteps: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.EStep(dmv.NewEStepper(corpus), w, dmv.EStepOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	checkSparsityOptimum(t, p)
}

// checkSparsityOptimum checks the sparsity dual's optimality conditions
// at p's dual: every type within σ, a type's positive λ only on instances
// whose posterior is the type's largest, and some type binding.
func checkSparsityOptimum(t *testing.T, p *Projector) {
	t.Helper()
	sp := p.prob.(*sparsityProblem)
	x := p.Dual()
	grad := make([]float64, len(x))
	sp.evaluate(x, grad)
	binding := 0
	for ty := 0; ty+1 < len(sp.typeStart); ty++ {
		vars := sp.typeVars[sp.typeStart[ty]:sp.typeStart[ty+1]]
		sum, maxE := 0.0, 0.0
		for _, k := range vars {
			sum += x[k]
			maxE = math.Max(maxE, -grad[k])
		}
		if sum > sp.sigma*(1+1e-9) {
			t.Errorf("type %d: Σλ = %v > σ", ty, sum)
		}
		if sum > sp.sigma*(1-1e-6) {
			binding++
		}
		for _, k := range vars {
			if x[k] > 1e-6 && -grad[k] < maxE-1e-3 {
				t.Errorf("type %d: λ %v on an instance of posterior %v, below the type's max %v", ty, x[k], -grad[k], maxE)
			}
		}
	}
	if binding == 0 {
		t.Errorf("no type's penalty binds at σ = %v", sp.sigma)
	}
}

// EM for PR climbs its objective: the projected E-step's dual value never
// decreases from one iteration to the next (projections solved tightly).
func TestEMForPRNeverDecreases(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	corpus := randomCorpus(rng, 4, 60, 8)
	rules := NewRules("test", [][2]string{{Root, "A"}, {"A", "B"}, {"B", "C"}, {"D", "A"}})
	for _, opts := range []Options{
		{Rules: rules, RuleShare: 0.9, Tol: 1e-12, MaxSteps: 500},
		{Sigma: 3, Rule: Exact, Tol: 1e-12, MaxSteps: 1000},
	} {
		p, err := New(corpus, opts)
		if err != nil {
			t.Fatal(err)
		}
		model := randomModel(rng, 4)
		estep := dmv.NewEStepper(corpus)
		prev := math.Inf(-1)
		for it := 0; it < 15; it++ {
			res, err := p.EStep(estep, model, dmv.EStepOptions{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if res.Value < prev-1e-6*math.Abs(prev) {
				t.Errorf("%v: iteration %d: objective %v < %v", opts.Rules != nil, it, res.Value, prev)
			}
			prev = res.Value
			model = dmv.MStep(res.Counts, 0)
		}
	}
}

// A dual is taken back by the same constraint only: a table of rules
// whatever its file is called (a run resumed from another folder names
// it from there), never other pairs or settings, nor sparsity.
func TestSameConstraint(t *testing.T) {
	pairs := [][2]string{{Root, "VB"}, {"VB", "NN"}}
	describe := func(name string, pairs [][2]string, share float64) string {
		return Options{Rules: NewRules(name, pairs), RuleShare: share, RuleCap: DefaultRuleCap}.Describe()
	}
	base := describe("rules.txt", pairs, 0.8)
	for _, tc := range []struct {
		other string
		same  bool
	}{
		{describe("rules.txt", pairs, 0.8), true},
		{describe("/home/x/exp (1)/rules.txt", pairs, 0.8), true},
		{describe("rules.txt", pairs[:1], 0.8), false},
		{describe("rules.txt", pairs, 0.9), false},
		{Options{Sigma: 1}.Describe(), false},
	} {
		if got := sameConstraint(base, tc.other); got != tc.same {
			t.Errorf("sameConstraint(%q, %q) = %v", base, tc.other, got)
		}
	}
}

// Sparsity's projections stop by the gap DefaultGap unless a rule, a
// tolerance or a gap is given; the rules' by the tolerance.
func TestDefaultStoppingRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	corpus := randomCorpus(rng, 3, 10, 6)
	rules := NewRules("test", [][2]string{{Root, "A"}, {"A", "B"}})
	for _, c := range []struct {
		opts     Options
		rule     DualRule
		tol, gap float64
	}{
		{Options{Sigma: 10}, Exact, DefaultTol, DefaultGap},
		{Options{Sigma: 10, Rule: Exact}, Exact, DefaultTol, 0},
		{Options{Sigma: 10, Tol: 1e-3}, Exact, 1e-3, 0},
		{Options{Sigma: 10, Gap: 1e-2}, Exact, DefaultTol, 1e-2},
		{Options{Sigma: 10, Rule: Interleaved}, Interleaved, DefaultTol, 0},
		{Options{Rules: rules, RuleShare: 0.8}, Exact, DefaultTol, 0},
	} {
		p, err := New(corpus, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.opts.DualRule(); got != c.rule || p.solver.Tol != c.tol || p.solver.Gap != c.gap {
			t.Errorf("%+v: rule %s, tol %v, gap %v; want %s, %v, %v", c.opts, got, p.solver.Tol, p.solver.Gap, c.rule, c.tol, c.gap)
		}
	}
}

// The duality gap is one stopping rule of the exact rule: New refuses it
// beside a tolerance or with the interleaved rule, whoever builds the
// options.
func TestGapRefusedWithAnotherRule(t *testing.T) {
	corpus := randomCorpus(rand.New(rand.NewPCG(19, 21)), 3, 10, 6)
	for _, opts := range []Options{
		{Sigma: 10, Gap: 1e-2, Tol: 1e-3},
		{Sigma: 10, Gap: 1e-2, Rule: Interleaved},
	} {
		if _, err := New(corpus, opts); err == nil || !strings.Contains(err.Error(), "duality gap") {
			t.Errorf("%+v: error %v", opts, err)
		}
	}
}

// The interleaved rule's objective F(q, θ) never decreases from one
// iteration to the next, and it is a lower bound: never above J(θ), the
// dual's minimum, which a tight exact projection at the same model
// reaches from above. A wrong duality gap would break the bound.
func TestInterleavedNeverDecreases(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	corpus := randomCorpus(rng, 4, 60, 8)
	rules := NewRules("test", [][2]string{{Root, "A"}, {"A", "B"}, {"B", "C"}, {"D", "A"}})
	for _, opts := range []Options{
		{Sigma: 3, Rule: Interleaved},
		{Sigma: 1, Grouped: true, Root: true, Rule: Interleaved},
		{Rules: rules, RuleShare: 0.9, Rule: Interleaved},
	} {
		p, err := New(corpus, opts)
		if err != nil {
			t.Fatal(err)
		}
		model := randomModel(rng, 4)
		estep := dmv.NewEStepper(corpus)
		prev, fallbacks := math.Inf(-1), 0
		for it := 0; it < 30; it++ {
			res, err := p.EStep(estep, model, dmv.EStepOptions{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if res.Value < prev-1e-12*math.Abs(prev) {
				t.Errorf("%s: iteration %d: objective %v < %v", opts.Describe(), it, res.Value, prev)
			}
			if res.Evaluations > 1 {
				fallbacks++
			}
			prev = res.Value
			if it%6 != 5 {
				model = dmv.MStep(res.Counts, 0)
				continue
			}
			tight := opts
			tight.Rule, tight.Tol, tight.MaxSteps = Exact, 1e-12, 1000
			exact, err := New(corpus, tight)
			if err != nil {
				t.Fatal(err)
			}
			j, err := exact.EStep(dmv.NewEStepper(corpus), model, dmv.EStepOptions{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if res.Value > j.Value+1e-9*math.Abs(j.Value) {
				t.Errorf("%s: iteration %d: F = %v above the dual's minimum %v", opts.Describe(), it, res.Value, j.Value)
			}
			model = dmv.MStep(res.Counts, 0)
		}
		t.Logf("%s: %d of 30 iterations fell back to line-searched steps", opts.Describe(), fallbacks)
	}
}

// At a fixed model the interleaved rule's E-steps are projected gradient
// on the dual: they reach the projection the exact rule solves (whose
// posteriors TestSparsityPosteriorsMatchEnumeration checks), the duality
// gap closing and the dual's optimality conditions holding.
func TestInterleavedReachesTheProjection(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	corpus := randomCorpus(rng, 4, 30, 7)
	w := randomModel(rng, 4)
	exact, err := New(corpus, Options{Sigma: 1.5, Rule: Exact, Tol: 1e-14, MaxSteps: 5000})
	if err != nil {
		t.Fatal(err)
	}
	want, err := exact.EStep(dmv.NewEStepper(corpus), w, dmv.EStepOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(corpus, Options{Sigma: 1.5, Rule: Interleaved})
	if err != nil {
		t.Fatal(err)
	}
	estep := dmv.NewEStepper(corpus)
	var res Result
	for range 400 {
		if res, err = p.EStep(estep, w, dmv.EStepOptions{Workers: 2}); err != nil {
			t.Fatal(err)
		}
	}
	if gap := want.Value - res.Value; !(gap >= 0 && gap < 1e-6*math.Abs(want.Value)) {
		t.Errorf("F = %v, J = %v: gap %v", res.Value, want.Value, gap)
	}
	checkSparsityOptimum(t, p)
	got, exp := res.Counts.Tables(), want.Counts.Tables()
	for k := range got {
		for i := range got[k] {
			if math.Abs(got[k][i]-exp[k][i]) > 1e-5*(1+exp[k][i]) {
				t.Fatalf("table %d entry %d: count %v, the exact projection's %v", k, i, got[k][i], exp[k][i])
			}
		}
	}
}

// Weights that lower every tree's score (an annealer's next stage) lower
// the F the interleaved rule must reach to its last q's F under them: no
// fallback chases the old stage's F, which no q reaches (J is lower).
func TestInterleavedTargetFollowsTheWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	corpus := randomCorpus(rng, 4, 40, 7)
	p, err := New(corpus, Options{Sigma: 2, Rule: Interleaved})
	if err != nil {
		t.Fatal(err)
	}
	model := randomModel(rng, 4)
	estep := dmv.NewEStepper(corpus)
	var res Result
	for range 5 {
		if res, err = p.EStep(estep, model, dmv.EStepOptions{Workers: 2}); err != nil {
			t.Fatal(err)
		}
		model = dmv.MStep(res.Counts, 0)
	}
	before := res.Value
	halved := model.Clone()
	for _, tab := range halved.Tables() {
		for i := range tab {
			tab[i] /= 2
		}
	}
	if res, err = p.EStep(estep, halved, dmv.EStepOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	if !(res.Value < before) || res.Evaluations > 3 {
		t.Errorf("F %v after %v, %d E-steps: the fallback chased the old weights' F", res.Value, before, res.Evaluations)
	}
}

// Under the rules' dual a model that learns its back-off still has its
// attachment counts split between the full and the back-off
// distribution, each in its share of the weight (the factor e^{−λ}
// scales both): the learned back-off's M-step gets its choices.
func TestRulesKeepTheBackoffSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	corpus := randomCorpus(rng, 3, 10, 6)
	w := dmv.StartBackoff(randomValenceModel(rng, 3, dmv.Valence{Stop: 2, Child: 2}), dmv.DefaultLearnedBackoff)
	rp := newRuleProblem(corpus, Options{Rules: NewRules("test", [][2]string{{Root, "A"}, {"A", "B"}}), RuleShare: 0.7})
	rp.set(dmv.NewEStepper(corpus), w, dmv.EStepOptions{Workers: 2})
	grad := make([]float64, 1)
	if _, err := rp.evaluate([]float64{1.3}, grad); err != nil {
		t.Fatal(err)
	}
	c := rp.pending.Counts
	if c.Backoff == nil {
		t.Fatal("no back-off choices in the projected counts")
	}
	for i, n := range c.Child {
		if n == 0 {
			continue
		}
		if got, want := c.Backoff[i]/n, w.Backoff[i]/w.Child[i]; math.Abs(got-want) > 1e-12 {
			t.Fatalf("child %d: back-off share %v of its count, %v of its weight", i, got, want)
		}
	}
}

// The factors' exponentials are math.Exp's bits whichever way expNeg
// takes them — eight at a time on the lanes, a tail shorter than eight,
// eight with a λ beyond the lanes' range (e^{−800} is subnormal: math.Exp's
// own care), λ = 0 — at every length up to 40.
func TestExpNegBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for n := range 40 {
		x := make([]float64, n)
		for i := range x {
			switch rng.IntN(6) {
			case 0:
				x[i] = 0
			case 1:
				x[i] = 800 * rng.Float64()
			default:
				x[i] = 20 * rng.Float64()
			}
		}
		for _, lanes := range []bool{false, true} {
			old := expLanes
			expLanes = lanes && old
			got := make([]float64, n)
			expNeg(got, x)
			expLanes = old
			for i, l := range x {
				if want := math.Exp(-l); math.Float64bits(got[i]) != math.Float64bits(want) {
					t.Fatalf("length %d, lanes %v: e^−%v = %v, math.Exp %v", n, lanes, l, got[i], want)
				}
			}
		}
	}
}
