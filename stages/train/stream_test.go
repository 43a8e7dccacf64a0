package train

import (
	"bytes"
	"io"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/dmv"
)

var secondsField = regexp.MustCompile(`"seconds":[^,}]*`)

// directed is a small accuracy for the logs: the share of tokens whose
// predicted head is the gold one.
func directed(pairs iter.Seq2[[]int, []int]) (float64, float64) {
	right, all := 0, 0
	for gold, pred := range pairs {
		for k, h := range gold {
			if pred[k] == h {
				right++
			}
			all++
		}
	}
	return float64(right) / float64(all), 0
}

// Training on a streamed corpus (train-em --stream) writes the model and
// the log (accuracy on its gold heads included) that training in memory
// writes, byte for byte, for any number of workers and any initializer.
func TestStreamedTrainingEqualsInMemory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.jsonl")
	var b bytes.Buffer
	for _, s := range corpora.SampledSentences(t, 600, 5, 1, 12, 1, 11) {
		if err := pipeline.WriteRecord(&b, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(init string, workers int, stream bool) (model, log []byte) {
		var out bytes.Buffer
		logPath := filepath.Join(dir, "log.jsonl")
		job := Job{Init: init, Workers: workers, Stream: stream, LogPath: logPath, Evaluate: directed,
			Progress: progress.New(io.Discard, "train-em", progress.Plan{}, true)}
		if err := RunEM(pipeline.Source{Names: []string{path}}, &out, job, EMOptions{MaxIter: 4, FinalLambda: -1}); err != nil {
			t.Fatal(err)
		}
		log, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		// Seconds differ from run to run; the rest of each line must not.
		return out.Bytes(), secondsField.ReplaceAll(log, nil)
	}
	for _, init := range []string{dmv.InitKM, dmv.InitZero, dmv.InitLocal} {
		wantModel, wantLog := run(init, 1, false)
		for workers := 1; workers <= 3; workers++ {
			model, log := run(init, workers, true)
			if !bytes.Equal(model, wantModel) {
				t.Errorf("%s, %d workers: the streamed model differs", init, workers)
			}
			if !bytes.Equal(log, wantLog) {
				t.Errorf("%s, %d workers: the streamed log differs:\n%s\nin memory:\n%s", init, workers, log, wantLog)
			}
		}
	}
}
