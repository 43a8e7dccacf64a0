package commands

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/stages/estep"
)

func init() { register("estep", estepApp) }

func estepApp() *cli.App {
	return &cli.App{
		Usage:     "expected counts of a corpus under a DMV model (one E-step)",
		UsageText: "estep -m MODEL [options] [FILE...]",
		Description: `Reads sentences and writes the expected count of every DMV event under the
model (inside–outside), as event records with "n", then one stats record:
   {"ev":"stats","sentences":5387,"tokens":27974,"loglik":-91234.5}
Counts of shards add up: sumcounts merges them, mstep makes the next model.

Examples:
   estep -m model.jsonl wsj10.jsonl | mstep > next.jsonl
   parallel --pipe -N 1000 estep -m model.jsonl < wsj10.jsonl | sumcounts | mstep > next.jsonl
   estep --gold train.jsonl | mstep > supervised.jsonl     # counts of the gold trees`,
		Flags: []cli.Flag{
			modelFlag(false),
			&cli.BoolFlag{Name: "hard", Usage: "counts of each sentence's Viterbi tree (Viterbi EM); loglik is then the best trees' log-probability"},
			&cli.BoolFlag{Name: "gold", Usage: "counts of the gold trees (supervised estimation); -m optional"},
			workersFlag(), outputFlag(), skipBadFlag(), quietFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.String("model") == "" && !c.Bool("gold") {
				return usagef("missing -m MODEL")
			}
			if c.Bool("hard") && c.Bool("gold") {
				return usagef("--hard and --gold exclude each other")
			}
			src := source(c)
			return writeOutput(c, src, func(w io.Writer) error {
				return estep.Run(src, w, estep.Options{Model: c.String("model"), Hard: c.Bool("hard"), Gold: c.Bool("gold"), Workers: c.Int("workers")})
			})
		},
	}
}
