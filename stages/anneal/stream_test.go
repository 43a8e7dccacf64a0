package anneal

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/train"
)

// DA, skewed DA and SA (Model L and Model S) on a streamed corpus
// (--stream) write the models they write from the corpus in memory, byte
// for byte, whatever the number of workers.
func TestStreamedAnnealingEqualsInMemory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.jsonl")
	var b bytes.Buffer
	for _, s := range corpora.SampledSentences(t, 400, 5, 1, 10, 1, 13) {
		pipeline.WriteRecord(&b, s)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src := pipeline.Source{Names: []string{path}}
	runs := map[string]func(job train.Job, w io.Writer) error{
		"DA": func(job train.Job, w io.Writer) error {
			return RunDA(src, w, job, DAOptions{Beta0: 0.25, Gamma: 2, MaxIter: 3})
		},
		"SDA": func(job train.Job, w io.Writer) error {
			return RunDA(src, w, job, DAOptions{Beta0: 0.25, Gamma: 2, Skew: true, MaxIter: 3})
		},
		"SA delta": func(job train.Job, w io.Writer) error {
			return RunSA(src, w, job, SAOptions{Anneals: Delta, Start: -0.4, Step: 0.2, Final: 0, MaxIter: 3})
		},
		"SA seg-beta": func(job train.Job, w io.Writer) error {
			return RunSA(src, w, job, SAOptions{Anneals: SegBeta, Start: 0.4, Step: -0.4, Final: -0.4, MaxIter: 3})
		},
	}
	for name, run := range runs {
		model := func(workers int, stream bool) []byte {
			var out bytes.Buffer
			job := train.Job{Init: "km", Workers: workers, Stream: stream, Progress: progress.New(io.Discard, name, progress.Plan{}, true)}
			if err := run(job, &out); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return out.Bytes()
		}
		want := model(1, false)
		for workers := 1; workers <= 3; workers += 2 {
			if got := model(workers, true); !bytes.Equal(got, want) {
				t.Errorf("%s, %d workers: the streamed model differs", name, workers)
			}
		}
	}
}
