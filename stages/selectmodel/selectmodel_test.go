package selectmodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/pr"
	"github.com/grind-nlp/grind/stages/score"
)

var tagNames = []string{"A", "B", "C", "D"}

// fixture writes a dev set sampled from a random DMV and three models:
// that DMV itself ("true"), the supervised estimate from the dev trees
// ("gold", add-0.1), and a uniform model ("uniform").
func fixture(t *testing.T) (dir string, dev []*format.Sentence, truth *dmv.Params) {
	t.Helper()
	dir = t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	truth = dmv.NewParams(len(tagNames))
	for _, tab := range truth.Tables() {
		for i := range tab {
			tab[i] = rng.ExpFloat64()
		}
	}
	truth = dmv.MStep(truth, 0)
	var b bytes.Buffer
	for len(dev) < 300 {
		tg, heads, ok := dmv.Sample(rng, truth, 40)
		if !ok {
			continue
		}
		s := &format.Sentence{ID: fmt.Sprint(len(dev) + 1), Heads: heads}
		for _, x := range tg {
			s.Tags = append(s.Tags, tagNames[x])
		}
		dev = append(dev, s)
		pipeline.WriteRecord(&b, s)
	}
	write(t, dir, "dev.jsonl", b.Bytes())
	ts := dmv.NewTagSet(tagNames...)
	corpus, err := dmv.NewCorpus(dev, ts)
	if err != nil {
		t.Fatal(err)
	}
	gold := dmv.NewEStepper(corpus).Run(truth, dmv.EStepOptions{Gold: true}).Counts
	uniform := dmv.MStep(dmv.NewParams(len(tagNames)), 1)
	for name, p := range map[string]*dmv.Params{"true": truth, "gold": dmv.MStep(gold, 0.1), "uniform": uniform} {
		var m bytes.Buffer
		if err := dmv.WriteTable(&m, ts, p, format.Prob, nil); err != nil {
			t.Fatal(err)
		}
		write(t, dir, name+".jsonl", m.Bytes())
	}
	return dir, dev, truth
}

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runJSON(t *testing.T, opts Options) []Row {
	t.Helper()
	opts.JSON = true
	var out bytes.Buffer
	if _, err := Run(&out, opts); err != nil {
		t.Fatal(err)
	}
	var rows []Row
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var r Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		rows = append(rows, r)
	}
	return rows
}

func models(dir string, names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, filepath.Join(dir, n+".jsonl"))
	}
	return out
}

func TestSelectRanksByLikelihoodAndAccuracy(t *testing.T) {
	dir, dev, truth := fixture(t)
	src := pipeline.Source{Names: []string{filepath.Join(dir, "dev.jsonl")}}
	candidates := models(dir, "uniform", "true", "gold")

	rows := runJSON(t, Options{Dev: src, Models: candidates, By: Likelihood})
	// The log-likelihood is the plain DMV's: check the true model's.
	ll := 0.0
	c := dmv.NewChart(10)
	for _, s := range dev {
		tags, _ := dmv.NewTagSet(tagNames...).Encode(s.Tags, nil)
		c.Load(tags, truth, nil)
		ll += c.Inside()
	}
	var trueRow Row
	for _, r := range rows {
		if strings.HasSuffix(r.Model, "true.jsonl") {
			trueRow = r
		}
	}
	if math.Abs(float64(trueRow.LogLik)-ll) > 1e-9*math.Abs(ll) {
		t.Fatalf("log-likelihood of the true model %v, want %v", float64(trueRow.LogLik), ll)
	}
	if last := rows[len(rows)-1]; !strings.HasSuffix(last.Model, "uniform.jsonl") {
		t.Fatalf("the uniform model should rank last by likelihood, not %s", last.Model)
	}
	for i, r := range rows {
		if r.Rank != i+1 || (i > 0 && r.LogLik > rows[i-1].LogLik) {
			t.Fatalf("rows not ranked by likelihood: %+v", rows)
		}
	}

	rows = runJSON(t, Options{Dev: src, Models: candidates, By: Accuracy, Root: score.RootExcluded})
	if !strings.HasSuffix(rows[0].Model, "gold.jsonl") && !strings.HasSuffix(rows[0].Model, "true.jsonl") {
		t.Fatalf("a model close to the gold trees should win by accuracy, not %s", rows[0].Model)
	}
	for i, r := range rows {
		if r.Directed != r.Excluded.Directed.F1 || (i > 0 && r.Directed > rows[i-1].Directed) {
			t.Fatalf("rows not ranked by root-excluded directed accuracy: %+v", rows)
		}
	}
}

