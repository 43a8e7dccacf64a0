package commands

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/stages/dmv"
)

// run runs a program in memory and fails the test unless it succeeds.
func run(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	var out, errs bytes.Buffer
	if code := program.Run(args[0], args, bytes.NewReader(stdin), &out, &errs); code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errs.String())
	}
	return out.Bytes()
}

// sampledCorpus writes a corpus drawn from a random DMV to dir and
// returns its path.
func sampledCorpus(t *testing.T, dir string, sentences int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(42, 1))
	tags := []string{"DT", "JJ", "NN", "VB", "IN", "RB"}
	p := dmv.NewParams(len(tags))
	for _, tab := range p.Tables() {
		for i := range tab {
			tab[i] = rng.ExpFloat64()
		}
	}
	p = dmv.MStep(p, 0)
	var b bytes.Buffer
	for k := 0; k < sentences; {
		tg, heads, ok := dmv.Sample(rng, p, 15)
		if !ok {
			continue
		}
		k++
		s := format.Sentence{ID: fmt.Sprintf("s%d", k), Heads: heads}
		for _, x := range tg {
			s.Tags = append(s.Tags, tags[x])
		}
		line, _ := format.Marshal(s)
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(dir, "corpus.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The shell loop "estep -m M | mstep > M" and train-em give the same
// model, byte for byte, after the same number of iterations.
func TestShellLoopEqualsTrainEM(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 500)
	model := run(t, nil, "dmv-init", "--init", "km", corpus)
	for i := 0; i < 10; i++ {
		counts := run(t, nil, "estep", "-m", writeTemp(t, dir, "model.jsonl", model), corpus)
		model = run(t, counts, "mstep")
	}
	trained := run(t, nil, "train-em", "--init", "km", "--max-iter", "10", "-q", corpus)
	if !bytes.Equal(model, trained) {
		t.Fatal("10 iterations of estep | mstep differ from train-em --max-iter 10")
	}
	hard := run(t, nil, "dmv-init", "--init", "uniform", corpus)
	for i := 0; i < 3; i++ {
		counts := run(t, nil, "estep", "--hard", "-m", writeTemp(t, dir, "model.jsonl", hard), corpus)
		hard = run(t, counts, "mstep", "--lambda", "1")
	}
	trained = run(t, nil, "train-em", "--init", "uniform", "--hard", "--lambda", "1", "--max-iter", "3", "-q", corpus)
	if !bytes.Equal(hard, trained) {
		t.Fatal("3 iterations of estep --hard | mstep --lambda 1 differ from train-em --hard")
	}
	// From zero, train-em's first iteration is the plain E-step on the
	// all-ones weights and its M-step, which is what dmv-init writes.
	zero := run(t, nil, "dmv-init", "--init", "zero", "--lambda", "0.5", corpus)
	for i := 0; i < 3; i++ {
		counts := run(t, nil, "estep", "-m", writeTemp(t, dir, "model.jsonl", zero), corpus)
		zero = run(t, counts, "mstep", "--lambda", "0.5")
	}
	trained = run(t, nil, "train-em", "--init", "zero", "--lambda", "0.5", "--max-iter", "4", "-q", corpus)
	if !bytes.Equal(zero, trained) {
		t.Fatal("dmv-init --init zero and 3 iterations of estep | mstep differ from train-em --init zero --max-iter 4")
	}
}

// Variational Bayes: the shell loop "estep -m M | mstep --vb -m M > M"
// from dmv-init --vb's model and train-em --estimator vb give the same
// model, bound in its header included, byte for byte, for any --workers;
// from zero the loop is one iteration behind, as for EM. --save-every
// saves the models the iterations ran on, each with its bound.
func TestVBShellLoopEqualsTrainEM(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 400)
	for _, alpha := range []string{"0.01", "1"} {
		model := run(t, nil, "dmv-init", "--vb", "--alpha", alpha, corpus)
		var models [][]byte
		for i := 0; i < 8; i++ {
			m := writeTemp(t, dir, "model.jsonl", model)
			counts := run(t, nil, "estep", "--workers", fmt.Sprint(1+i%3), "-m", m, corpus)
			model = run(t, counts, "mstep", "--vb", "--alpha", alpha, "-m", m)
			models = append(models, model)
		}
		for _, workers := range []string{"1", "3"} {
			saves := filepath.Join(dir, "saves"+alpha+workers)
			trained := run(t, nil, "train-em", "--estimator", "vb", "--alpha", alpha, "--max-iter", "8", "--tol", "0",
				"--workers", workers, "--save-every", "1", "--save-dir", saves, "-q", corpus)
			if !bytes.Equal(model, trained) {
				t.Fatalf("α=%s, %s workers: 8 iterations of estep | mstep --vb differ from train-em --estimator vb", alpha, workers)
			}
			if !bytes.HasPrefix(model, []byte(`{"ev":"header","family":"dmv","unit":"p","events":`)) || !bytes.Contains(model[:200], []byte(`,"vb_alpha":`+alpha+`,"vb_bound":`)) {
				t.Fatalf("α=%s: header %s", alpha, model[:bytes.IndexByte(model, '\n')])
			}
			for i := 2; i <= 8; i++ { // iter-i is the model iteration i ran on
				if saved := readFile(t, filepath.Join(saves, fmt.Sprintf("iter-%04d.jsonl", i))); !bytes.Equal(saved, models[i-2]) {
					t.Fatalf("α=%s: iter-%04d.jsonl is not the loop's model after %d iterations", alpha, i, i-1)
				}
			}
		}
	}
	zero := run(t, nil, "dmv-init", "--init", "zero", "--vb", "--alpha", "0.5", corpus)
	for i := 0; i < 3; i++ {
		m := writeTemp(t, dir, "model.jsonl", zero)
		zero = run(t, run(t, nil, "estep", "-m", m, corpus), "mstep", "--vb", "--alpha", "0.5", "-m", m)
	}
	trained := run(t, nil, "train-em", "--estimator", "vb", "--alpha", "0.5", "--init", "zero", "--max-iter", "4", "-q", corpus)
	if !bytes.Equal(zero, trained) {
		t.Fatal("dmv-init --init zero --vb and 3 iterations of estep | mstep --vb differ from train-em --estimator vb --init zero --max-iter 4")
	}
	// From a model of VB that lacks some of the corpus's tags (each
	// starts as the model's average tag, not renormalised) the loop and
	// train-em -m agree too.
	var some []string
	for _, l := range strings.Split(strings.TrimSpace(string(readFile(t, corpus))), "\n") {
		if !strings.Contains(l, `"RB"`) && !strings.Contains(l, `"IN"`) {
			some = append(some, l)
		}
	}
	part := writeTemp(t, dir, "part.jsonl", []byte(strings.Join(some, "\n")+"\n"))
	start := writeTemp(t, dir, "start.jsonl", run(t, nil, "train-em", "--estimator", "vb", "--alpha", "0.2", "--max-iter", "2", "-q", part))
	loop := run(t, run(t, nil, "estep", "-q", "-m", start, corpus), "mstep", "--vb", "--alpha", "0.2", "-m", start)
	if trained := run(t, nil, "train-em", "--estimator", "vb", "--alpha", "0.2", "-m", start, "--max-iter", "1", "-q", corpus); !bytes.Equal(loop, trained) {
		t.Fatal("from a VB model without two of the corpus's tags, estep | mstep --vb differs from train-em -m")
	}
	// --final-lambda α: the posterior mean of θ, a normalised model, as
	// mstep --lambda α makes from the last counts.
	m := writeTemp(t, dir, "model.jsonl", run(t, nil, "train-em", "--estimator", "vb", "--alpha", "0.5", "--max-iter", "3", "-q", corpus))
	mean := run(t, nil, "train-em", "--estimator", "vb", "--alpha", "0.5", "--max-iter", "4", "--final-lambda", "0.5", "-q", corpus)
	if want := run(t, run(t, nil, "estep", "-m", m, corpus), "mstep", "--lambda", "0.5"); !bytes.Equal(mean, want) {
		t.Fatal("train-em --estimator vb --final-lambda α differs from mstep --lambda α on the last counts")
	}
}

