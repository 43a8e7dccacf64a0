package corpora

import (
	"bytes"
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
	var out bytes.Buffer
	if _, err := treebanks.Strip(pipeline.Source{Names: names}, &out, f, false); err != nil {
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
