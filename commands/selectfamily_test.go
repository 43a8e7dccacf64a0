package commands

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"
)

// select-model's dev log-likelihood of a CCM and of an HMM model is the
// log-likelihood estep's stats record gives for the same model and
// sentences (another program: the E-step's chart), and its bracket F1 and
// many-to-1 are score's and score-tags' on decode -m's output.
func TestSelectModelFamiliesAgreeWithEStepAndScore(t *testing.T) {
	dir := t.TempDir()
	treebank, _ := filepath.Glob("../examples/treebank/*.mrg")
	all := run(t, nil, append([]string{"ptb2deps", "--tree", "--keep-punct"}, treebank...)...)
	lines := bytes.SplitAfter(bytes.TrimSpace(all), []byte("\n"))
	dev := writeTemp(t, dir, "dev.jsonl", bytes.Join(lines[:30], nil))
	train := writeTemp(t, dir, "train.jsonl", append(bytes.Join(lines[30:], nil), '\n'))
	ccmModel, hmmModel := filepath.Join(dir, "ccm.jsonl"), filepath.Join(dir, "hmm.jsonl")
	run(t, nil, "train-ccm", "-q", "--max-iter", "3", "--save-model", ccmModel, train)
	run(t, nil, "train-hmm", "-q", "--states", "5", "--lambda", "0.1", "--max-iter", "3", "--save-model", hmmModel, train)
	for _, tc := range []struct {
		model, field, scorer, key string
	}{
		{ccmModel, "bracket_f1", "score", ""},
		{hmmModel, "many_to_1", "score-tags", "many_to_1"},
	} {
		var row map[string]any
		if err := json.Unmarshal(run(t, nil, "select-model", "-q", "--json", "--by", "likelihood", "--dev", dev, tc.model), &row); err != nil {
			t.Fatal(err)
		}
		var stats map[string]any
		counts := bytes.Split(bytes.TrimSpace(run(t, nil, "estep", "-m", tc.model, dev)), []byte("\n"))
		if err := json.Unmarshal(counts[len(counts)-1], &stats); err != nil {
			t.Fatal(err)
		}
		got, want := row["loglik"].(float64), stats["loglik"].(float64)
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s: select-model's dev log-likelihood %v, estep's %v", tc.model, got, want)
		}
		decoded := run(t, nil, "decode", "-q", "-m", tc.model, dev)
		var rep map[string]any
		if tc.key == "" {
			var b struct {
				Brackets struct{ Standard map[string]any }
			}
			if err := json.Unmarshal(run(t, decoded, "score", "--json"), &b); err != nil {
				t.Fatal(err)
			}
			rep = b.Brackets.Standard
			tc.key = "f1"
		} else if err := json.Unmarshal(run(t, decoded, "score-tags", "--json"), &rep); err != nil {
			t.Fatal(err)
		}
		if g, w := row[tc.field].(float64), rep[tc.key].(float64); math.Abs(g-w) > 1e-12 {
			t.Errorf("%s: select-model's %s %v, %s's %v", tc.model, tc.field, g, tc.scorer, w)
		}
	}
}

// For DMV+CCM models (both orders) select-model's dev log-likelihood is
// estep's stats loglik (the E-step's chunked sum against select-model's
// per-sentence inside probabilities), its directed accuracy (root counted
// and excluded) score's on decode -m's output, and with the heads taken
// off the dev sentences it ranks by bracket F1, score's again. One model
// is trained long enough that some dev sentences have probability 0 (its
// DMV half unsmoothed): both programs say −Inf.
func TestSelectModelDMVCCMAgreesWithEStepAndScore(t *testing.T) {
	dir := t.TempDir()
	treebank, _ := filepath.Glob("../examples/treebank/*.mrg")
	all := run(t, nil, "filterlen", "10", writeTemp(t, dir, "all.jsonl", run(t, nil, append([]string{"ptb2deps", "--tree"}, treebank...)...)))
	lines := bytes.SplitAfter(bytes.TrimSpace(all), []byte("\n"))
	dev := writeTemp(t, dir, "dev.jsonl", bytes.Join(lines[:30], nil))
	train := writeTemp(t, dir, "train.jsonl", append(bytes.Join(lines[30:], nil), '\n'))
	var noHeads []byte
	for _, l := range lines[:30] {
		var s map[string]any
		if err := json.Unmarshal(l, &s); err != nil {
			t.Fatal(err)
		}
		delete(s, "heads")
		b, _ := json.Marshal(s)
		noHeads = append(append(noHeads, b...), '\n')
	}
	devTrees := writeTemp(t, dir, "dev-trees.jsonl", noHeads)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"dmvccm-2", []string{"--max-iter", "2"}},
		{"dmvccm-10", []string{"--max-iter", "10"}},
		{"dmvccm-right-first-3", []string{"--right-first", "--dmv-init", "klein", "--max-iter", "3"}},
	} {
		model := filepath.Join(dir, tc.name+".jsonl")
		run(t, nil, append(append([]string{"train-ccm", "-q", "--model", "dmvccm", "--save-model", model}, tc.args...), train)...)
		var row map[string]any
		if err := json.Unmarshal(run(t, nil, "select-model", "-q", "--json", "--dev", dev, model), &row); err != nil {
			t.Fatal(err)
		}
		var stats map[string]any
		counts := bytes.Split(bytes.TrimSpace(run(t, nil, "estep", "-m", model, dev)), []byte("\n"))
		if err := json.Unmarshal(counts[len(counts)-1], &stats); err != nil {
			t.Fatal(err)
		}
		switch want := stats["loglik"].(type) {
		case string: // "-inf"
			if row["loglik"] != want || row["zero_probability"].(float64) == 0 {
				t.Errorf("%s: select-model's dev log-likelihood %v (%v sentences of probability 0), estep's %v", tc.name, row["loglik"], row["zero_probability"], want)
			}
		case float64:
			if got, ok := row["loglik"].(float64); !ok || math.Abs(got-want) > 1e-9*math.Abs(want) || row["zero_probability"].(float64) != 0 {
				t.Errorf("%s: select-model's dev log-likelihood %v, estep's %v", tc.name, row["loglik"], want)
			}
		}
		decoded := run(t, nil, "decode", "-q", "-m", model, dev)
		var rep struct {
			Directed float64
			Excluded struct{ Directed struct{ F1 float64 } }
			Brackets struct{ Standard struct{ F1 float64 } }
		}
		if err := json.Unmarshal(run(t, decoded, "score", "--json"), &rep); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			field string
			want  float64
		}{{"directed", rep.Directed}, {"excluded_directed", rep.Excluded.Directed.F1}, {"bracket_f1", rep.Brackets.Standard.F1}} {
			if g, ok := row[c.field].(float64); !ok || math.Abs(g-c.want) > 1e-12 {
				t.Errorf("%s: select-model's %s %v, score's %v", tc.name, c.field, row[c.field], c.want)
			}
		}
		if row["by"] != "accuracy" || row["root"] != "count" {
			t.Errorf("%s: ranked by %v, root %v", tc.name, row["by"], row["root"])
		}
		// Without gold heads it ranks by bracket F1 (no directed field).
		var bare map[string]any
		if err := json.Unmarshal(run(t, nil, "select-model", "-q", "--json", "--dev", devTrees, model), &bare); err != nil {
			t.Fatal(err)
		}
		if _, has := bare["directed"]; has || bare["bracket_f1"] != row["bracket_f1"] {
			t.Errorf("%s: without heads: directed %v, bracket F1 %v (with heads %v)", tc.name, bare["directed"], bare["bracket_f1"], row["bracket_f1"])
		}
	}
}
