package program

import (
	"math"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/memory"
)

// Flags of the programs that work with models and counts.

// ModelFlag is -m, the model a program reads.
func ModelFlag(required bool) cli.Flag {
	return &cli.StringFlag{Name: "model", Aliases: []string{"m"}, Required: required, TakesFile: true, Usage: "the model `FILE` (event records, as dmv-init, mstep and train-em write)"}
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
	return &cli.StringFlag{Name: "expect-corpus", TakesFile: true, Usage: "fail unless the counts come from exactly the sentences (or lattices) of `CORPUS` (a whole shard lost, repeated or of another corpus)"}
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

// AlphaFlag is --alpha, the symmetric Dirichlet hyperparameter of the
// DMV's variational-Bayes M-step, default def.
func AlphaFlag(def float64, usage string) cli.Flag {
	return &cli.Float64Flag{Name: "alpha", Value: def, Usage: strings.Replace(usage, "α", "`α`", 1)}
}

// VBAlpha reads --alpha when vb (the run's M-step is variational Bayes,
// chosen by the flag named choose): a finite number > 0, and no --lambda
// beside it. Without vb, --alpha is refused and 0 returned.
func VBAlpha(c *cli.Context, vb bool, choose string) (float64, error) {
	a := c.Float64("alpha")
	switch {
	case !vb && c.IsSet("alpha"):
		return 0, Usagef("--alpha is the Dirichlet hyperparameter of variational Bayes: give it with %s", choose)
	case !vb:
		return 0, nil
	case !(a > 0) || math.IsInf(a, 1):
		return 0, Usagef("--alpha must be a finite number > 0, not %v", a)
	case c.IsSet("lambda"):
		return 0, Usagef("--lambda is add-λ's smoothing; with %s the M-step is variational Bayes's, of --alpha", choose)
	}
	return a, nil
}

// DepthFlags are --max-depth and --max-chunk, the DMV's left-corner depth
// bound (Noji, Miyao & Johnson 2016), for the programs whose E-step or
// decoder takes it.
func DepthFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "max-depth", DefaultText: "none", Usage: "only the trees whose left-corner parse needs at most `D` stack levels (Noji, Miyao & Johnson 2016; 1: no center embedding)"},
		&cli.IntFlag{Name: "max-chunk", Value: 1, Usage: "with --max-depth: a center embedding of at most `N` words does not count (lcdmv's best: --max-depth 1 --max-chunk 3)"},
	}
}

// DepthBound reads DepthFlags: max 0 when --max-depth is not given.
func DepthBound(c *cli.Context) (max, chunk int, err error) {
	if !c.IsSet("max-depth") {
		if c.IsSet("max-chunk") {
			return 0, 0, Usagef("--max-chunk needs --max-depth")
		}
		return 0, 0, nil
	}
	max, chunk = c.Int("max-depth"), c.Int("max-chunk")
	switch {
	case max < 1:
		return 0, 0, Usagef("--max-depth must be ≥ 1 (stack levels), not %d", max)
	case chunk < 1:
		return 0, 0, Usagef("--max-chunk must be ≥ 1 (words), not %d", chunk)
	}
	return max, chunk, nil
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

// BackoffFlags are --backoff-prior and --backoff-forget, how a learned
// child back-off is learned (dmv.LearnedBackoff).
func BackoffFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "backoff-prior", Value: dmv.DefaultLearnedBackoff.String(),
			Usage: "learned back-off: pseudo-counts `FULL,BACK` added to each head's expected choices of its own child distribution and of the back-off (a Beta(FULL+1, BACK+1) prior on the weight; MAP)"},
		&cli.StringFlag{Name: "backoff-forget", Value: "head",
			Usage: "learned back-off: what the back-off forgets, `head` (P(a | dir, val)) or valence (P(a | head, dir); needs --child-valence 2 or more)"},
	}
}

// LearnedBackoff reads BackoffFlags (exit 2 when --backoff-prior is not
// two finite numbers ≥ 0, or --backoff-forget neither head nor valence).
func LearnedBackoff(c *cli.Context) (dmv.LearnedBackoff, error) {
	bp, err := dmv.ParseBackoffPrior(c.String("backoff-prior"))
	if err != nil {
		return bp, Usagef("--backoff-prior: %v", err)
	}
	switch c.String("backoff-forget") {
	case "head":
	case "valence":
		bp.ForgetValence = true
	default:
		return bp, Usagef("--backoff-forget: head or valence, not %q", c.String("backoff-forget"))
	}
	return bp, nil
}
