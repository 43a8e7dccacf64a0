package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
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

// An HMM count shard's corpus hash covers the words, the only thing the
// HMM reads: mstep --expect-corpus and sumcounts --expect-corpus take
// the counts of a corpus for that corpus and refuse them for the same
// sentences with one word changed (ids, tags and heads alike).
func TestHMMCorpusHashCoversWords(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lines ...string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	corpus := write("c.jsonl", `{"id":"1","words":["the","dog","runs"],"tags":["DT","NN","VB"]}`, `{"id":"2","words":["a","cat"],"tags":["DT","NN"]}`)
	other := write("o.jsonl", `{"id":"1","words":["the","cat","runs"],"tags":["DT","NN","VB"]}`, `{"id":"2","words":["a","cat"],"tags":["DT","NN"]}`)
	model := filepath.Join(dir, "m.jsonl")
	run(t, nil, "train-hmm", "-q", "--states", "2", "--max-iter", "2", "--save-model", model, corpus)
	counts := write("n.jsonl", strings.TrimSuffix(string(run(t, nil, "estep", "-m", model, corpus)), "\n"))
	for _, prog := range []string{"mstep", "sumcounts"} {
		run(t, nil, prog, "--expect-corpus", corpus, counts)
		var out, errs bytes.Buffer
		args := []string{prog, "--expect-corpus", other, counts}
		if code := program.Run(prog, args, nil, &out, &errs); code != 1 || !strings.Contains(errs.String(), "do not come from the sentences of "+other) {
			t.Errorf("%s: exit %d, %q; want the counts refused for the corpus with a word changed", strings.Join(args, " "), code, errs.String())
		}
	}
}
