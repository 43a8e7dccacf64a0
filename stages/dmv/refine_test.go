package dmv

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
)

func TestEnding(t *testing.T) {
	for word, want := range map[string]string{
		"変更後は": "は", "した。": "た", "見る！」": "る", "。": "。", "dogs": "s", "": "",
	} {
		if got := Ending(word); got != want {
			t.Errorf("Ending(%q) = %q, want %q", word, got, want)
		}
	}
}

// The refinement keeps the tag and ending pairs seen min times, and
// Table.Refined reads a sentence as a model over them does: refined where
// the model has the refined tag, bare elsewhere, s itself for a model of
// bare tags.
func TestRefineEndings(t *testing.T) {
	s := func(words ...string) *format.Sentence {
		return &format.Sentence{Words: words, Tags: slices.Repeat([]string{"NOUN"}, len(words))}
	}
	sents := []*format.Sentence{s("山の", "川は"), s("本の", "人を"), s("車の")}
	kept := FrequentEndings(sents, 2)
	if want := []string{"NOUN_の"}; !slices.Equal(kept, want) {
		t.Fatalf("kept %v, want %v", kept, want)
	}
	m := &Table{Tags: NewTagSet(append(kept, "NOUN")...), Refine: RefineEnding}
	x := s("山の", "川は")
	if got := m.Refined(x); !slices.Equal(got.Tags, []string{"NOUN_の", "NOUN"}) || !slices.Equal(x.Tags, []string{"NOUN", "NOUN"}) {
		t.Errorf("refined %v (the sentence's own tags now %v)", got.Tags, x.Tags)
	}
	if m.Refine = ""; m.Refined(x) != x {
		t.Error("a model of bare tags reads a copy")
	}
}

// A model over refined tags says so in its header and reads back the
// same; ReadModel, for the programs that do not refine, refuses it; an
// unknown refinement is refused by the reader and the writer.
func TestRefinedModelFile(t *testing.T) {
	p := randomWeights(rand.New(rand.NewPCG(2, 9)), 2, true)
	m := &Table{Tags: NewTagSet("NOUN", "NOUN_の"), Params: p, Unit: format.Prob, Refine: RefineEnding}
	var b bytes.Buffer
	if err := WriteModel(&b, m); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"refine":"ending"}`)) {
		t.Fatalf("header: %s", b.Bytes()[:bytes.IndexByte(b.Bytes(), '\n')])
	}
	path := filepath.Join(t.TempDir(), "m.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	back, err := ReadParsingModel(path)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteModel(&again, back); err != nil || !bytes.Equal(again.Bytes(), b.Bytes()) {
		t.Errorf("read and written again differs (%v)", err)
	}
	if _, err := ReadModel(path); err == nil || !strings.Contains(err.Error(), "decode and select-model read it") {
		t.Errorf("ReadModel: %v", err)
	}
	other := bytes.Replace(b.Bytes(), []byte(`"ending"`), []byte(`"suffix"`), 1)
	if _, err := readModelBytes(t, other); err == nil || !strings.Contains(err.Error(), `"refine" "suffix"`) {
		t.Errorf("an unknown refinement read: %v", err)
	}
	m.Refine = "suffix"
	if err := WriteModel(&bytes.Buffer{}, m); err == nil {
		t.Error("an unknown refinement written")
	}
}