func writeTemp(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Counts of shards, merged by sumcounts, equal the counts of the whole
// (to 1e-9 relative), and so does the stats record.
func TestShardedEStepEqualsOne(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 600)
	model := writeTemp(t, dir, "model.jsonl", run(t, nil, "dmv-init", "--init", "km", corpus))
	whole := run(t, nil, "estep", "-m", model, corpus)

	data, _ := os.ReadFile(corpus)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	var shards []string
	for k, size := 0, 0; k < len(lines); k += size {
		size = 137 + 50*len(shards) // uneven shards
		end := min(len(lines), k+size)
		in := writeTemp(t, dir, fmt.Sprintf("in%d.jsonl", len(shards)), []byte(strings.Join(lines[k:end], "")))
		shards = append(shards, writeTemp(t, dir, fmt.Sprintf("c%d.jsonl", len(shards)), run(t, nil, "estep", "-m", model, "--workers", "1", in)))
	}
	merged := run(t, nil, append([]string{"sumcounts"}, shards...)...)
	a, b := readTable(t, whole), readTable(t, merged)
	if a.Stats.Sentences != 600 || b.Stats.Sentences != 600 || a.Stats.Tokens != b.Stats.Tokens {
		t.Fatalf("stats: whole %+v, merged %+v", a.Stats, b.Stats)
	}
	if rel(a.Stats.Loglik, b.Stats.Loglik) > 1e-9 {
		t.Fatalf("loglik: whole %v, merged %v", a.Stats.Loglik, b.Stats.Loglik)
	}
	at, bt := a.Params.Tables(), b.Params.Tables()
	for k := range at {
		for i := range at[k] {
			if math.Abs(at[k][i]-bt[k][i]) > 1e-9*math.Max(1, math.Abs(at[k][i])) {
				t.Fatalf("table %d entry %d: whole %v, merged %v", k, i, at[k][i], bt[k][i])
			}
		}
	}
	// mstep takes the shards directly too, and checks their total.
	direct := run(t, nil, append([]string{"mstep", "--expect-sentences", "600"}, shards...)...)
	viaSum := run(t, merged, "mstep")
	if !bytes.Equal(direct, viaSum) {
		t.Fatal("mstep over shards differs from mstep over sumcounts")
	}
}

