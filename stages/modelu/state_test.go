package modelu

import (
	"testing"

	"github.com/grind-nlp/grind/internal/golden"
)

// State files of 7fe9ac9's ce-step --family modelu and train-ce --family
// modelu --run-dir (testdata/state: the first evaluation, a few steps in
// with spelling, a training done, a run directory's, without started)
// read back as a training and written again are the same bytes.
func TestStateFilesRewrittenByteForByte(t *testing.T) {
	golden.Rewritten(t, "testdata/state/*.json", 4, func(path, out string) error {
		tr, err := ReadState(path)
		if err != nil {
			return err
		}
		return tr.WriteState(out)
	})
}
