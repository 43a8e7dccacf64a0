package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/format"
)

// induce never reads gold heads: the model is the same, byte for byte,
// when the training and dev sentences carry them and when they do not,
// and for any --workers; the model is one decode takes.
func TestInduceReadsNoGold(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300) // Penn tags: the ptb rules
	data := readFile(t, corpus)
	var bare bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var s format.Sentence
		if err := json.Unmarshal(line, &s); err != nil {
			t.Fatal(err)
		}
		s.Heads = nil
		out, _ := format.Marshal(s)
		bare.Write(append(out, '\n'))
	}
	noGold := writeTemp(t, dir, "bare.jsonl", bare.Bytes())
	withGold := run(t, nil, "induce", "--preset", "quick", "--train", corpus, "--dev", corpus, "-q")
	without := run(t, nil, "induce", "--preset", "quick", "--train", noGold, "--dev", noGold, "-q", "--workers", "1")
	if !bytes.Equal(withGold, without) {
		t.Error("induce's model changes with the gold heads of its input (or with --workers)")
	}
	pred := run(t, nil, "decode", "-m", writeTemp(t, dir, "induced.jsonl", withGold), corpus)
	if !bytes.Contains(pred, []byte(`"pred":[`)) {
		t.Error("decode does not parse with induce's model")
	}
	// The report names every candidate and the choice.
	var out, errs bytes.Buffer
	args := []string{"induce", "--preset", "quick", "--train", noGold, "--dev", noGold}
	if code := program.Run(args[0], args, nil, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, want := range []string{"universal rules: ptb (detected from the tags)", "em init=zero λ=1 rules τ=0.9", "chosen: ", "parse with decode --mbr"} {
		if !strings.Contains(errs.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, errs.String())
		}
	}
}

// induce --words reads neither tags nor heads: from the same words, with
// and without them and for any --workers, it writes the same tagger and
// grammar; tag-classes and decode apply them to new text.
func TestInduceWords(t *testing.T) {
	dir := t.TempDir()
	data := readFile(t, sampledCorpus(t, dir, 300))
	rng := rand.New(rand.NewPCG(7, 1))
	var gold, bare bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var s format.Sentence
		if err := json.Unmarshal(line, &s); err != nil {
			t.Fatal(err)
		}
		for _, tag := range s.Tags { // a few words a tag, the first the most frequent
			s.Words = append(s.Words, fmt.Sprintf("%s%d", strings.ToLower(tag), rng.IntN(4)*rng.IntN(3)))
		}
		out, _ := format.Marshal(s)
		gold.Write(append(out, '\n'))
		out, _ = format.Marshal(format.Sentence{ID: s.ID, Words: s.Words})
		bare.Write(append(out, '\n'))
	}
	withGold := writeTemp(t, dir, "gold.jsonl", gold.Bytes())
	noGold := writeTemp(t, dir, "bare.jsonl", bare.Bytes())
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b", "c")
	run(t, nil, "induce", "--words", "--preset", "quick", "--classes", "4", "--function-words", "3", "--train", withGold, "--dev", withGold, "-q", "--workers", "2", "-o", a)
	run(t, nil, "induce", "--words", "--preset", "quick", "--classes", "4", "--function-words", "3", "--train", noGold, "--dev", noGold, "-q", "--workers", "1", "-o", b)
	for _, f := range []string{"tagger.jsonl", "model.jsonl"} {
		if !bytes.Equal(readFile(t, filepath.Join(a, f)), readFile(t, filepath.Join(b, f))) {
			t.Errorf("%s changes with the gold tags and heads of the input (or with --workers)", f)
		}
	}
	report := string(readFile(t, filepath.Join(a, "report.txt")))
	for _, want := range []string{"brown, ", "3 most frequent words", "universal rules: content-heads", "ranked by dev log-likelihood", "chosen: "} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	tagged := run(t, nil, "tag", "-q", "-m", filepath.Join(a, "tagger.jsonl"), noGold)
	if !bytes.Equal(tagged, run(t, nil, "tag-classes", "-q", "-m", filepath.Join(a, "tagger.jsonl"), noGold)) {
		t.Error("tag -m and tag-classes -m tag otherwise with induce --words's tagger")
	}
	if !bytes.Contains(tagged, []byte(`"w:`)) {
		t.Error("the tagger gives no function word a class of its own")
	}
	pred := run(t, tagged, "decode", "-q", "-m", filepath.Join(a, "model.jsonl"))
	if !bytes.Contains(pred, []byte(`"pred":[`)) {
		t.Error("decode does not parse the tagged text with induce --words's grammar")
	}
}

// Without --preset, induce trains the full grid on tagged text and the
// medium one from words; the old name "default" is refused with the
// names there are.
func TestInducePresets(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 40)
	report := filepath.Join(dir, "report.txt")
	run(t, nil, "induce", "--train", corpus, "--dev", corpus, "-q", "--report", report)
	if got := string(readFile(t, report)); !strings.HasPrefix(got, "induce: 84 candidates (preset full) ") {
		t.Errorf("induce's default grid is not full's 84 candidates:\n%s", got)
	}
	var words bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(readFile(t, corpus)), []byte("\n")) {
		var s format.Sentence
		if err := json.Unmarshal(line, &s); err != nil {
			t.Fatal(err)
		}
		out, _ := format.Marshal(format.Sentence{ID: s.ID, Words: s.Tags})
		words.Write(append(out, '\n'))
	}
	bare := writeTemp(t, dir, "words.jsonl", words.Bytes())
	out := filepath.Join(dir, "w")
	run(t, nil, "induce", "--words", "--classes", "3", "--function-words", "2", "--train", bare, "--dev", bare, "-q", "-o", out)
	if got := string(readFile(t, filepath.Join(out, "report.txt"))); !strings.Contains(got, "4 candidates (preset medium)") {
		t.Errorf("induce --words's default grid is not medium's 4 candidates:\n%s", got)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"induce", "--preset", "default", "--train", corpus, "--dev", corpus}
	if code := program.Run(args[0], args, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "quick, medium, full") || stdout.Len() > 0 {
		t.Errorf("--preset default: exit %d, stdout %d bytes, stderr %q; want 2, nothing, the preset names", code, stdout.Len(), stderr.String())
	}
}