// A tag the model never saw backs off to its average tag in the same way
// whether or not the rest of the corpus has one, so the log-likelihoods
// of shards add up even when only one shard holds an unseen tag (they did
// not while the back-off renormalised only corpora with an unseen tag).
func TestShardLoglikWithUnseenTagAddsUp(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 200)
	model := writeTemp(t, dir, "model.jsonl", run(t, nil, "dmv-init", "--init", "km", corpus))
	data, _ := os.ReadFile(corpus)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	lines[3] = strings.Replace(lines[3], `"tags":["`, `"tags":["XX","`, 1)
	lines[3] = strings.Replace(lines[3], `"heads":[`, `"heads":[0,`, 1)
	whole := writeTemp(t, dir, "whole.jsonl", []byte(strings.Join(lines, "")))
	a := writeTemp(t, dir, "a.jsonl", []byte(strings.Join(lines[:100], "")))
	b := writeTemp(t, dir, "b.jsonl", []byte(strings.Join(lines[100:], "")))
	one := readTable(t, run(t, nil, "estep", "--quiet", "-m", model, whole))
	sa := readTable(t, run(t, nil, "estep", "--quiet", "-m", model, a))
	sb := readTable(t, run(t, nil, "estep", "--quiet", "-m", model, b))
	if sum := sa.Stats.Loglik + sb.Stats.Loglik; rel(one.Stats.Loglik, sum) > 1e-12 {
		t.Fatalf("loglik: whole %v, shards %v + %v = %v", one.Stats.Loglik, sa.Stats.Loglik, sb.Stats.Loglik, sum)
	}
}

func readTable(t *testing.T, data []byte) *dmv.Table {
	t.Helper()
	var b dmv.TableBuilder
	b.Sum = true
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var e format.Event
		if err := format.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		if err := b.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	table, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return table
}

