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
