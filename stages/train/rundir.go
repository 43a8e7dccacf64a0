package train

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Files of a run directory (--run-dir): the log of iterations, the last
// checkpoint and the final model. run.json is the program's (commands).
const (
	RunLog        = "iterations.jsonl"
	RunCheckpoint = "checkpoint.json"
	RunModel      = "model.jsonl"
)

// Checkpoint is the state a training loop continues from: the model of
// the last M-step, exactly (JSON float64s round-trip), and what the
// stopping rule needs. It is written after every iteration the loop goes
// on from, and at every stage boundary of the annealers.
type Checkpoint struct {
	Stage      int         // the stage under way, from 1 (1 for EM)
	StageIters int         // iterations done in that stage
	Before     int         // iterations of the earlier stages
	Prev       float64     // the last iteration's objective (when StageIters > 0)
	Model      *dmv.Params // the model the next iteration's E-step runs with
}

// Done is the number of iterations the checkpoint holds.
func (c *Checkpoint) Done() int { return c.Before + c.StageIters }

type checkpointFile struct {
	Stage      int         `json:"stage"`
	StageIters int         `json:"stage_iters"`
	Before     int         `json:"before"`
	Prev       string      `json:"prev"` // strconv: the objective may be −∞
	Model      *dmv.Params `json:"model"`
}

// WriteCheckpoint writes c to dir atomically: a kill in the middle of the
// write leaves the previous checkpoint.
func WriteCheckpoint(dir string, c Checkpoint) error {
	b, err := json.Marshal(checkpointFile{c.Stage, c.StageIters, c.Before, strconv.FormatFloat(c.Prev, 'g', -1, 64), c.Model})
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return pipeline.WriteFile(filepath.Join(dir, RunCheckpoint), nil, func(o *pipeline.Output) error {
		_, err := o.Write(append(b, '\n'))
		return err
	})
}

// ReadCheckpoint reads the checkpoint of dir; nil when there is none yet.
func ReadCheckpoint(dir string, tags int) (*Checkpoint, error) {
	path := filepath.Join(dir, RunCheckpoint)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f checkpointFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	prev, err := strconv.ParseFloat(f.Prev, 64)
	if err != nil {
		return nil, fmt.Errorf("%s: prev: %w", path, err)
	}
	m := f.Model
	if m == nil || m.T != tags || len(m.Root) != tags || len(m.Child) != 2*tags*tags || len(m.Stop) != 4*tags || len(m.Cont) != 4*tags || f.Stage < 1 {
		return nil, fmt.Errorf("%s: not a checkpoint of this corpus's %d tags", path, tags)
	}
	return &Checkpoint{Stage: f.Stage, StageIters: f.StageIters, Before: f.Before, Prev: prev, Model: m}, nil
}

// openRunLog opens the iteration log of a run directory. On resume it
// keeps the complete lines of the iterations the checkpoint holds (a kill
// after a line and before its checkpoint leaves one more) and appends;
// seconds is the last kept line's, where the resumed log's clock goes on.
func openRunLog(dir string, resume bool, done int) (f *os.File, seconds float64, err error) {
	path := filepath.Join(dir, RunLog)
	if !resume {
		f, err = os.Create(path)
		return f, 0, err
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, 0, err
	}
	var kept bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(old))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var it format.Iteration
		if json.Unmarshal(sc.Bytes(), &it) != nil || it.Iter > done {
			break
		}
		kept.Write(sc.Bytes())
		kept.WriteByte('\n')
		seconds = it.Seconds
	}
	if err := pipeline.WriteFile(path, nil, func(o *pipeline.Output) error {
		_, err := o.Write(kept.Bytes())
		return err
	}); err != nil {
		return nil, 0, err
	}
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	return f, seconds, err
}
