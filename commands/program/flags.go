package program

import (
	"math"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Flags of the programs that work with models and counts.

// ModelFlag is -m, the model a program reads.
func ModelFlag(required bool) cli.Flag {
	return &cli.StringFlag{Name: "model", Aliases: []string{"m"}, Required: required, Usage: "the model `FILE` (event records, as dmv-init, mstep and train-em write)"}
}

// CheckModelFiles refuses "-" among model files: a model is read from a
// file, stdin being the sentences' (a reader given "-" without stdin
// would have nothing to read).
func CheckModelFiles(paths ...string) error {
	if slices.Contains(paths, "-") {
		return Usagef("a model is read from a file, not stdin (-): stdin is for the sentences")
	}
	return nil
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
	return CheckFloat(c, "lambda", NonNegative, "a finite number ≥ 0")
}

// CheckFloat refuses (a usage error) a value of the float flag name that
// ok rejects; want says what it must be. NaN and ±inf parse as floats,
// so every number a program takes is checked by such a rule before the
// run, never found bad in the middle of it.
func CheckFloat(c *cli.Context, name string, ok func(float64) bool, want string) error {
	if v := c.Float64(name); !ok(v) {
		return Usagef("--%s must be %s, not %v", name, want, v)
	}
	return nil
}

// CheckInt refuses a value of the int flag name below least.
func CheckInt(c *cli.Context, name string, least int) error {
	if v := c.Int(name); v < least {
		return Usagef("--%s must be at least %d, not %d", name, least, v)
	}
	return nil
}

// First is the first error of errs that is not nil: checks of flags in
// order, each a one-line message.
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Rules for CheckFloat.
func Positive(x float64) bool    { return x > 0 && !math.IsInf(x, 1) }
func NonNegative(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }
func AtLeastOne(x float64) bool  { return x >= 1 && !math.IsInf(x, 1) }

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
