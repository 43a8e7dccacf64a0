package stepcmd

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/mstep"
)

func init() { program.Register("mstep", mstepApp) }

func mstepApp() *cli.App {
	return &cli.App{
		Usage:     "a model from expected counts: DMV (add-λ) or CCM (Klein's smoothing) (one M-step)",
		UsageText: "mstep [options] [COUNTS...]",
		Description: `Reads count streams (estep or sumcounts output; several files are added) and
writes the model: within each multinomial — root; child(head, dir); the stop/cont
decision of (head, dir, adj) — λ is added to every count and the counts are
normalised. A multinomial without any mass becomes uniform.

Every input must end with its stats record: a shard whose E-step crashed or was
cut short is refused, never silently dropped. --expect-sentences N also
catches a shard that is missing altogether.

Examples:
   estep -m model.jsonl wsj10.jsonl | mstep --lambda 0.2154 > next.jsonl
   mstep --expect-sentences 5387 shard-*.counts > next.jsonl`,
		Flags: []cli.Flag{
			program.LambdaFlag("add-λ smoothing (0: maximum likelihood; Smith's grid: 10^(-2/3) … 10)"),
			&cli.IntFlag{Name: "expect-sentences", Value: -1, Usage: "fail unless the counts come from exactly `N` sentences"},
			program.ExpectCorpusFlag(), program.MaxMemoryFlag(),
			program.OutputFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := program.CheckLambda(c); err != nil {
				return err
			}
			if n := c.Int("expect-sentences"); n < -1 {
				return program.Usagef("--expect-sentences must be ≥ 0 (or -1: no check), not %d", n)
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return mstep.Run(families.All, src, w, mstep.Options{Lambda: c.Float64("lambda"), ExpectSentences: c.Int("expect-sentences"), ExpectCorpus: c.String("expect-corpus"), MaxMemory: limit})
			})
		},
	}
}
