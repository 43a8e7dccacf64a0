// Package rundir is the run directory every trainer keeps with --run-dir
// (run.json is the program's, package commands): the log of iterations,
// the last checkpoint, written atomically after every iteration the loop
// goes on from, and the final model. A family's trainer stores its own
// model in the checkpoint; what a checkpoint is and how the log is cut
// back on --resume is written once here.
package rundir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Files of a run directory: the log of iterations, the last checkpoint
// and the final model.
const (
	Log        = "iterations.jsonl"
	Checkpoint = "checkpoint.json"
	Model      = "model.jsonl"
)

// State is what a training loop continues from: the model of the last
// M-step, exactly (JSON float64s round-trip), and what the stopping rule
// needs. M is the family's model in a form that encoding/json writes and
// reads back unchanged.
type State[M any] struct {
	Stage      int     // the stage under way, from 1 (1 for EM)
	StageIters int     // iterations done in that stage
	Before     int     // iterations of the earlier stages
	Prev       float64 // the last iteration's objective (when StageIters > 0)
	Model      M       // the model the next iteration's E-step runs with
}

// Map is c with its model converted by f (a family's model to the form
// its checkpoints store, or back).
func Map[M, S any](c State[M], f func(M) S) State[S] {
	return State[S]{Stage: c.Stage, StageIters: c.StageIters, Before: c.Before, Prev: c.Prev, Model: f(c.Model)}
}

// Done is the number of iterations the state holds.
func (c *State[M]) Done() int { return c.Before + c.StageIters }

type stateFile[M any] struct {
	Stage      int    `json:"stage"`
	StageIters int    `json:"stage_iters"`
	Before     int    `json:"before"`
	Prev       string `json:"prev"` // strconv: the objective may be −∞
	Model      M      `json:"model"`
}

// Write writes c to dir's checkpoint atomically: a kill in the middle of
// the write leaves the previous checkpoint.
func Write[M any](dir string, c State[M]) error {
	b, err := json.Marshal(stateFile[M]{c.Stage, c.StageIters, c.Before, strconv.FormatFloat(c.Prev, 'g', -1, 64), c.Model})
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return pipeline.WriteFile(filepath.Join(dir, Checkpoint), nil, func(o *pipeline.Output) error {
		_, err := o.Write(append(b, '\n'))
		return err
	})
}

// Read reads the checkpoint of dir; nil when there is none yet. check,
// when not nil, says whether its model fits the run (nil when it does):
// a checkpoint edited or damaged is an error naming the file and line,
// never a different model.
func Read[M any](dir string, check func(M) error) (*State[M], error) {
	path := filepath.Join(dir, Checkpoint)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error { return Bad(dir, fmt.Errorf(format, args...)) }
	var f stateFile[M]
	if err := json.Unmarshal(b, &f); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, fmt.Errorf("%s:%d: not a checkpoint (invalid JSON: %v)", path, lineAt(b, syn.Offset), syn)
		case errors.As(err, &typ):
			return nil, fmt.Errorf("%s:%d: not a checkpoint (%v)", path, lineAt(b, typ.Offset), typ)
		}
		return nil, fmt.Errorf("%s:1: not a checkpoint (%v)", path, err)
	}
	prev, err := strconv.ParseFloat(f.Prev, 64)
	switch {
	case err != nil:
		return nil, bad("prev %q is not a number", f.Prev)
	case f.Stage < 1:
		return nil, bad("stage %d (stages count from 1)", f.Stage)
	case f.StageIters < 0 || f.Before < 0:
		return nil, bad("%d iterations in its stage after %d before it", f.StageIters, f.Before)
	case f.StageIters > 0 && (math.IsNaN(prev) || math.IsInf(prev, 1)):
		return nil, bad("the last objective is %v", prev)
	}
	if check != nil {
		if err := check(f.Model); err != nil {
			return nil, bad("%v", err)
		}
	}
	return &State[M]{Stage: f.Stage, StageIters: f.StageIters, Before: f.Before, Prev: prev, Model: f.Model}, nil
}

// Bad is the error of dir's checkpoint whose model does not fit the run
// (err says why), for a check made after Read.
func Bad(dir string, err error) error {
	return fmt.Errorf("%s:1: not a checkpoint of this run: %w", filepath.Join(dir, Checkpoint), err)
}

// lineAt is the line of byte offset off of b (the last line for an
// offset at its end, as a file cut short has it).
func lineAt(b []byte, off int64) int {
	b = bytes.TrimRight(b, "\n")
	return 1 + bytes.Count(b[:min(int(max(off, 0)), len(b))], []byte{'\n'})
}

// OpenLog opens the iteration log of a run directory. On resume it keeps
// the lines of the iterations the checkpoint holds (a kill after a line
// and before its checkpoint leaves one more, dropped) and appends;
// seconds is the last kept line's, where the resumed log's clock goes
// on. Each kept line must be the record of its iteration (iter 1, 2, …
// in order), and there must be as many as the checkpoint holds: a
// damaged log is an error naming its line, never cut short silently.
func OpenLog(dir string, resume bool, done int) (f *os.File, seconds float64, err error) {
	path := filepath.Join(dir, Log)
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
	line := 0
	for line < done && sc.Scan() {
		line++
		var it format.Iteration
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, 0, fmt.Errorf("%s:%d: not an iteration record: %v", path, line, err)
		}
		if it.Iter != line {
			return nil, 0, fmt.Errorf("%s:%d: the record of iteration %d where iteration %d's is due", path, line, it.Iter, line)
		}
		if !(it.Seconds >= seconds) || math.IsInf(it.Seconds, 1) {
			return nil, 0, fmt.Errorf("%s:%d: seconds %v after %v", path, line, it.Seconds, seconds)
		}
		kept.Write(sc.Bytes())
		kept.WriteByte('\n')
		seconds = it.Seconds
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	if line < done {
		return nil, 0, fmt.Errorf("%s: %d iteration records where the checkpoint (%s) holds %d: the log is cut short", path, line, Checkpoint, done)
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

// Begun says whether the run of dir got anywhere: a checkpoint, the final
// model or a line of its log. One that did not (it was killed while it
// was being set up, or failed before its first iteration ended) holds
// nothing a new run in its place would lose.
func Begun(dir string) bool {
	for _, name := range []string{Checkpoint, Model} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	fi, err := os.Stat(filepath.Join(dir, Log))
	return err == nil && fi.Size() > 0
}
