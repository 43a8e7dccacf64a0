package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
)

// hmmRecords reads the trans and emit records of an HMM model or counts
// as "trans a b → c" / "emit s w" keys with their values ("n" or "p"),
// the unseen_word ones as "unseen s", the stats record's fields as
// "stats FIELD".
func hmmRecords(t *testing.T, data []byte) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r struct {
			Ev                string
			Prev              []string
			Next, State, Word string
			N, P              *float64
			Sentences, Tokens int
			Loglik            float64
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		v := r.N
		if v == nil {
			v = r.P
		}
		switch r.Ev {
		case "header":
		case "stats":
			out["stats sentences"], out["stats tokens"], out["stats loglik"] = float64(r.Sentences), float64(r.Tokens), r.Loglik
		case "trans":
			out["trans "+strings.Join(r.Prev, " ")+" → "+r.Next] = *v
		case "emit":
			out["emit "+r.State+" "+r.Word] = *v
		case "unseen_word":
			out["unseen "+r.State] = *v
		default:
			t.Fatalf("record %s", line)
		}
	}
	return out
}

func writeLines(t *testing.T, path string, lines ...string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// goldCorpus: three sentences whose gold tags are counted by hand below;
// the third's reference tags are in gold_tags (its "tags" a tagger's, to
// be ignored).
var goldCorpus = []string{
	`{"id":"a","words":["the","dog","runs"],"tags":["DT","NN","VB"]}`,
	`{"id":"b","words":["a","dog"],"tags":["DT","NN"]}`,
	`{"id":"c","words":["dogs","run"],"tags":["X","X"],"gold_tags":["NN","VB"]}`,
	`{"id":"d","words":["run"],"tags":["VB"]}`,
}

// estep --gold --family hmm counts the transitions and emissions of the
// gold tags, the boundary <s> before the first tag and after the last,
// bitag and trigram, checked against a hand count: every record of the
// full table is there (zeros too), and nothing else.
func TestHMMGoldCountsByHand(t *testing.T) {
	dir := t.TempDir()
	corpus := writeLines(t, filepath.Join(dir, "c.jsonl"), goldCorpus...)
	states := []string{"DT", "NN", "VB"}
	words := []string{"the", "dog", "runs", "a", "dogs", "run"}
	emit := map[string]float64{"emit DT the": 1, "emit NN dog": 2, "emit VB runs": 1, "emit DT a": 1, "emit NN dogs": 1, "emit VB run": 2}
	for _, c := range []struct {
		name  string
		args  []string
		trans map[string]float64
		order int
	}{
		{"bitag", nil, map[string]float64{
			"trans <s> → DT": 2, "trans <s> → NN": 1, "trans <s> → VB": 1,
			"trans DT → NN": 2, "trans NN → VB": 2, "trans NN → <s>": 1, "trans VB → <s>": 3,
		}, 1},
		{"trigram", []string{"--trigram"}, map[string]float64{
			"trans <s> <s> → DT": 2, "trans <s> <s> → NN": 1, "trans <s> <s> → VB": 1,
			"trans <s> DT → NN": 2, "trans DT NN → VB": 1, "trans DT NN → <s>": 1,
			"trans NN VB → <s>": 2, "trans <s> NN → VB": 1, "trans <s> VB → <s>": 1,
		}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := run(t, nil, append(append([]string{"estep", "--gold", "--family", "hmm"}, c.args...), corpus)...)
			if !bytes.HasPrefix(out, []byte(`{"ev":"header","family":"hmm","unit":"n",`)) || !bytes.Contains(out, []byte(`"model":"none"`)) {
				t.Fatalf("header: %s", out[:bytes.IndexByte(out, '\n')])
			}
			got := hmmRecords(t, out)
			want := map[string]float64{"stats sentences": 4, "stats tokens": 8, "stats loglik": 0}
			names := append(slicesClone(states), "<s>")
			// Every context that can occur, every next state: zeros too.
			var contexts []string
			if c.order == 1 {
				contexts = names
			} else {
				for _, a := range names {
					for _, b := range names {
						if !(a != "<s>" && b == "<s>") {
							contexts = append(contexts, a+" "+b)
						}
					}
				}
			}
			for _, ctx := range contexts {
				for _, next := range names {
					if (ctx == "<s>" || ctx == "<s> <s>") && next == "<s>" {
						continue
					}
					want["trans "+ctx+" → "+next] = c.trans["trans "+ctx+" → "+next]
				}
			}
			for _, s := range states {
				for _, w := range words {
					want["emit "+s+" "+w] = emit["emit "+s+" "+w]
				}
			}
			for k := range c.trans {
				if _, ok := want[k]; !ok {
					t.Fatalf("hand count %s is no record of the table", k)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d records, want %d", len(got), len(want))
			}
			for k, v := range want {
				if g, ok := got[k]; !ok || g != v {
					t.Errorf("%s: %v (present %v), want %v", k, g, ok, v)
				}
			}
			// mstep makes the relative frequencies (λ = 0) of the counts.
			model := hmmRecords(t, run(t, out, "mstep"))
			for k, want := range map[string]float64{"trans <s> → DT": 0.5, "trans VB → <s>": 1, "emit NN dog": 2.0 / 3, "emit VB run": 2.0 / 3} {
				if c.order == 2 {
					continue
				}
				if g := model[k]; math.Abs(g-want) > 1e-15 {
					t.Errorf("model %s = %v, want %v", k, g, want)
				}
			}
			if c.order == 2 && model["trans DT NN → VB"] != 0.5 {
				t.Errorf("model trans DT NN → VB = %v, want 0.5", model["trans DT NN → VB"])
			}
		})
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// The gold counts of shards over one model's states (estep --gold -m),
// added by sumcounts, are the one process's, and mstep makes the same
// model from either (compared record by record: the shards name words in
// another order); shards of --family hmm over other tag sets are refused
// by sumcounts and mstep, naming the shard.
func TestHMMGoldShards(t *testing.T) {
	dir := t.TempDir()
	lines := ptbLines(t)
	whole := writeLines(t, filepath.Join(dir, "all.jsonl"), lines...)
	var shards []string
	for i, k := 0, 0; i < len(lines); i, k = i+37, k+1 {
		shards = append(shards, writeLines(t, filepath.Join(dir, fmt.Sprintf("s%d.jsonl", k)), lines[i:min(i+37, len(lines))]...))
	}
	for _, order := range [][]string{nil, {"--trigram"}} {
		states := filepath.Join(dir, "states.jsonl")
		run(t, nil, append(append([]string{"train-hmm", "-q", "--dict", "1", "--max-iter", "1", "--save-model", states}, order...), whole)...)
		one := run(t, nil, "estep", "--gold", "-m", states, whole)
		var counts []string
		for i, s := range shards {
			c := filepath.Join(dir, fmt.Sprintf("c%d.counts", i))
			os.WriteFile(c, run(t, nil, "estep", "--gold", "-m", states, s), 0o644)
			counts = append(counts, c)
		}
		summed := run(t, nil, append([]string{"sumcounts", "--expect-corpus", whole}, counts...)...)
		a, b := hmmRecords(t, one), hmmRecords(t, summed)
		if len(a) != len(b) {
			t.Fatalf("%v: %d records in one process, %d summed", order, len(a), len(b))
		}
		for k, v := range a {
			if b[k] != v {
				t.Errorf("%v %s: %v summed, %v in one process", order, k, b[k], v)
			}
		}
		ma, mb := hmmRecords(t, run(t, one, "mstep", "--lambda", "1")), hmmRecords(t, run(t, summed, "mstep", "--lambda", "1"))
		if len(ma) != len(mb) {
			t.Fatalf("%v: %d model records from one process, %d from shards", order, len(ma), len(mb))
		}
		for k, v := range ma {
			if math.Abs(mb[k]-v) > 1e-12*v {
				t.Errorf("%v model %s: %v from shards, %v from one process", order, k, mb[k], v)
			}
		}
		if acc := tagAccuracy(t, run(t, nil, "tag", "-m", writeLines(t, filepath.Join(dir, "m.jsonl"), strings.TrimSpace(string(run(t, summed, "mstep", "--lambda", "0.01")))), whole)); acc < 0.97 {
			t.Errorf("%v: the sharded supervised model's accuracy %v", order, acc)
		}
		// --family hmm shards over their own tags: refused.
		var own []string
		for i, s := range shards {
			c := filepath.Join(dir, fmt.Sprintf("own%d.counts", i))
			os.WriteFile(c, run(t, nil, append(append([]string{"estep", "--gold", "--family", "hmm"}, order...), s)...), 0o644)
			own = append(own, c)
		}
		for _, prog := range []string{"sumcounts", "mstep"} {
			var out, errs bytes.Buffer
			code := program.Run(prog, append([]string{prog}, own...), nil, &out, &errs)
			if code != 1 || out.Len() > 0 || !strings.Contains(errs.String(), "is over other states than shard 1") {
				t.Errorf("%s of shards over other tags: exit %d, %d bytes out, %s", prog, code, out.Len(), errs.String())
			}
		}
	}
}

// ptbLines is the PTB-derived sample of examples/treebank with
// punctuation, as sentence records.
func ptbLines(t *testing.T) []string {
	t.Helper()
	treebank, _ := filepath.Glob("../examples/treebank/*.mrg")
	if len(treebank) == 0 {
		t.Fatal("no examples/treebank")
	}
	out := run(t, nil, append([]string{"ptb2deps", "--keep-punct"}, treebank...)...)
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// tagAccuracy is score-tags' accuracy of a tagged corpus.
func tagAccuracy(t *testing.T, tagged []byte) float64 {
	t.Helper()
	var s struct{ Accuracy float64 }
	if err := json.Unmarshal(run(t, tagged, "score-tags", "--json"), &s); err != nil {
		t.Fatal(err)
	}
	return s.Accuracy
}

// The supervised HMM of the PTB-derived sample (110 sentences), bitag
// and trigram, tags its own training text almost perfectly; train-hmm
// takes it as a start (--dict 1 -m, its states the gold tags; --states
// K -m) and tag -m decodes with it.
func TestHMMGoldModelTagsItsText(t *testing.T) {
	dir := t.TempDir()
	corpus := writeLines(t, filepath.Join(dir, "ptb.jsonl"), ptbLines(t)...)
	for _, order := range [][]string{nil, {"--trigram"}} {
		model := filepath.Join(dir, "init.jsonl")
		counts := run(t, nil, append(append([]string{"estep", "--gold", "--family", "hmm"}, order...), corpus)...)
		os.WriteFile(model, run(t, counts, "mstep", "--lambda", "0.01"), 0o644)
		if acc := tagAccuracy(t, run(t, nil, "tag", "-m", model, corpus)); acc < 0.97 {
			t.Errorf("%v: the supervised model tags its own text with accuracy %v", order, acc)
		}
		if acc := tagAccuracy(t, run(t, nil, "tag", "--viterbi", "-m", model, corpus)); acc < 0.97 {
			t.Errorf("%v: Viterbi accuracy %v", order, acc)
		}
		// EM from it with the full dictionary stays a good tagger.
		tagged := run(t, nil, append(append([]string{"train-hmm", "-q", "--dict", "1", "-m", model, "--max-iter", "3"}, order...), corpus)...)
		if acc := tagAccuracy(t, tagged); acc < 0.95 {
			t.Errorf("%v: train-hmm --dict 1 -m: accuracy %v", order, acc)
		}
		states := fmt.Sprint(strings.Count(string(counts), `{"ev":"unseen_word"`)) // none in counts
		if states != "0" {
			t.Fatalf("unseen_word records in counts")
		}
		k := fmt.Sprint(strings.Count(string(run(t, counts, "mstep")), `{"ev":"unseen_word"`))
		tagged = run(t, nil, append(append([]string{"train-hmm", "-q", "--states", k, "-m", model, "--max-iter", "2"}, order...), corpus)...)
		if acc := tagAccuracy(t, tagged); acc < 0.9 {
			t.Errorf("%v: train-hmm --states %s -m: accuracy %v", order, k, acc)
		}
	}
}

// --gold -m MODEL counts over the model's order and states, in its
// order: a state the labelled text never shows has its (zero) records,
// so that the supervised model has the states of the unlabelled text's
// dictionary, which train-hmm --dict 1 -m requires.
func TestHMMGoldOverModelStates(t *testing.T) {
	dir := t.TempDir()
	lines := ptbLines(t)
	labelled := writeLines(t, filepath.Join(dir, "l.jsonl"), lines[:5]...)
	rest := writeLines(t, filepath.Join(dir, "r.jsonl"), lines[5:]...)
	for _, order := range [][]string{nil, {"--trigram"}} {
		em := filepath.Join(dir, "em.jsonl")
		run(t, nil, append(append([]string{"train-hmm", "-q", "--dict", "1", "--max-iter", "2", "--save-model", em}, order...), rest)...)
		plain := run(t, nil, "estep", "--gold", "--family", "hmm", labelled)
		over := run(t, nil, "estep", "--gold", "-m", em, labelled)
		if bytes.Contains(over, []byte(`"model":"none"`)) {
			t.Errorf("--gold -m: the header's model is none")
		}
		count := func(b []byte) int { return len(hmmStates(t, b)) }
		if count(plain) >= count(over) {
			t.Fatalf("%v: %d states from the labelled text alone, %d over the model's", order, count(plain), count(over))
		}
		if got, want := hmmStates(t, over), hmmStates(t, run(t, nil, "estep", "-m", em, rest)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%v: states %v, want the model's %v", order, got, want)
		}
		init := filepath.Join(dir, "init.jsonl")
		os.WriteFile(init, run(t, over, "mstep", "--lambda", "1"), 0o644)
		tagged := run(t, nil, append(append([]string{"train-hmm", "-q", "--dict", "1", "-m", init, "--max-iter", "2"}, order...), rest)...)
		if acc := tagAccuracy(t, tagged); acc < 0.8 {
			t.Errorf("%v: accuracy %v", order, acc)
		}
	}
}

// hmmStates lists the states of HMM counts or a model, in the order of
// their first appearance in the trans records (the readers' numbering).
func hmmStates(t *testing.T, data []byte) []string {
	t.Helper()
	states := []string{}
	seen := map[string]bool{"<s>": true}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r struct {
			Ev   string
			Prev []string
			Next string
		}
		json.Unmarshal(line, &r)
		if r.Ev != "trans" {
			continue
		}
		for _, s := range append(r.Prev, r.Next) {
			if !seen[s] {
				seen[s] = true
				states = append(states, s)
			}
		}
	}
	return states
}

// train-hmm --save-every 1 saves the start, the model iteration 1 ran
// on, as a model tag -m reads (a start has no unseen_word weights of its
// own: they are 0), for a noisy start and a -m start alike.
func TestHMMSaveEveryStartReadable(t *testing.T) {
	dir := t.TempDir()
	corpus := writeLines(t, filepath.Join(dir, "c.jsonl"), goldCorpus...)
	init := filepath.Join(dir, "init.jsonl")
	os.WriteFile(init, run(t, run(t, nil, "estep", "--gold", "--family", "hmm", corpus), "mstep", "--lambda", "1"), 0o644)
	for _, start := range [][]string{{"--states", "3"}, {"--dict", "1", "-m", init}} {
		saves := filepath.Join(dir, "saves")
		run(t, nil, append(append([]string{"train-hmm", "-q", "--max-iter", "2", "--save-every", "1", "--save-dir", saves}, start...), corpus)...)
		for _, f := range []string{"iter-0001.jsonl", "iter-0002.jsonl"} {
			tagged := run(t, nil, "tag", "-m", filepath.Join(saves, f), corpus)
			if bytes.Count(tagged, []byte("\n")) != len(goldCorpus) {
				t.Errorf("%v %s: %s", start, f, tagged)
			}
		}
		if m := hmmRecords(t, mustRead(t, filepath.Join(saves, "iter-0001.jsonl"))); m["unseen DT"] != 0 && start[0] == "--dict" {
			t.Errorf("%v: the start's unseen weight %v", start, m["unseen DT"])
		}
		os.RemoveAll(saves)
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

// Shards of estep --gold --family hmm over texts with the same gold tags
// add up (sumcounts, and mstep of the shards) to the one process's
// counts and model, bitag and trigram.
func TestHMMGoldFamilyShardsSameTags(t *testing.T) {
	dir := t.TempDir()
	whole := writeLines(t, filepath.Join(dir, "c.jsonl"), goldCorpus...)
	a := writeLines(t, filepath.Join(dir, "a.jsonl"), goldCorpus[0])
	b := writeLines(t, filepath.Join(dir, "b.jsonl"), goldCorpus[1:]...)
	for _, order := range [][]string{nil, {"--trigram"}} {
		gold := append([]string{"estep", "--gold", "--family", "hmm"}, order...)
		one := run(t, nil, append(gold, whole)...)
		ca, cb := filepath.Join(dir, "a.counts"), filepath.Join(dir, "b.counts")
		os.WriteFile(ca, run(t, nil, append(gold, a)...), 0o644)
		os.WriteFile(cb, run(t, nil, append(gold, b)...), 0o644)
		summed := run(t, nil, "sumcounts", "--expect-corpus", whole, ca, cb)
		if g, w := hmmRecords(t, summed), hmmRecords(t, one); fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("%v: summed %v, one process %v", order, g, w)
		}
		if g, w := hmmRecords(t, run(t, nil, "mstep", "--lambda", "0.5", ca, cb)), hmmRecords(t, run(t, one, "mstep", "--lambda", "0.5")); fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("%v: model of the shards %v, of one process %v", order, g, w)
		}
	}
}