// Ties keep the given order; the best model is written out; and a dev
// sentence with an unknown tag is parsed but left out of every model's
// log-likelihood.
func TestSelectTiesBestAndUnknownTags(t *testing.T) {
	dir, _, _ := fixture(t)
	data, _ := os.ReadFile(filepath.Join(dir, "dev.jsonl"))
	data = append(data, []byte(`{"tags":["A","Z"],"heads":[0,1]}`+"\n")...)
	dev := write(t, dir, "dev2.jsonl", data)
	same := write(t, dir, "copy.jsonl", mustRead(t, filepath.Join(dir, "true.jsonl")))
	best := filepath.Join(dir, "best.jsonl.gz")
	var out bytes.Buffer
	bestOut := create(t, best)
	rep, err := Run(&out, Options{Dev: pipeline.Source{Names: []string{dev}}, Models: []string{same, filepath.Join(dir, "true.jsonl")}, By: Likelihood, Best: bestOut})
	if err == nil {
		err = bestOut.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	if rep.Best.Model != same || rep.Unscorable != 1 || rep.Best.LogLikSentences != 300 || rep.Best.Sentences != 301 {
		t.Fatalf("report %+v", rep)
	}
	table := out.String()
	if !strings.Contains(table, "over the 300 sentences whose tags every model knows") || !strings.Contains(table, "   1  ") {
		t.Fatalf("table:\n%s", table)
	}
	got, err := dmv.ReadModel(best)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := dmv.ReadModel(same)
	for k, tab := range got.Params.Tables() {
		for i, v := range tab {
			if v != want.Params.Tables()[k][i] {
				t.Fatal("--best differs from the winning model")
			}
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSelectErrors(t *testing.T) {
	dir, _, _ := fixture(t)
	nogold := write(t, dir, "nogold.jsonl", []byte(`{"tags":["A","B"]}`+"\n"))
	counts := write(t, dir, "counts.jsonl", []byte(`{"ev":"root","arg":"A","n":1}`+"\n"+`{"ev":"stats","sentences":1,"tokens":1,"loglik":0}`+"\n"))
	for name, opts := range map[string]Options{
		"accuracy without gold": {Dev: pipeline.Source{Names: []string{nogold}}, Models: models(dir, "true"), By: Accuracy},
		"no models":             {Dev: pipeline.Source{Names: []string{nogold}}, By: Likelihood},
		"a count file":          {Dev: pipeline.Source{Names: []string{nogold}}, Models: []string{counts}, By: Likelihood},
		"a missing model":       {Dev: pipeline.Source{Names: []string{nogold}}, Models: models(dir, "nope"), By: Likelihood},
	} {
		if _, err := Run(&bytes.Buffer{}, opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Without gold, unsupervised selection works and leaves accuracy out.
	rows := runJSON(t, Options{Dev: pipeline.Source{Names: []string{nogold}}, Models: models(dir, "true", "uniform"), By: Likelihood})
	if rows[0].Heads != nil || len(rows) != 2 {
		t.Fatalf("rows %+v", rows)
	}
}

// Unsmoothed models give unseen dev events probability 0: they rank below
// every model that does not, fewer such sentences first, then by the
// log-likelihood of the other sentences.
func TestSelectRanksZeroProbabilityModelsLast(t *testing.T) {
	dir, dev, _ := fixture(t)
	ts := dmv.NewTagSet(tagNames...)
	var names []string
	for _, part := range []struct {
		name string
		n    int
	}{{"from8", 8}, {"from40", 40}} {
		corpus, err := dmv.NewCorpus(dev[:part.n], ts)
		if err != nil {
			t.Fatal(err)
		}
		ones := dmv.NewParams(len(tagNames))
		ones.Fill(1)
		counts := dmv.NewEStepper(corpus).Run(ones, dmv.EStepOptions{Gold: true}).Counts
		var m bytes.Buffer
		if err := dmv.WriteTable(&m, ts, dmv.MStep(counts, 0), format.Prob, nil); err != nil {
			t.Fatal(err)
		}
		names = append(names, write(t, dir, part.name+".jsonl", m.Bytes()))
	}
	rows := runJSON(t, Options{Dev: pipeline.Source{Names: []string{filepath.Join(dir, "dev.jsonl")}},
		Models: append(names, models(dir, "uniform")...), By: Likelihood})
	got := []string{filepath.Base(rows[0].Model), filepath.Base(rows[1].Model), filepath.Base(rows[2].Model)}
	if got[0] != "uniform.jsonl" || got[1] != "from40.jsonl" || got[2] != "from8.jsonl" {
		t.Fatalf("order %v; zero-probability sentences %d %d %d", got, rows[0].ZeroProbability, rows[1].ZeroProbability, rows[2].ZeroProbability)
	}
	if !math.IsInf(float64(rows[1].LogLik), -1) || rows[1].ZeroProbability == 0 || rows[1].ZeroProbability >= rows[2].ZeroProbability ||
		math.IsInf(float64(rows[1].LogLikNonzero), 0) {
		t.Fatalf("rows %+v", rows)
	}
}

// A log-linear model (train-ce's "w") is ranked by dev accuracy as the
// probability model it equals (weights = log-probabilities) is, --best
// keeps its weights, and --by likelihood refuses it: its trees' scores
// are no probabilities.
func TestSelectLogLinearModels(t *testing.T) {
	dir, _, truth := fixture(t)
	ts := dmv.NewTagSet(tagNames...)
	w := truth.Clone()
	for _, tab := range w.Tables() {
		for i, v := range tab {
			tab[i] = math.Log(v)
		}
	}
	var m bytes.Buffer
	if err := dmv.WriteTable(&m, ts, w, format.Weight, nil); err != nil {
		t.Fatal(err)
	}
	weights := write(t, dir, "weights.jsonl", m.Bytes())
	src := pipeline.Source{Names: []string{filepath.Join(dir, "dev.jsonl")}}
	best := filepath.Join(dir, "best.jsonl")
	var out bytes.Buffer
	bestOut := create(t, best)
	if _, err := Run(&out, Options{Dev: src, Models: append([]string{weights}, models(dir, "uniform")...), By: Accuracy, Best: bestOut, JSON: true}); err != nil {
		t.Fatal(err)
	}
	if err := bestOut.Commit(); err != nil {
		t.Fatal(err)
	}
	rows := runJSON(t, Options{Dev: src, Models: []string{weights, filepath.Join(dir, "true.jsonl")}, By: Accuracy})
	if filepath.Base(rows[0].Model) != "weights.jsonl" || rows[0].Counted.Directed != rows[1].Counted.Directed ||
		!rows[0].LogLinear || rows[1].LogLinear || rows[0].DevLikelihood != nil {
		t.Fatalf("the weights of the true model and the true model rank %+v, %+v", rows[0], rows[1])
	}
	if got := mustRead(t, best); !bytes.Equal(got, m.Bytes()) {
		t.Fatalf("--best wrote\n%s\nnot the weights model", got)
	}
	_, err := Run(&bytes.Buffer{}, Options{Dev: src, Models: []string{weights}, By: Likelihood})
	if err == nil || !strings.Contains(err.Error(), "--by accuracy") {
		t.Fatalf("--by likelihood of a log-linear model: %v", err)
	}
}

// --by rules ranks by the share of the dev parses' dependencies that are
// rules: every pair a rule makes every share 1 (then the likelihood
// decides); only ROOT → tag rules make the share the roots' share, one per
// sentence; the gold trees' own pairs favour the model that parses like
// them (the true DMV over the uniform one).
func TestSelectByRules(t *testing.T) {
	dir, dev, _ := fixture(t)
	src := pipeline.Source{Names: []string{filepath.Join(dir, "dev.jsonl")}}
	candidates := models(dir, "uniform", "true")
	var all, roots, gold [][2]string
	tokens := 0
	for _, s := range dev {
		tokens += len(s.Tags)
		for d, h := range s.Heads {
			head := pr.Root
			if h > 0 {
				head = s.Tags[h-1]
			}
			gold = append(gold, [2]string{head, s.Tags[d]})
		}
	}
	for _, d := range tagNames {
		roots = append(roots, [2]string{pr.Root, d})
		all = append(all, [2]string{pr.Root, d})
		for _, h := range tagNames {
			all = append(all, [2]string{h, d})
		}
	}
	rows := runJSON(t, Options{Dev: src, Models: candidates, By: Rules, Rules: pr.NewRules("all", all)})
	if *rows[0].RuleShare != 1 || *rows[1].RuleShare != 1 || rows[0].Model != candidates[1] {
		t.Errorf("all pairs: shares %v %v, first %s; want 1, 1 and the likelier true model first", *rows[0].RuleShare, *rows[1].RuleShare, rows[0].Model)
	}
	rows = runJSON(t, Options{Dev: src, Models: candidates, By: Rules, Rules: pr.NewRules("roots", roots)})
	for _, r := range rows {
		if want := float64(len(dev)) / float64(tokens); math.Abs(*r.RuleShare-want) > 1e-12 {
			t.Errorf("roots only: %s has share %v, want %v", r.Model, *r.RuleShare, want)
		}
	}
	// Few tags: the gold trees use nearly every pair; keep the pairs of
	// one direction's worth by dropping those the gold trees use least.
	rows = runJSON(t, Options{Dev: src, Models: candidates, By: Rules, Rules: pr.NewRules("gold", gold[:len(gold)/3])})
	if rows[0].Model != candidates[1] || *rows[0].RuleShare <= *rows[1].RuleShare {
		t.Errorf("gold pairs: %s first with share %v (then %v); want the true model first", rows[0].Model, *rows[0].RuleShare, *rows[1].RuleShare)
	}
	if _, err := Run(&bytes.Buffer{}, Options{Dev: src, Models: candidates, By: Rules}); err == nil {
		t.Error("--by rules without rules: no error")
	}
}

// create opens an output as select-model's --best does (compressed as its
// name says); the test commits it.
func create(t *testing.T, path string) *pipeline.Output {
	t.Helper()
	o, err := pipeline.Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(o.Abort)
	return o
}
