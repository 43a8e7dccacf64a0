package cecmd

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
)

func run(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errs bytes.Buffer
	if code := program.Run(args[0], args, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errs.String())
	}
	return out.Bytes()
}

// CE from zero starts from the weight vector 0 (DESIGN.md §5.2): the same
// run as from a "w" model of all zeros, and not the run from the model
// that dmv-init --init zero writes (one E-step and an M-step later).
func TestCEFromZeroIsWeightsZero(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.jsonl")
	sents := `{"tags":["DT","NN","VB"]}
{"tags":["NN","VB","DT","NN"]}
{"tags":["DT","JJ","NN","VB","RB"]}
{"tags":["VB","DT","NN"]}
`
	if err := os.WriteFile(corpus, []byte(sents), 0o644); err != nil {
		t.Fatal(err)
	}
	zeroModel := run(t, "dmv-init", "--init", "zero", corpus)
	weights := filepath.Join(dir, "w0.jsonl")
	if err := os.WriteFile(weights, bytes.Replace(regexp.MustCompile(`"p":[^,}]*`).ReplaceAll(zeroModel, []byte(`"w":0`)), []byte(`"unit":"p"`), []byte(`"unit":"w"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "zero.jsonl")
	if err := os.WriteFile(model, zeroModel, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--nbhd", "trans1", "--sigma2", "1", "--max-iter", "5", "-q", corpus}
	fromInit := run(t, append([]string{"train-ce", "--init", "zero"}, args...)...)
	fromWeights := run(t, append([]string{"train-ce", "-m", weights}, args...)...)
	if !bytes.Equal(fromInit, fromWeights) {
		t.Fatal("train-ce --init zero differs from train-ce -m (all weights 0)")
	}
	if bytes.Equal(fromInit, run(t, append([]string{"train-ce", "-m", model}, args...)...)) {
		t.Fatal("train-ce --init zero equals the run from dmv-init's zero model")
	}
}
