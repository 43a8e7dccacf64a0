package commands

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/showtree"
)

func init() { program.Register("showtree", showtreeApp) }

func showtreeApp() *cli.App {
	return &cli.App{
		Usage:     "draw dependency trees in the terminal",
		UsageText: "showtree [options] [FILE...]",
		Description: `Draws each sentence as text: words and tags in aligned columns, the gold
arcs ("heads") above them and the predicted arcs ("pred") below, an arrow
at each dependent and a line rising from each root. When a sentence has both
trees, predicted heads that differ from gold are drawn dashed and end in a
cross (× or x), and the header counts the correct ones. There is no colour.
A drawing is as deep as its arcs nest and as wide as the sentence: one whose
arcs all share a head needs both in proportion to its length, and is refused
(exit 1) when it would need more than --max-memory (default 1G).

Examples:
   showtree wsj10.jsonl | less -S
   decode -m model.jsonl dev.jsonl | head -3 | showtree --ascii`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "ascii", Usage: "plain ASCII (- | + v ^ x) instead of box-drawing characters"},
			program.MaxMemoryFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			opts := showtree.Options{ASCII: c.Bool("ascii"), MaxMemory: limit}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return showtree.Show(src, w, opts)
			})
		},
	}
}
