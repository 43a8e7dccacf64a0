package dmv

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mathext"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/brute"
)

// vbTerms computes the variational bound of the E-step on weights w and
// the VB M-step on its counts term by term, by enumerating every tree of
// every sentence, with the Dirichlet expectations in closed form:
//
//	E_q[log p(x, z | θ)] + E_q[log p(θ)] − E_q[log q(z)] − E_q[log q(θ)],
//
// q(z) ∝ Π w^f(z) sentence by sentence and q(θ) = Dir(c + α), c the
// expected counts of q(z). Nothing of VBBound's closed form is used.
func vbTerms(sents [][]int, tags int, w *Params, alpha float64) (bound float64, counts *Params) {
	type tree struct {
		events [][2]int // (table, index) of each event
		logq   float64
	}
	counts = NewParams(tags)
	cTabs := counts.Tables()
	var all [][]tree
	for _, x := range sents {
		var trees []tree
		logZ := math.Inf(-1)
		for _, heads := range brute.ProjectiveTrees(len(x)) {
			var tr tree
			eachTreeEvent(x, heads, counts, func(table, i int) { tr.events = append(tr.events, [2]int{table, i}) })
			tr.logq = TreeLogWeight(x, heads, w)
			logZ = logAdd(logZ, tr.logq)
			trees = append(trees, tr)
		}
		for k := range trees {
			trees[k].logq -= logZ
			for _, e := range trees[k].events {
				cTabs[e[0]][e[1]] += math.Exp(trees[k].logq)
			}
		}
		all = append(all, trees)
	}
	// q(θ) = Dir(u), u = c + α; elog[table][i] = E[log θ_i] = ψ(u_i) − ψ(U).
	u := counts.Clone()
	for _, tab := range u.Tables() {
		for i := range tab {
			tab[i] += alpha
		}
	}
	uTabs := u.Tables()
	elog := NewParams(tags)
	eTabs := elog.Tables()
	var groups [][][2]int // the multinomials, as (table, index) lists
	root := [][2]int{}
	for a := 0; a < tags; a++ {
		root = append(root, [2]int{0, a})
	}
	groups = append(groups, root)
	for hd := 0; hd < 2*tags; hd++ {
		var g [][2]int
		for a := 0; a < tags; a++ {
			g = append(g, [2]int{1, hd*tags + a})
		}
		groups = append(groups, g)
	}
	for i := 0; i < 4*tags; i++ {
		groups = append(groups, [][2]int{{2, i}, {3, i}})
	}
	lgA, _ := math.Lgamma(alpha)
	for _, g := range groups {
		U := 0.0
		for _, e := range g {
			U += uTabs[e[0]][e[1]]
		}
		psiU := mathext.Digamma(U)
		lgU, _ := math.Lgamma(U)
		lgKA, _ := math.Lgamma(float64(len(g)) * alpha)
		logPrior, logPost := lgKA-float64(len(g))*lgA, lgU // E log p(θ), E log q(θ)
		for _, e := range g {
			ui := uTabs[e[0]][e[1]]
			el := mathext.Digamma(ui) - psiU
			eTabs[e[0]][e[1]] = el
			lgu, _ := math.Lgamma(ui)
			logPrior += (alpha - 1) * el
			logPost += -lgu + (ui-1)*el
		}
		bound += logPrior - logPost
	}
	for _, trees := range all {
		for _, tr := range trees {
			q := math.Exp(tr.logq)
			joint := 0.0 // log p(x, z | θ) in expectation
			for _, e := range tr.events {
				joint += eTabs[e[0]][e[1]]
			}
			bound += q * (joint - tr.logq)
		}
	}
	return bound, counts
}

