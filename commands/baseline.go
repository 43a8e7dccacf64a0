package commands

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/baseline"
)

func init() { program.Register("baseline", baselineApp) }

func baselineApp() *cli.App {
	return &cli.App{
		Usage:     "predict trivial trees: attach every word left, right, or at random; or bracket them",
		UsageText: "baseline --attach left|right|random | --brackets left|right|random|ubound [--seed S] [options] [FILE...]",
		Description: `With --attach, adds "pred" to every sentence (replacing an earlier one,
keeping "heads"):

   right   every word's head is the next word; the last word is the root
   left    every word's head is the previous word; the first is the root
   random  a tree drawn uniformly from the projective trees with one root,
           sampled exactly (integer tree counts, any length); the same
           --seed gives the same trees

With --brackets, adds "pred_spans" (binary bracketings, 0-based half-open,
the whole sentence included; none for one-word sentences):

   left    (0,2), (0,3), ..., (0,n)          LBRANCH
   right   (n-2,n), ..., (1,n), (0,n)       RBRANCH
   random  a binary tree drawn uniformly (RANDOM; score also reports its
           expected value, computed from the gold trees)
   ubound  the gold "tree" binarised right-branching: all gold brackets in
           a binary tree, the upper bound of binary bracketers (UBOUND)

Examples:
   conll2deps dev.conllu | filterlen 10 | baseline --attach right | score
   baseline --attach random --seed 7 wsj10.jsonl | score --root exclude
   ptb2deps --tree wsj/*/*.mrg | filterlen 10 | baseline --brackets right | score`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "attach", Usage: "`left`, right or random: write \"pred\""},
			&cli.StringFlag{Name: "brackets", Usage: "`left`, right, random or ubound: write \"pred_spans\""},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed `S` of --attach random and --brackets random"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.IsSet("attach") == c.IsSet("brackets") {
				return program.Usagef("give one of --attach left, right or random and --brackets left, right, random or ubound")
			}
			opts := baseline.Options{Seed: c.Uint64("seed")}
			var err error
			if c.IsSet("brackets") {
				if opts.Brackets, err = baseline.ParseBracketing(c.String("brackets")); err != nil {
					return program.Usagef("%v", err)
				}
			} else if opts.Attach, err = baseline.ParseAttach(c.String("attach")); err != nil {
				return program.Usagef("%v", err)
			}
			if c.IsSet("seed") && opts.Attach != baseline.Random && opts.Brackets != baseline.RandomTree {
				return program.Usagef("--seed is only for --attach random and --brackets random")
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return baseline.Predict(src, w, opts)
			})
		},
	}
}
