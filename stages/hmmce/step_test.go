package hmmce

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/stages/cesearch"
)

// State files of 7fe9ac9's ce-step --states (testdata/state: the first
// evaluation, a few steps in with spelling and a trial under way, a
// training done) read back and saved again as a step saves them — the
// search rebuilt, the model's hash made again — are the same bytes.
func TestStateFilesRewrittenByteForByte(t *testing.T) {
	paths, _ := filepath.Glob("testdata/state/*.json")
	if len(paths) < 3 {
		t.Fatalf("%d state files in testdata/state", len(paths))
	}
	dir := t.TempDir()
	for _, path := range paths {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		st, err := ReadState(path)
		if err != nil {
			t.Fatal(err)
		}
		var search *cesearch.Search
		if st.Search != nil {
			if search, err = cesearch.Restore(st.Search); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		again := filepath.Join(dir, filepath.Base(path))
		if err := st.save(io.Discard, again, st.model(), search); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(again); string(got) != string(want) {
			t.Errorf("%s saved again:\n%s\nnot\n%s", path, got, want)
		}
	}
}
