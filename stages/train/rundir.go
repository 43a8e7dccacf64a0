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
// Its model must be over the corpus's tags with the run's valence settings
// (a checkpoint written before models had them is the plain DMV's) and be
// what the run's models are: of unit format.Prob a distribution
// (dmv.CheckDistribution; under variational Bayes, vb, a sub-distribution),
// of format.Weight weights within ±dmv.MaxWeight.
func ReadCheckpoint(dir string, tags *dmv.TagSet, unit format.Unit, v dmv.Valence, vb bool) (*Checkpoint, error) {
	t := tags.Len()
	return rundir.Read(dir, func(m *dmv.Params) error {
		if m != nil {
			m.V = m.V.OrDMV()
		}
		if m == nil || m.T != t || m.V != v || len(m.Root) != t || len(m.Child) != 2*v.Child*t*t || len(m.Stop) != 2*v.Stop*t || len(m.Cont) != 2*v.Stop*t {
			return fmt.Errorf("not over this corpus's %d tags with %s", t, v)
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
		if vb {
			return dmv.CheckSubDistribution(tags, m)
		}
		return dmv.CheckDistribution(tags, m)
	})
}
