package corpora

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ptbstrip"
)

// PTBTrees is the PTB sample stripped of empty elements and punctuation,
// sentences of length ≤ maxLen with "words", "tags" and "tree": `ptbstrip
// wsj/*/*.mrg | filterlen maxLen` — 555 sentences at 10, 542 of two or more
// tokens.
func PTBTrees(t testing.TB, maxLen int) []*format.Sentence {
	t.Helper()
	dir := testenv.SharedData(t, "ptb-sample", "wsj")
	names, err := filepath.Glob(filepath.Join(dir, "*", "*.mrg"))
	if err != nil || len(names) == 0 {
		t.Skipf("no .mrg files under %s", dir)
	}
	var out bytes.Buffer
	if _, err := ptbstrip.Strip(pipeline.Source{Names: names}, &out, ptbstrip.Options{}); err != nil {
		t.Fatal(err)
	}
	all, err := pipeline.ReadSentences(pipeline.Source{Stdin: &out})
	if err != nil {
		t.Fatal(err)
	}
	var sents []*format.Sentence
	for _, s := range all {
		if s.Len() <= maxLen {
			sents = append(sents, s)
		}
	}
	return sents
}
