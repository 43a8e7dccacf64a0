package commands

import (
	"math"

	"github.com/urfave/cli/v2"
)

// checkLambda refuses an add-λ that is not a finite number ≥ 0 (NaN and
// inf parse as floats, and would turn every probability into NaN).
func checkLambda(c *cli.Context) error {
	if l := c.Float64("lambda"); !(l >= 0) || math.IsInf(l, 1) {
		return usagef("--lambda must be a finite number ≥ 0, not %v", l)
	}
	return nil
}

// checkWorkers refuses a negative --workers (0 means every core).
func checkWorkers(c *cli.Context) error {
	if w := c.Int("workers"); w < 0 {
		return usagef("--workers must be ≥ 0 (0: every core), not %d", w)
	}
	return nil
}
