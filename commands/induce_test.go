package commands

import (
	"bytes"
	"encoding/json"
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
	for _, want := range []string{"universal rules: ptb (detected from the tags)", "em init=zero λ=1 rules τ=0.9", "chosen: "} {
		if !strings.Contains(errs.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, errs.String())
		}
	}
}
