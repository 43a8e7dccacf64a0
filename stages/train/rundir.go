package train

import (
	"fmt"
	"math"

	"github.com/grind-nlp/grind/format"
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
// Its model must be over the corpus's tags and be what the run's models
// are: of unit format.Prob a distribution (dmv.CheckDistribution), of
// format.Weight weights within ±dmv.MaxWeight.
func ReadCheckpoint(dir string, tags *dmv.TagSet, unit format.Unit) (*Checkpoint, error) {
	t := tags.Len()
	return rundir.Read(dir, func(m *dmv.Params) error {
		if m == nil || m.T != t || len(m.Root) != t || len(m.Child) != 2*t*t || len(m.Stop) != 4*t || len(m.Cont) != 4*t {
			return fmt.Errorf("not over this corpus's %d tags", t)
		}
		if unit == format.Weight {
			for _, tab := range m.Tables() {
				for _, w := range tab {
					if !(math.Abs(w) <= dmv.MaxWeight) {
						return fmt.Errorf("a weight %v beyond ±%d", w, dmv.MaxWeight)
					}
				}
			}
			return nil
		}
		return dmv.CheckDistribution(tags, m)
	})
}
