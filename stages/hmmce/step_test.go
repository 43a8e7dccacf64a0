package hmmce

import (
	"io"
	"testing"

	"github.com/grind-nlp/grind/internal/golden"
	"github.com/grind-nlp/grind/stages/cesearch"
)

// State files of 7fe9ac9's ce-step --states (testdata/state: the first
// evaluation, a few steps in with spelling and a trial under way, a
// training done) read back and saved again as a step saves them — the
// search rebuilt, the model's hash made again — are the same bytes.
func TestStateFilesRewrittenByteForByte(t *testing.T) {
	golden.Rewritten(t, "testdata/state/*.json", 3, func(path, out string) error {
		st, err := ReadState(path)
		if err != nil {
			return err
		}
		var search *cesearch.Search
		if st.Search != nil {
			if search, err = cesearch.Restore(st.Search); err != nil {
				return err
			}
		}
		return st.save(io.Discard, out, st.model(), search)
	})
}
