package commands

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// train-ccm --tol 0 runs to --max-iter, as train-em's does: only an
// objective that does not change at all ends it sooner (it once fell back
// to the default 1e-6 and stopped where the default does).
func TestTrainCCMTolZero(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 120)
	// iterations runs train-ccm and returns its log's length and last change.
	iterations := func(args ...string) (int, float64) {
		log := filepath.Join(dir, "log.jsonl")
		run(t, nil, append(append([]string{"train-ccm", "--quiet", "--max-iter", "60", "--log", log}, args...), corpus)...)
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
		var last struct{ Change float64 }
		if err := json.Unmarshal(lines[len(lines)-1], &last); err != nil {
			t.Fatal(err)
		}
		return len(lines), last.Change
	}
	byDefault, _ := iterations()
	n, change := iterations("--tol", "0")
	if n <= byDefault || (n < 60 && change != 0) {
		t.Errorf("--tol 0 --max-iter 60: %d iterations, the last changing the objective by %g; the default tolerance %d", n, change, byDefault)
	}
}
