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

// maxWorkers bounds --workers: each worker holds its own chart, so a
// mistyped 10^9 would exhaust memory before any work.
const maxWorkers = 1024

// checkWorkers refuses a --workers outside 0 (every core) … maxWorkers.
func checkWorkers(c *cli.Context) error {
	if w := c.Int("workers"); w < 0 || w > maxWorkers {
		return usagef("--workers must be between 0 (every core) and %d, not %d", maxWorkers, w)
	}
	return nil
}

// expectCorpusFlag is mstep's and sumcounts' check that counts come from
// exactly a corpus's sentences, however it was sharded.
func expectCorpusFlag() cli.Flag {
	return &cli.StringFlag{Name: "expect-corpus", Usage: "fail unless the counts come from exactly the sentences (or lattices) of `CORPUS` (a whole shard lost, repeated or of another corpus)"}
}
