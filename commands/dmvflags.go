package commands

import (
	"math"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline/progress"
)

func seedFlag() cli.Flag {
	return &cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed `S`; the same seed gives the same output"}
}

// newProgress reports on stderr for the program, unless --quiet.
func newProgress(c *cli.Context, total int) *progress.Reporter {
	return progress.New(c.App.ErrWriter, c.App.Name, total, c.Bool("quiet"))
}

// Tolerance reads --tol: absent, 0 tells the training loop to use its
// default; given, it is taken at its word. The loops stop when the
// relative change is below the tolerance, so --tol 0 becomes the smallest
// positive number: only an objective that does not change at all stops
// the run before --max-iter.
func Tolerance(c *cli.Context) (float64, error) {
	if !c.IsSet("tol") {
		return 0, nil
	}
	tol := c.Float64("tol")
	switch {
	case !(tol >= 0) || math.IsInf(tol, 1):
		return 0, program.Usagef("--tol must be a finite number ≥ 0, not %g", tol)
	case tol == 0:
		return math.SmallestNonzeroFloat64, nil
	}
	return tol, nil
}
