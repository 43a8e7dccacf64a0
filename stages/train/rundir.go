package train

import (
	"fmt"

	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/rundir"
)

// Files of a run directory (--run-dir), package rundir's.
const (
	RunLog        = rundir.Log
	RunCheckpoint = rundir.Checkpoint
	RunModel      = rundir.Model
)

// Checkpoint is the DMV's state in a run directory (rundir.State): written
// after every iteration the loop goes on from, and at every stage boundary
// of the annealers.
type Checkpoint = rundir.State[*dmv.Params]

// WriteCheckpoint writes c to dir atomically.
func WriteCheckpoint(dir string, c Checkpoint) error { return rundir.Write(dir, c) }

// ReadCheckpoint reads the checkpoint of dir; nil when there is none yet.
func ReadCheckpoint(dir string, tags int) (*Checkpoint, error) {
	return rundir.Read(dir, func(m *dmv.Params) error {
		if m == nil || m.T != tags || len(m.Root) != tags || len(m.Child) != 2*tags*tags || len(m.Stop) != 4*tags || len(m.Cont) != 4*tags {
			return fmt.Errorf("not a checkpoint of this corpus's %d tags", tags)
		}
		return nil
	})
}
