package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// train-hmm --save-model writes a model that tag -m (posterior) and tag
// --viterbi decode into train-hmm's own tags, for every estimator that
// has a model (vb decodes under its weights exp E[log θ]).
func TestHMMModelFile(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.jsonl")
	lines := []string{
		`{"id":"1","words":["the","dog","runs"],"tags":["DT","NN","VB"]}`,
		`{"id":"2","words":["a","big","dog","sees","the","cat"],"tags":["DT","JJ","NN","VB","DT","NN"]}`,
		`{"id":"3","words":["it","runs"],"tags":["PR","VB"]}`,
		`{"id":"4","words":["the","cat","sees","it"],"tags":["DT","NN","VB","PR"]}`,
	}
	if err := os.WriteFile(corpus, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, est := range []string{"em", "map", "da", "sda", "vb"} {
		for _, viterbi := range []bool{false, true} {
			model := filepath.Join(dir, est+".jsonl")
			args := []string{"train-hmm", "--quiet", "--states", "3", "--estimator", est, "--max-iter", "4", "--save-model", model}
			tagArgs := []string{"tag", "-m", model}
			if viterbi {
				args = append(args, "--viterbi")
				tagArgs = append(tagArgs, "--viterbi")
			}
			trained := run(t, nil, append(args, corpus)...)
			if tagged := run(t, nil, append(tagArgs, corpus)...); !bytes.Equal(tagged, trained) {
				t.Errorf("%s (viterbi %v): tag -m differs from train-hmm:\n%s\nwant\n%s", est, viterbi, tagged, trained)
			}
		}
	}
}
