package modelu

import (
	"os"
	"path/filepath"
	"testing"
)

// State files of 7fe9ac9's ce-step --family modelu and train-ce --family
// modelu --run-dir (testdata/state: the first evaluation, a few steps in
// with spelling, a training done, a run directory's, without started)
// read back as a training and written again are the same bytes.
func TestStateFilesRewrittenByteForByte(t *testing.T) {
	paths, _ := filepath.Glob("testdata/state/*.json")
	if len(paths) < 4 {
		t.Fatalf("%d state files in testdata/state", len(paths))
	}
	dir := t.TempDir()
	for _, path := range paths {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := ReadState(path)
		if err != nil {
			t.Fatal(err)
		}
		again := filepath.Join(dir, filepath.Base(path))
		if err := tr.WriteState(again); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(again); string(got) != string(want) {
			t.Errorf("%s written again:\n%s\nnot\n%s", path, got, want)
		}
	}
}
