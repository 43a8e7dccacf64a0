package commands

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
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
		model, scorer string
		fields        []string // where the scorer's record and select-model's agree
	}{
		{ccmModel, "score", []string{"brackets"}},
		{hmmModel, "score-tags", []string{"tokens", "gold_tags", "induced_tags", "many_to_1", "one_to_1", "vi", "v_measure", "one_to_1_map"}},
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
		// The CCM's log-likelihood per token is no cross-entropy; the HMM's is.
		if _, has := row["cross_entropy"]; has != (tc.scorer == "score-tags") {
			t.Errorf("%s: cross_entropy %v", tc.model, row["cross_entropy"])
		}
		decoded := run(t, nil, "decode", "-q", "-m", tc.model, dev)
		var rep map[string]any
		if err := json.Unmarshal(run(t, decoded, tc.scorer, "--json"), &rep); err != nil {
			t.Fatal(err)
		}
		// One record of scores: the same fields, with the same values.
		for _, f := range tc.fields {
			if !reflect.DeepEqual(row[f], rep[f]) || rep[f] == nil {
				t.Errorf("%s: select-model's %s %v, %s's %v", tc.model, f, row[f], tc.scorer, rep[f])
			}
		}
		if _, has := row["accuracy"]; has {
			t.Errorf("%s: tag accuracy %v of induced states", tc.model, row["accuracy"])
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
		{"dmvccm-mixture-3", []string{"--order", "mixture", "--max-iter", "3"}},
		{"dmvccm-footnote8-3", []string{"--order", "footnote8", "--dmv-init", "klein", "--max-iter", "3"}},
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
		var rep map[string]any
		if err := json.Unmarshal(run(t, decoded, "score", "--json"), &rep); err != nil {
			t.Fatal(err)
		}
		// One record of scores: select-model's are score's, field by field.
		for _, f := range []string{"sentences", "tokens", "root", "directed", "undirected", "counted", "excluded", "brackets"} {
			if !reflect.DeepEqual(row[f], rep[f]) || rep[f] == nil {
				t.Errorf("%s: select-model's %s %v, score's %v", tc.name, f, row[f], rep[f])
			}
		}
		if _, has := row["cross_entropy"]; has || row["by"] != "accuracy" {
			t.Errorf("%s: ranked by %v, cross-entropy %v (DMV+CCM's likelihood per token is none)", tc.name, row["by"], row["cross_entropy"])
		}
		// Without gold heads it ranks by bracket F1 (no heads' scores).
		var bare map[string]any
		if err := json.Unmarshal(run(t, nil, "select-model", "-q", "--json", "--dev", devTrees, model), &bare); err != nil {
			t.Fatal(err)
		}
		if _, has := bare["directed"]; has || !reflect.DeepEqual(bare["brackets"], row["brackets"]) {
			t.Errorf("%s: without heads: directed %v, brackets %v (with heads %v)", tc.name, bare["directed"], bare["brackets"], row["brackets"])
		}
	}
}
