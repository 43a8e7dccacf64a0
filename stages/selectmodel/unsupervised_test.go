package selectmodel

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/brute"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/pr"
)

// agreement's mean over the other models, worked by hand: parses a and
// a′ equal, b agreeing with them on 1 token of 4.
func TestAgreementByHand(t *testing.T) {
	a := [][]int{{0, 1}, {2, 0}}
	b := [][]int{{2, 0}, {2, 1}}
	got := agreement([][][]int{a, a, b})
	want := []float64{(1 + 0.25) / 2, (1 + 0.25) / 2, 0.25}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("model %d: agreement %v, want %v", i, got[i], want[i])
		}
	}
}

// --by agreement: a model given twice agrees fully with its copy, so it
// ranks above a third model; the rows carry the shares.
func TestSelectByAgreement(t *testing.T) {
	dir, _, _ := fixture(t)
	src := pipeline.Source{Names: []string{filepath.Join(dir, "dev.jsonl")}}
	candidates := models(dir, "uniform", "true", "true")
	rows := runJSON(t, Options{Dev: src, Models: candidates, By: Agreement})
	if rows[0].Model != candidates[1] || rows[1].Model != candidates[2] {
		t.Fatalf("ranked %s, %s, %s; want the true model's two copies first", rows[0].Model, rows[1].Model, rows[2].Model)
	}
	s := *rows[2].Agreement // the uniform model's: its share with either copy
	if want := (1 + s) / 2; math.Abs(*rows[0].Agreement-want) > 1e-12 {
		t.Errorf("a copy's agreement %v, want (1 + %v)/2", *rows[0].Agreement, s)
	}
	if _, err := Run(&bytes.Buffer{}, Options{Dev: src, Models: candidates[:1], By: Agreement}); err == nil {
		t.Error("--by agreement of one model: no error")
	}
}

// --by pr against brute force: on short sentences every projective tree
// is enumerated, and the PR objective min over λ ≥ 0 of
// Σ log Σ_z p(x, z) e^{−λ·#no rule(z)} + λ(1 − τ)N (convex in λ) is found
// by golden-section search; the dual's solver stops when its value moves
// by less than pr.DefaultTol relatively, so they agree to about that.
func TestSelectByPRObjectiveMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	ts := dmv.NewTagSet(tagNames...)
	w := dmv.NewParams(len(tagNames))
	for _, tab := range w.Tables() {
		for i := range tab {
			tab[i] = rng.ExpFloat64()
		}
	}
	w = dmv.MStep(w, 0)
	var m bytes.Buffer
	if err := dmv.WriteTable(&m, ts, w, format.Prob, nil); err != nil {
		t.Fatal(err)
	}
	model := write(t, dir, "m.jsonl", m.Bytes())
	var dev []*format.Sentence
	var b bytes.Buffer
	for i := range 8 {
		s := &format.Sentence{ID: fmt.Sprint(i + 1)}
		for range 1 + i%4 {
			s.Tags = append(s.Tags, tagNames[rng.IntN(len(tagNames))])
		}
		dev = append(dev, s)
		pipeline.WriteRecord(&b, s)
	}
	src := pipeline.Source{Names: []string{write(t, dir, "dev.jsonl", b.Bytes())}}
	rules := pr.NewRules("some", [][2]string{{pr.Root, "A"}, {pr.Root, "B"}, {"A", "B"}, {"B", "C"}, {"C", "D"}, {"D", "A"}, {"A", "A"}})
	for _, tau := range []float64{0, 0.3, 0.6, 0.9, 1} {
		rows := runJSON(t, Options{Dev: src, Models: []string{model}, By: PRObjective, Rules: rules, RuleShare: tau})
		got, want := float64(*rows[0].PRObjective), brutePRObjective(dev, ts, w, rules, tau)
		if math.Abs(got-want) > pr.DefaultTol*math.Abs(want) || got < want-1e-9 {
			t.Errorf("τ = %v: PR objective %.12g, enumeration %.12g", tau, got, want)
		}
		if ll := float64(rows[0].LogLik); got > ll+1e-9 || (tau == 0 && got != ll) {
			t.Errorf("τ = %v: PR objective %v, the log-likelihood %v", tau, got, ll)
		}
	}
}

func brutePRObjective(dev []*format.Sentence, ts *dmv.TagSet, w *dmv.Params, rules *pr.Rules, tau float64) float64 {
	type tree struct{ logP, noRule float64 }
	var trees [][]tree
	n := 0
	for _, s := range dev {
		tags := make([]int, len(s.Tags))
		for i, name := range s.Tags {
			tags[i], _ = ts.Index(name)
		}
		var ts []tree
		for _, heads := range brute.ProjectiveTrees(len(tags)) {
			k := 0.0
			for d, h := range heads {
				head := pr.Root
				if h > 0 {
					head = s.Tags[h-1]
				}
				if !rules.Allows(head, s.Tags[d]) {
					k++
				}
			}
			ts = append(ts, tree{dmv.TreeLogWeight(tags, heads, w), k})
		}
		trees = append(trees, ts)
		n += len(tags)
	}
	f := func(lambda float64) float64 {
		v := lambda * (1 - tau) * float64(n)
		for _, ts := range trees {
			z := 0.0
			for _, tr := range ts {
				z += math.Exp(tr.logP - lambda*tr.noRule)
			}
			v += math.Log(z)
		}
		return v
	}
	lo, hi := 0.0, float64(pr.DefaultRuleCap)
	g := (math.Sqrt(5) - 1) / 2
	for range 200 {
		a, b := hi-g*(hi-lo), lo+g*(hi-lo)
		if f(a) < f(b) {
			hi = b
		} else {
			lo = a
		}
	}
	return f((lo + hi) / 2)
}
