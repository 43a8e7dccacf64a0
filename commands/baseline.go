package commands

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/stages/baseline"
)

func init() { register("baseline", baselineApp) }

func baselineApp() *cli.App {
	return &cli.App{
		Usage:     "predict trivial trees: attach every word left, right, or at random",
		UsageText: "baseline --attach left|right|random [--seed S] [options] [FILE...]",
		Description: `Adds "pred" to every sentence (replacing an earlier one, keeping "heads"):

   right   every word's head is the next word; the last word is the root
   left    every word's head is the previous word; the first is the root
   random  a tree drawn uniformly from the projective trees with one root,
           sampled exactly (integer tree counts, any length); the same
           --seed gives the same trees

Examples:
   conll2deps dev.conllu | filterlen 10 | baseline --attach right | score
   baseline --attach random --seed 7 wsj10.jsonl | score --root exclude`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "attach", Usage: "`left`, right or random (required)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed `S` of --attach random"},
			outputFlag(), skipBadFlag(), quietFlag(),
		},
		Action: func(c *cli.Context) error {
			if !c.IsSet("attach") {
				return usagef("missing --attach left, right or random")
			}
			attach, err := baseline.ParseAttach(c.String("attach"))
			if err != nil {
				return usagef("%v", err)
			}
			if c.IsSet("seed") && attach != baseline.Random {
				return usagef("--seed is only for --attach random")
			}
			opts := baseline.Options{Attach: attach, Seed: c.Uint64("seed")}
			src := source(c)
			return writeOutput(c, src, func(w io.Writer) error {
				return baseline.Predict(src, w, opts)
			})
		},
	}
}
