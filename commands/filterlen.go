package commands

import (
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/filterlen"
)

func init() { program.Register("filterlen", filterlenApp) }

func filterlenApp() *cli.App {
	return &cli.App{
		Usage:     "keep the sentences of length MIN..MAX",
		UsageText: "filterlen [options] MAX [FILE...]",
		Description: `Reads sentence records and keeps those with at least --min and at most MAX
tokens. The length is the number of tokens in the record (of words in raw
text, which has no tags), so remove punctuation first (ptb2deps does by
default) to get WSJ10-style sets.

Examples:
   ptb2deps wsj/*/*.mrg | filterlen 10 > wsj10.jsonl
   filterlen --min 5 20 corpus.jsonl.gz -o mid.jsonl.zst`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "min", Value: 1, Usage: "shortest length kept, `N` tokens"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return program.Usagef("missing MAX, the longest length kept")
			}
			max, err := strconv.Atoi(c.Args().First())
			if err != nil || max < 1 {
				return program.Usagef("MAX must be a positive integer, not %q", c.Args().First())
			}
			src := program.Source(c)
			src.Names = c.Args().Tail()
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return filterlen.Filter(src, w, filterlen.Options{Min: c.Int("min"), Max: max})
			})
		},
	}
}
