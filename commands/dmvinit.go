package commands

import (
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/dmvinit"
)

func init() { register("dmv-init", dmvInitApp) }

func initFlag(value string) cli.Flag {
	return &cli.StringFlag{Name: "init", Value: value, Usage: "the initializer, `NAME`: " + strings.Join(dmv.Initializers, ", ")}
}

func checkInit(c *cli.Context) error {
	if !slices.Contains(dmv.Initializers, c.String("init")) {
		return usagef("--init must be one of %s, not %q", strings.Join(dmv.Initializers, ", "), c.String("init"))
	}
	return nil
}

func dmvInitApp() *cli.App {
	return &cli.App{
		Usage:     "make a starting DMV model from a corpus",
		UsageText: "dmv-init [options] [FILE...]",
		Description: `Reads sentences and writes an initial model (event records with "p").

Initializers:
   zero     all weights 1: one E-step under the uniform posterior over trees, then an M-step
   klein    Klein & Manning's harmonic start as Klein describes it (the default): every
            token is the root with mass 1/n and spreads the rest over the other tokens as
            heads in proportion to 1/distance; stop counts follow the expected children
   km       the harmonic start in Smith's form (2006, Eq. 3.14): one E-step under tree
            scores ∏ 1/|i−j| over non-root edges (root, stop, cont weights 1)
   local    the same with edge weight 1 + 1/|i−j|
   uniform  every multinomial uniform (the start of Viterbi EM)
   random   every multinomial drawn from a flat Dirichlet (--seed)

Examples:
   dmv-init wsj10.jsonl > init.jsonl
   dmv-init --init km wsj10.jsonl > init-smith.jsonl
   dmv-init --init random --seed 7 wsj10.jsonl -o init7.jsonl`,
		Flags: []cli.Flag{
			initFlag(dmv.InitKlein), seedFlag(),
			lambdaFlag("add-λ smoothing in the initial M-step"),
			workersFlag(), outputFlag(), skipBadFlag(), quietFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := checkInit(c); err != nil {
				return err
			}
			if c.Float64("lambda") < 0 {
				return usagef("--lambda must be ≥ 0")
			}
			src := source(c)
			return writeOutput(c, src, func(w io.Writer) error {
				return dmvinit.Run(src, w, c.String("init"), dmv.InitOptions{Lambda: c.Float64("lambda"), Seed: c.Uint64("seed"), Workers: c.Int("workers")})
			})
		},
	}
}