func rel(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

// decode | score on the corpus: a model estimated from the gold trees
// (estep --gold | mstep) parses its own training data far better than a
// right-branching baseline.
func TestSupervisedModelDecodes(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 400)
	model := writeTemp(t, dir, "sup.jsonl", run(t, run(t, nil, "estep", "--gold", corpus), "mstep"))
	for _, mbr := range []bool{false, true} {
		args := []string{"decode", "-m", model, corpus}
		if mbr {
			args = append(args, "--mbr")
		}
		parsed := run(t, nil, args...)
		n, correct := 0, 0
		for _, line := range bytes.Split(bytes.TrimSpace(parsed), []byte("\n")) {
			var s format.Sentence
			if err := format.Unmarshal(line, &s); err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil || s.Pred == nil {
				t.Fatalf("decoded sentence %s: %v", line, err)
			}
			for i := range s.Pred {
				n++
				if s.Pred[i] == s.Heads[i] {
					correct++
				}
			}
		}
		if acc := float64(correct) / float64(n); acc < 0.6 {
			t.Errorf("mbr=%v: supervised model parses its training data at %.1f%%", mbr, 100*acc)
		}
	}
}

// Synthetic recovery: 5,000 sentences sampled from the supervised model
// of UD English ≤10 have known trees; EM started from the model that
// generated them must keep its directed accuracy on them within 2 points
// (the model is near a maximum of the likelihood of its own samples).
func TestSyntheticRecovery(t *testing.T) {
	ud := testenv.SharedData(t, "ud-nopunct", "en-ud-train-nopunct-len15.conllu")
	dir := t.TempDir()
	train := writeTemp(t, dir, "en10.jsonl", run(t, run(t, nil, "conll2deps", "--tag", "xpos", ud), "filterlen", "10"))
	supervised := writeTemp(t, dir, "sup.jsonl", run(t, run(t, nil, "estep", "--gold", train), "mstep"))
	sample := writeTemp(t, dir, "sample.jsonl", run(t, nil, "dmv-sample", "-m", supervised, "-n", "5000", "--seed", "1"))
	accuracy := func(model string) float64 {
		var report struct{ Directed float64 }
		if err := format.Unmarshal(run(t, run(t, nil, "decode", "-m", model, sample), "score", "--json"), &report); err != nil {
			t.Fatal(err)
		}
		return 100 * report.Directed
	}
	before := accuracy(supervised)
	after := accuracy(writeTemp(t, dir, "em.jsonl", run(t, nil, "train-em", "-m", supervised, "-q", sample)))
	t.Logf("directed accuracy on the sample: generating model %.1f%%, after EM %.1f%%", before, after)
	if math.Abs(after-before) > 2 {
		t.Errorf("EM from the generating model moved directed accuracy from %.1f%% to %.1f%%", before, after)
	}
}

// Viterbi EM from the uniform start with --ties random (seeded) or split
// is the shell loop estep --hard --ties … | mstep --lambda 1, byte for
// byte; the three rules give three different models (from uniform
// multinomials every tree ties, so the first E-step is the rule's alone).
func TestShellLoopEqualsTrainEMTies(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	models := map[string][]byte{}
	for _, ties := range [][]string{{"left"}, {"random", "--seed", "7"}, {"split"}} {
		hard := run(t, nil, "dmv-init", "--init", "uniform", corpus)
		for i := 0; i < 3; i++ {
			counts := run(t, nil, append([]string{"estep", "--hard", "--ties"}, append(ties, "-m", writeTemp(t, dir, "model.jsonl", hard), corpus)...)...)
			hard = run(t, counts, "mstep", "--lambda", "1")
		}
		trained := run(t, nil, append([]string{"train-em", "--init", "uniform", "--hard", "--lambda", "1", "--max-iter", "3", "-q", "--ties"}, append(ties, corpus)...)...)
		if !bytes.Equal(hard, trained) {
			t.Errorf("--ties %v: 3 iterations of estep --hard | mstep --lambda 1 differ from train-em --hard", ties)
		}
		for other, m := range models {
			if bytes.Equal(m, trained) {
				t.Errorf("--ties %s and %s give the same model", ties[0], other)
			}
		}
		models[ties[0]] = trained
	}
}
