package program

import (
	"math"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/stages/memory"
)

// Flags of the programs that work with models and counts.

// ModelFlag is -m, the model a program reads.
func ModelFlag(required bool) cli.Flag {
	return &cli.StringFlag{Name: "model", Aliases: []string{"m"}, Required: required, Usage: "the model `FILE` (event records, as dmv-init, mstep and train-em write)"}
}

// WorkersFlag is --workers.
func WorkersFlag() cli.Flag {
	return &cli.IntFlag{Name: "workers", Value: 0, Usage: "`N` goroutines for the E-step (0: every core); the result does not depend on it"}
}

// LambdaFlag is --lambda, add-λ smoothing, described by usage.
func LambdaFlag(usage string) cli.Flag {
	return &cli.Float64Flag{Name: "lambda", Value: 0, Usage: strings.Replace(usage, "λ", "`λ`", 1)}
}

// ExpectCorpusFlag is mstep's and sumcounts' check that counts come from
// exactly a corpus's sentences, however it was sharded.
func ExpectCorpusFlag() cli.Flag {
	return &cli.StringFlag{Name: "expect-corpus", Usage: "fail unless the counts come from exactly the sentences (or lattices) of `CORPUS` (a whole shard lost, repeated or of another corpus)"}
}

// CheckLambda refuses an add-λ that is not a finite number ≥ 0 (NaN and
// inf parse as floats, and would turn every probability into NaN).
func CheckLambda(c *cli.Context) error {
	if l := c.Float64("lambda"); !(l >= 0) || math.IsInf(l, 1) {
		return Usagef("--lambda must be a finite number ≥ 0, not %v", l)
	}
	return nil
}

// maxWorkers bounds --workers: each worker holds its own chart, so a
// mistyped 10^9 would exhaust memory before any work.
const maxWorkers = 1024

// CheckWorkers refuses a --workers outside 0 (every core) … maxWorkers.
func CheckWorkers(c *cli.Context) error {
	if w := c.Int("workers"); w < 0 || w > maxWorkers {
		return Usagef("--workers must be between 0 (every core) and %d, not %d", maxWorkers, w)
	}
	return nil
}

// MaxMemoryFlag is --max-memory, the one limit of every program that
// allocates in proportion to states, tags, classes or sentence length.
func MaxMemoryFlag() cli.Flag {
	return &cli.StringFlag{Name: "max-memory", Value: "1G",
		Usage: "refuse, before allocating, work whose charts and model tables would need more than `SIZE`: 512M, 1G, 2T, or a number of MiB (0: this machine's memory)"}
}

// MaxMemory reads --max-memory in bytes; a bad value is a usage error.
func MaxMemory(c *cli.Context) (int64, error) {
	n, err := memory.Parse(c.String("max-memory"))
	if err != nil {
		return 0, Usagef("%v", err)
	}
	return n, nil
}
