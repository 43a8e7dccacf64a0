package corpora

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ptbstrip"
	"github.com/grind-nlp/grind/stages/treebanks"
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
	return Converted(t, maxLen, func(w io.Writer) error {
		_, err := ptbstrip.Strip(pipeline.Source{Names: names}, w, ptbstrip.Options{})
		return err
	})
}

// TreebankTrees is the Spanish (treebanks.CESS, cess_esp/*.tbf) or Chinese
// (treebanks.Sinica, sinica_treebank/parsed) sample stripped of empty
// elements and punctuation, sentences of length ≤ maxLen: 829 and 5,500
// sentences at 10.
func TreebankTrees(t testing.TB, f treebanks.Format, maxLen int) []*format.Sentence {
	t.Helper()
	var names []string
	if f == treebanks.CESS {
		dir := testenv.SharedData(t, "cess_esp")
		names, _ = filepath.Glob(filepath.Join(dir, "*.tbf"))
	} else {
		names = []string{testenv.SharedData(t, "sinica_treebank", "parsed")}
	}
	return Converted(t, maxLen, func(w io.Writer) error {
		_, err := treebanks.Strip(pipeline.Source{Names: names}, w, f, false)
		return err
	})
}
