package commands

import (
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/dmvinit"
)

func init() { program.Register("dmv-init", dmvInitApp) }

func initFlag(value string) cli.Flag {
	return &cli.StringFlag{Name: "init", Value: value, Usage: "the initializer, `NAME`: " + strings.Join(dmv.Initializers, ", ")}
}

func kleinConstFlag() cli.Flag {
	return &cli.Float64Flag{Name: "klein-const", Value: dmv.DefaultKleinConst, Usage: "klein: arguments in proportion to 1/(`c` + distance); c > −1"}
}

func checkInit(c *cli.Context) error {
	if !(c.Float64("klein-const") > -1) {
		return program.Usagef("--klein-const must be > −1, not %v", c.Float64("klein-const"))
	}
	if !slices.Contains(dmv.Initializers, c.String("init")) {
		return program.Usagef("--init must be one of %s, not %q", strings.Join(dmv.Initializers, ", "), c.String("init"))
	}
	return nil
}

func dmvInitApp() *cli.App {
	return &cli.App{
		Usage:     "make a starting DMV model from a corpus",
		UsageText: "dmv-init [options] [FILE...]",
		Description: `Reads sentences and writes an initial model (event records with "p").

Initializers (θ⁽⁰⁾ of every trainer; km is their default):
   km       Smith's K&M (2006, §3.3.1): a special E-step with no dynamic program —
            every token is the root with mass 1/n and a child of each other token
            with mass Z(n, j)/|i−j|, its mass as a dependent summing to 1 − 1/n
   klein    Klein's harmonic start (2005, §6.2): head-normalised — every token takes
            (n−1)/n arguments, in proportion to 1/(c + |i−j|) (c: --klein-const),
            and the root takes each token with mass 1/n
            (both: stop counts are grind's rule, a chain of the expected children)
   zero     all weights 1 (Smith Eq. 3.13); trainers hand these weights to their own
            first E-step; dmv-init writes the M-step of the plain E-step on them
   local    one E-step under edge weights 1 + 1/|i−j| (inside–outside)
   uniform  every multinomial uniform (the start of Viterbi EM)
   random   every multinomial drawn from a flat Dirichlet (--seed)
Every initializer's M-step adds --lambda, as the trainer's M-steps do.

Examples:
   dmv-init wsj10.jsonl > init.jsonl
   dmv-init --init klein --klein-const 2 wsj10.jsonl > init-klein.jsonl
   dmv-init --init random --seed 7 wsj10.jsonl -o init7.jsonl`,
		Flags: []cli.Flag{
			initFlag(dmv.DefaultInit), kleinConstFlag(), seedFlag(),
			program.LambdaFlag("add-λ smoothing in the initial M-step"),
			program.WorkersFlag(), program.MaxMemoryFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := checkInit(c); err != nil {
				return err
			}
			if err := program.CheckLambda(c); err != nil {
				return err
			}
			if err := program.CheckWorkers(c); err != nil {
				return err
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return dmvinit.Run(src, w, c.String("init"), dmv.InitOptions{Lambda: c.Float64("lambda"), Seed: c.Uint64("seed"), KleinConst: c.Float64("klein-const"), Workers: c.Int("workers")}, limit)
			})
		},
	}
}
