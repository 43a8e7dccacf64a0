package commands

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
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

// The CE tagger train-hmm --estimator ce --save-model writes tags its
// training text, through tag -m and decode -m, as train-hmm did (both are
// Viterbi), with and without spelling features and a tag dictionary; and
// the text without its tags (raw words) the same way.
func TestCETaggerFile(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.jsonl")
	raw := filepath.Join(dir, "raw.jsonl")
	lines := []string{
		`{"id":"1","words":["the","dog","runs"],"tags":["DT","NN","VB"]}`,
		`{"id":"2","words":["a","big","dog","sees","the","cat"],"tags":["DT","JJ","NN","VB","DT","NN"]}`,
		`{"id":"3","words":["it","runs"],"tags":["PR","VB"]}`,
		`{"id":"4","words":["the","cat","sees","it"],"tags":["DT","NN","VB","PR"]}`,
	}
	var rawLines []string
	for _, l := range lines {
		rawLines = append(rawLines, l[:strings.Index(l, `,"tags"`)]+"}")
	}
	os.WriteFile(corpus, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	os.WriteFile(raw, []byte(strings.Join(rawLines, "\n")+"\n"), 0o644)
	for _, flags := range [][]string{{}, {"--spelling"}, {"--spelling", "--dict", "2"}, {"--trigram", "--spelling"}, {"--trigram", "--dict", "1"}} {
		model := filepath.Join(dir, "ce.jsonl")
		args := append([]string{"train-hmm", "--quiet", "--states", "3", "--estimator", "ce", "--noise", "0.1", "--max-iter", "10"}, flags...)
		trained := run(t, nil, append(args, "--save-model", model, corpus)...)
		if tagged := run(t, nil, "tag", "-m", model, corpus); !bytes.Equal(tagged, trained) {
			t.Errorf("%v: tag -m differs from train-hmm:\n%s\nwant\n%s", flags, tagged, trained)
		}
		if decoded := run(t, nil, "decode", "-q", "-m", model, corpus); !bytes.Equal(decoded, trained) {
			t.Errorf("%v: decode -m differs from train-hmm:\n%s\nwant\n%s", flags, decoded, trained)
		}
		if slices.Contains(flags, "--dict") {
			continue // the dictionary comes from the gold tags
		}
		rawTrained := run(t, nil, append(args, raw)...)
		if bytes.Count(rawTrained, []byte(`"tags"`)) != len(lines) || bytes.Contains(rawTrained, []byte("gold_tags")) {
			t.Errorf("%v: raw words tagged with gold tags:\n%s", flags, rawTrained)
		}
		if tagged := run(t, nil, "tag", "-m", model, raw); !bytes.Equal(tagged, rawTrained) {
			t.Errorf("%v: tag -m on raw words differs from train-hmm on them:\n%s\nwant\n%s", flags, tagged, rawTrained)
		}
	}
}

// train-hmm -m starts from a saved model: n more EM (or MAP) iterations
// from the model of m iterations write the model and tags of m + n, byte
// for byte; and every estimator starts from it.
func TestHMMStartFromModel(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.jsonl")
	os.WriteFile(corpus, []byte(strings.Join([]string{
		`{"id":"1","words":["the","dog","runs"],"tags":["DT","NN","VB"]}`,
		`{"id":"2","words":["a","big","dog","sees","the","cat"],"tags":["DT","JJ","NN","VB","DT","NN"]}`,
		`{"id":"3","words":["it","runs"],"tags":["PR","VB"]}`,
	}, "\n")+"\n"), 0o644)
	for _, est := range []string{"em", "map"} {
		for _, dict := range []string{"0", "1"} {
			m3, m5, m5b := filepath.Join(dir, "m3.jsonl"), filepath.Join(dir, "m5.jsonl"), filepath.Join(dir, "m5b.jsonl")
			common := []string{"train-hmm", "-q", "--states", "3", "--estimator", est, "--dict", dict}
			run(t, nil, append(common, "--max-iter", "3", "--save-model", m3, corpus)...)
			want := run(t, nil, append(common, "--max-iter", "5", "--save-model", m5, corpus)...)
			got := run(t, nil, append(common, "--max-iter", "2", "-m", m3, "--save-model", m5b, corpus)...)
			a, _ := os.ReadFile(m5)
			b, _ := os.ReadFile(m5b)
			if !bytes.Equal(got, want) || !bytes.Equal(a, b) {
				t.Errorf("%s dict %s: 3 iterations then 2 from the model differ from 5", est, dict)
			}
		}
	}
	m := filepath.Join(dir, "m.jsonl")
	run(t, nil, "train-hmm", "-q", "--states", "3", "--max-iter", "3", "--save-model", m, corpus)
	for _, est := range []string{"da", "sda", "vb", "gibbs", "ce"} {
		out := run(t, nil, "train-hmm", "-q", "--estimator", est, "--max-iter", "2", "-m", m, corpus)
		if bytes.Count(out, []byte("\n")) != 3 || !bytes.Contains(out, []byte(`"tags":["s`)) {
			t.Errorf("%s from a model: %s", est, out)
		}
	}
}

// select-model --by contrast ranks CE taggers (and HMM models, mixed
// families refused) by their contrastive objective on dev text of raw
// words: the rows' values are higher first, and a tagger trained longer
// on the same text under that neighbourhood scores above its start.
func TestSelectCETaggersByContrast(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.jsonl")
	dev := filepath.Join(dir, "dev.jsonl")
	os.WriteFile(corpus, []byte(strings.Join([]string{
		`{"words":["the","dog","runs"]}`, `{"words":["a","big","dog","sees","the","cat"]}`,
		`{"words":["it","runs"]}`, `{"words":["the","cat","sees","it"]}`, `{"words":["a","dog","sees","a","cat"]}`,
	}, "\n")+"\n"), 0o644)
	os.WriteFile(dev, []byte(`{"words":["the","cat","runs"]}`+"\n"+`{"words":["a","dog","sees","the","zebra"]}`+"\n"), 0o644)
	var models []string
	for _, iters := range []string{"1", "30"} {
		m := filepath.Join(dir, "ce"+iters+".jsonl")
		run(t, nil, "train-hmm", "-q", "--states", "3", "--estimator", "ce", "--nbhd", "trans1", "--noise", "0.1", "--max-iter", iters, "--save-model", m, corpus)
		models = append(models, m)
	}
	out := run(t, nil, append([]string{"select-model", "-q", "--json", "--by", "contrast", "--nbhd", "trans1", "--dev", dev}, models...)...)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "ce30.jsonl") || !strings.Contains(lines[0], `"contrast":`) {
		t.Fatalf("ranking:\n%s", out)
	}
	hmmModel := filepath.Join(dir, "hmm.jsonl")
	run(t, nil, "train-hmm", "-q", "--states", "3", "--save-model", hmmModel, corpus)
	var errs bytes.Buffer
	args := []string{"select-model", "--by", "contrast", "--dev", dev, models[0], hmmModel}
	if code := program.Run(args[0], args, nil, io.Discard, &errs); code != 1 || !strings.Contains(errs.String(), "one family at a time") {
		t.Errorf("mixed families: exit %d, %s", code, errs.String())
	}
	if out := run(t, nil, "select-model", "-q", "--by", "contrast", "--nbhd", "trans1", "--dev", dev, hmmModel); !strings.Contains(string(out), "contrast") {
		t.Errorf("an HMM model by contrast:\n%s", out)
	}
}
