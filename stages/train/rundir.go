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
// Its model must have the corpus's tags and the run's valence settings
// (a checkpoint written before models had them is the plain DMV's).
func ReadCheckpoint(dir string, tags int, v dmv.Valence) (*Checkpoint, error) {
	return rundir.Read(dir, func(m *dmv.Params) error {
		if m != nil && m.V == (dmv.Valence{}) {
			m.V = dmv.DMVValence
		}
		if m == nil || m.T != tags || m.V != v || len(m.Root) != tags || len(m.Child) != 2*v.Child*tags*tags || len(m.Stop) != 2*v.Stop*tags || len(m.Cont) != 2*v.Stop*tags {
			return fmt.Errorf("not a checkpoint of this corpus's %d tags with %s", tags, v)
		}
		return nil
	})
}
