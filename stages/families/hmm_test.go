package families_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/mstep"
)

// wordCorpus writes n random sentences of words (lengths 1–8, each word
// with its one gold tag) to dir/name.
func wordCorpus(t *testing.T, dir, name string, n int, seed uint64) (string, []*format.Sentence) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 2))
	words := []string{"the", "a", "dog", "cat", "runs", "sees", "big", "red", "and", "it", "walks", "old"}
	tags := []string{"DT", "DT", "NN", "NN", "VB", "VB", "JJ", "JJ", "CC", "PR", "VB", "JJ"}
	var b bytes.Buffer
	var sents []*format.Sentence
	for i := range n {
		s := &format.Sentence{ID: fmt.Sprintf("%s%d", name, i)}
		for range 1 + r.IntN(8) {
			j := r.IntN(len(words))
			s.Words = append(s.Words, words[j])
			s.Tags = append(s.Tags, tags[j])
		}
		sents = append(sents, s)
		if err := pipeline.WriteRecord(&b, s); err != nil {
			t.Fatal(err)
		}
	}
	return write(t, filepath.Join(dir, name), b.Bytes()), sents
}

func trainHMM(t *testing.T, path string, o hmm.Options) (*hmm.Result, *hmm.Corpus) {
	t.Helper()
	sents, err := pipeline.ReadSentences(pipeline.Source{Names: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := hmm.NewCorpus(sents)
	if err != nil {
		t.Fatal(err)
	}
	res, err := hmm.Train(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return res, c
}

func savedHMM(t *testing.T, res *hmm.Result, c *hmm.Corpus) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := hmm.WriteModel(&b, &hmm.Model{P: res.Params, States: res.States, Words: c.Words, Unseen: res.Unseen}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func mstepLambda(t *testing.T, counts []byte, lambda float64) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := mstep.Run(families.All, pipeline.Source{Stdin: bytes.NewReader(counts)}, &out, mstep.Options{Lambda: lambda, ExpectSentences: -1}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// The shell loop estep | mstep, started from train-hmm's model after one
// iteration, writes byte for byte the model train-hmm has after more.
func TestHMMShellLoopIsTrain(t *testing.T) {
	dir := t.TempDir()
	path, _ := wordCorpus(t, dir, "train.jsonl", 80, 5)
	for _, tc := range []struct {
		name   string
		order  int
		est    hmm.Estimator
		lambda float64
		dict   bool
	}{{"bitag-em", 1, hmm.EM, 0, false}, {"trigram-em", 2, hmm.EM, 0, false}, {"bitag-map", 1, hmm.MAP, 0.5, false}, {"bitag-dict", 1, hmm.MAP, 0.1, true}} {
		t.Run(tc.name, func(t *testing.T) {
			o := hmm.Options{Order: tc.order, States: 4, Estimator: tc.est, Iterations: 1, Noise: 1, Seed: 3, Lambda: tc.lambda, Workers: 2}
			if tc.dict {
				sents, _ := pipeline.ReadSentences(pipeline.Source{Names: []string{path}})
				c, _ := hmm.NewCorpus(sents)
				d, err := hmm.BuildDict(c, 2)
				if err != nil {
					t.Fatal(err)
				}
				o.Dict = d
			}
			res, c := trainHMM(t, path, o)
			model := write(t, filepath.Join(dir, tc.name+"-1.jsonl"), savedHMM(t, res, c))
			const k = 3
			for i := 2; i <= 1+k; i++ {
				counts := estepOf(t, path, family.EStepOptions{Model: model, Workers: i % 3})
				model = write(t, filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", tc.name, i)), mstepLambda(t, counts, tc.lambda))
			}
			got, err := os.ReadFile(model)
			if err != nil {
				t.Fatal(err)
			}
			o.Iterations = 1 + k
			res, c = trainHMM(t, path, o)
			if want := savedHMM(t, res, c); !bytes.Equal(got, want) {
				t.Fatalf("estep | mstep ×%d differs from Train's %d iterations:\n%.400s\nwant\n%.400s", k, 1+k, got, want)
			}
			// The model's own tags: decode -m is train-hmm's tagging.
			for _, mbr := range []bool{false, true} {
				o.Viterbi = !mbr
				res, c = trainHMM(t, path, o)
				var out bytes.Buffer
				if _, err := families.Decode(pipeline.Source{Names: []string{path}}, &out, family.DecodeOptions{Model: model, MBR: mbr, Workers: 3}); err != nil {
					t.Fatal(err)
				}
				var want bytes.Buffer
				if err := hmm.WriteTagged(&want, c, res.States, res.Tags); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out.Bytes(), want.Bytes()) {
					t.Errorf("decode (mbr %v) differs from train-hmm's tags", mbr)
				}
			}
		})
	}
}

// Shards of the E-step merged are one E-step over all the sentences.
func TestHMMShardsAddUp(t *testing.T) {
	dir := t.TempDir()
	path, sents := wordCorpus(t, dir, "all.jsonl", 90, 9)
	res, c := trainHMM(t, path, hmm.Options{Order: 2, States: 3, Estimator: hmm.EM, Iterations: 2, Noise: 1, Seed: 1})
	model := write(t, filepath.Join(dir, "m.jsonl"), savedHMM(t, res, c))
	whole := estepOf(t, path, family.EStepOptions{Model: model})
	var shards []byte
	for i := range 3 {
		var b bytes.Buffer
		for _, s := range sents[i*30 : (i+1)*30] {
			pipeline.WriteRecord(&b, s)
		}
		p := write(t, filepath.Join(dir, fmt.Sprintf("part%d.jsonl", i)), b.Bytes())
		shards = append(shards, estepOf(t, p, family.EStepOptions{Model: model, Workers: 1})...)
	}
	fam, err := families.All.Lookup(hmm.Family)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := fam.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(shards)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := merged.WriteCounts(&b); err != nil {
		t.Fatal(err)
	}
	got, err := hmm.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(b.Bytes())}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := hmm.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(whole)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Words, want.Words) || !slices.Equal(got.States, want.States) {
		t.Fatal("merged shards name other words or states")
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }
	for i := range want.Counts.Trans {
		if !close(got.Counts.Trans[i], want.Counts.Trans[i]) {
			t.Fatalf("trans count %d: shards %v, one E-step %v", i, got.Counts.Trans[i], want.Counts.Trans[i])
		}
	}
	for i := range want.Counts.Emit {
		if !close(got.Counts.Emit[i], want.Counts.Emit[i]) {
			t.Fatalf("emit count %d: shards %v, one E-step %v", i, got.Counts.Emit[i], want.Counts.Emit[i])
		}
	}
	gs, ws := got.Shards.Stats, want.Shards.Stats
	if gs.Sentences != ws.Sentences || gs.Tokens != ws.Tokens || !close(gs.Loglik, ws.Loglik) || got.Shards.Corpus != want.Shards.Corpus {
		t.Fatalf("stats: shards %+v corpus %s, one E-step %+v corpus %s", *gs, got.Shards.Corpus, *ws, want.Shards.Corpus)
	}
}

// A word the model never saw: emitted with unseen_word (add-λ), or with
// weight 1 by every state (maximum likelihood); decode and estep work,
// and the next M-step's model knows the word.
func TestHMMUnseenWords(t *testing.T) {
	dir := t.TempDir()
	path, _ := wordCorpus(t, dir, "train.jsonl", 40, 2)
	held := write(t, filepath.Join(dir, "held.jsonl"), []byte(`{"id":"h","words":["the","zebra","runs"],"tags":["DT","NN","VB"]}`+"\n"))
	for _, lambda := range []float64{0, 0.5} {
		res, c := trainHMM(t, path, hmm.Options{Order: 1, States: 3, Estimator: hmm.MAP, Lambda: lambda, Iterations: 2, Noise: 1, Seed: 1})
		model := write(t, filepath.Join(dir, "m.jsonl"), savedHMM(t, res, c))
		m, err := hmm.ReadModel(model, 0)
		if err != nil {
			t.Fatal(err)
		}
		for s, u := range m.Unseen {
			if (lambda == 0) != (u == 0) || u < 0 || u > 1 {
				t.Errorf("λ %v: unseen_word of %s is %v", lambda, m.States[s], u)
			}
		}
		var out bytes.Buffer
		if _, err := families.Decode(pipeline.Source{Names: []string{held}}, &out, family.DecodeOptions{Model: model}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), `"gold_tags":["DT","NN","VB"]`) {
			t.Errorf("decoded held-out sentence: %s", out.String())
		}
		counts := estepOf(t, held, family.EStepOptions{Model: model})
		if ll := lastStats(t, counts).Loglik; math.IsInf(ll, 0) || math.IsNaN(ll) {
			t.Errorf("λ %v: held-out loglik %v", lambda, ll)
		}
		next := write(t, filepath.Join(dir, "next.jsonl"), mstepLambda(t, counts, 1))
		m2, err := hmm.ReadModel(next, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(m2.Words, "zebra") {
			t.Errorf("the M-step's model does not know the held-out word")
		}
	}
}

func lastStats(t *testing.T, counts []byte) format.Stats {
	t.Helper()
	lines := bytes.Split(bytes.TrimSpace(counts), []byte("\n"))
	var e format.Event
	if err := e.UnmarshalJSON(lines[len(lines)-1]); err != nil || e.Stats == nil {
		t.Fatalf("no stats record: %v", err)
	}
	return *e.Stats
}

// Annealing as a shell loop: from the noisy start θ₀ (Train's), estep
// --beta β [--skew θ₀] | mstep for each of DA's stages gives Train's
// DA (SDA) model byte for byte.
func TestHMMAnnealedShellLoopIsTrain(t *testing.T) {
	dir := t.TempDir()
	path, _ := wordCorpus(t, dir, "train.jsonl", 60, 11)
	for _, est := range []hmm.Estimator{hmm.DA, hmm.SDA} {
		t.Run(string(est), func(t *testing.T) {
			const iters, lambda = 2, 0.1
			o := hmm.Options{Order: 1, States: 3, Estimator: est, Iterations: iters, Noise: 1, Seed: 4, Lambda: lambda, Beta0: 0.5, BetaGrowth: 4}
			res, c := trainHMM(t, path, o)
			s, err := hmm.NewSpace(1, 3, len(c.Words), nil)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := hmm.WriteModel(&b, &hmm.Model{P: s.NoisyUniform(o.Noise, o.Seed), States: hmm.StateNames(3), Words: c.Words, Unseen: make([]float64, 3)}); err != nil {
				t.Fatal(err)
			}
			start := write(t, filepath.Join(dir, string(est)+"-0.jsonl"), b.Bytes())
			model := start
			n := 0
			for _, beta := range []float64{0.5, 1} {
				for range iters {
					rw := dmv.Plain()
					rw.Beta = beta
					opts := family.EStepOptions{Model: model, Reweight: &rw}
					if est == hmm.SDA && beta < 1 {
						opts.Skew = start
					}
					n++
					model = write(t, filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", est, n)), mstepLambda(t, estepOf(t, path, opts), lambda))
				}
			}
			got, err := os.ReadFile(model)
			if err != nil {
				t.Fatal(err)
			}
			if want := savedHMM(t, res, c); !bytes.Equal(got, want) {
				t.Fatalf("the annealed shell loop differs from Train's %s:\n%.300s\nwant\n%.300s", est, got, want)
			}
		})
	}
}

// Shards whose sentences hold different words the model never saw merge
// by name into the counts of one E-step over them all, under a model
// with a tag dictionary (an unseen word may take any state).
func TestHMMShardsWithUnseenWords(t *testing.T) {
	dir := t.TempDir()
	path, _ := wordCorpus(t, dir, "train.jsonl", 50, 6)
	sents, _ := pipeline.ReadSentences(pipeline.Source{Names: []string{path}})
	c0, _ := hmm.NewCorpus(sents)
	d, err := hmm.BuildDict(c0, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, c := trainHMM(t, path, hmm.Options{Order: 2, Estimator: hmm.MAP, Lambda: 0.2, Iterations: 2, Noise: 1, Seed: 2, Dict: d})
	model := write(t, filepath.Join(dir, "m.jsonl"), savedHMM(t, res, c))
	a := `{"id":"a","words":["the","zebra","runs"],"tags":["DT","NN","VB"]}` + "\n"
	b := `{"id":"b","words":["a","gnu","sees","the","zebra"],"tags":["DT","NN","VB","DT","NN"]}` + "\n"
	pa := write(t, filepath.Join(dir, "a.jsonl"), []byte(a))
	pb := write(t, filepath.Join(dir, "b.jsonl"), []byte(b))
	pab := write(t, filepath.Join(dir, "ab.jsonl"), []byte(a+b))
	fam, _ := families.All.Lookup(hmm.Family)
	merged, err := fam.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(append(estepOf(t, pa, family.EStepOptions{Model: model}), estepOf(t, pb, family.EStepOptions{Model: model})...))}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := merged.WriteMStep(&out, 0.2); err != nil {
		t.Fatal(err)
	}
	got := values(t, out.Bytes())
	want := values(t, mstepLambda(t, estepOf(t, pab, family.EStepOptions{Model: model}), 0.2))
	if len(got) != len(want) {
		t.Fatalf("%d parameters from shards, %d from one E-step", len(got), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || math.Abs(g-w) > 1e-9*max(1, w) {
			t.Errorf("%s: shards %v, one E-step %v", k, g, w)
		}
	}
	found := false
	for k := range want {
		found = found || strings.Contains(k, `"gnu"`)
	}
	if !found {
		t.Error("the next model does not know the unseen word gnu")
	}
}

// values are a model's records by description.
func values(t *testing.T, model []byte) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, line := range bytes.Split(bytes.TrimSpace(model), []byte("\n")) {
		var e format.Event
		if err := e.UnmarshalJSON(line); err != nil {
			t.Fatal(err)
		}
		if e.Ev != format.EvHeader {
			out[fmt.Sprintf("%s %v %s %s %q", e.Ev, e.Prev, e.Next, e.State, e.Word)] = e.Value
		}
	}
	return out
}