// VBBound, from the chart's counts and log Z̃, is the variational bound
// the enumeration of every tree gives term by term (to 1e-9), for weights
// that are θ̃, a normalised model, or neither; and VariationalBayes is
// exp ψ(c + α) − ψ(Σ(c + α)) entry by entry.
func TestVBBoundAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 20))
	const tags = 3
	var sents [][]int
	var recs []*format.Sentence
	names := []string{"A", "B", "C"}
	for k := 0; k < 12; k++ {
		n := 1 + rng.IntN(5)
		x := make([]int, n)
		s := &format.Sentence{}
		for i := range x {
			x[i] = rng.IntN(tags)
			s.Tags = append(s.Tags, names[x[i]])
		}
		sents = append(sents, x)
		recs = append(recs, s)
	}
	recs = append(recs, &format.Sentence{Tags: names}) // every tag, so the corpus's tag numbers are the test's
	sents = append(sents, []int{0, 1, 2})
	c, err := NewCorpus(recs, NewTagSet(names...))
	if err != nil {
		t.Fatal(err)
	}
	for _, alpha := range []float64{0.01, 0.3, 1, 4.5} {
		raw := randomWeights(rng, tags, false)
		weights := map[string]*Params{
			"random weights": raw,
			"normalised":     MStep(raw, 0),
			"theta-tilde":    VariationalBayes(raw, alpha),
		}
		for name, w := range weights {
			want, wantCounts := vbTerms(sents, tags, w, alpha)
			res := NewEStepper(c).Run(w, EStepOptions{})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			for k, tab := range res.Counts.Tables() {
				for i, v := range tab {
					if d := math.Abs(v - wantCounts.Tables()[k][i]); d > 1e-9 {
						t.Fatalf("α=%v %s: count %d/%d %v, enumeration %v", alpha, name, k, i, v, wantCounts.Tables()[k][i])
					}
				}
			}
			got, err := VBBound(res.LogLik, res.Counts, w, alpha)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(got - want); d > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("α=%v %s: VBBound %.15g, enumeration %.15g (differ by %.3g)", alpha, name, got, want, d)
			}
		}
		counts := randomWeights(rng, tags, false)
		theta := VariationalBayes(counts, alpha)
		tot := 0.0
		for _, v := range counts.Root {
			tot += v + alpha
		}
		for a, v := range counts.Root {
			if want := math.Exp(mathext.Digamma(v+alpha) - mathext.Digamma(tot)); math.Abs(theta.Root[a]-want) > 1e-15 {
				t.Errorf("α=%v: root %d weight %v, want %v", alpha, a, theta.Root[a], want)
			}
		}
		if err := CheckSubDistribution(NewTagSet(names...), theta); err != nil {
			t.Errorf("α=%v: %v", alpha, err)
		}
		if err := CheckDistribution(NewTagSet(names...), theta); err == nil {
			t.Errorf("α=%v: θ̃ passes as a normalised model", alpha)
		}
	}
}

// With one token per sentence there is nothing hidden, and the bound is
// the exact log marginal likelihood: the Dirichlet-multinomial
// probability of the root and stop events (the DESIGN.md formula, which
// adds log Z̃ to it without taking Σ c·log w away, is not).
func TestVBBoundIsTheEvidenceWithoutHiddenStructure(t *testing.T) {
	names := []string{"A", "B"}
	recs := []*format.Sentence{{Tags: []string{"A"}}, {Tags: []string{"A"}}, {Tags: []string{"B"}}}
	c, err := NewCorpus(recs, NewTagSet(names...))
	if err != nil {
		t.Fatal(err)
	}
	const alpha = 0.5
	w := VariationalBayes(NewParams(2), alpha)
	res := NewEStepper(c).Run(w, EStepOptions{})
	got, err := VBBound(res.LogLik, res.Counts, w, alpha)
	if err != nil {
		t.Fatal(err)
	}
	// p(roots A, A, B) = B(α+2, α+1)/B(α, α); each A stops left and right
	// twice (Beta(α+2, α) / Beta(α, α)), each B once.
	lb := func(a, b float64) float64 {
		x, _ := math.Lgamma(a)
		y, _ := math.Lgamma(b)
		z, _ := math.Lgamma(a + b)
		return x + y - z
	}
	want := lb(alpha+2, alpha+1) - lb(alpha, alpha) +
		2*(lb(alpha+2, alpha)-lb(alpha, alpha)) + 2*(lb(alpha+1, alpha)-lb(alpha, alpha))
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("bound %.15g, log evidence %.15g", got, want)
	}
}
