package commands

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/headrules"
	"github.com/grind-nlp/grind/stages/ptbstrip"
)

func init() { program.Register("ptb2deps", ptb2depsApp) }

func ptb2depsApp() *cli.App {
	return &cli.App{
		Usage:     "convert Penn Treebank trees to dependency sentences with head rules",
		UsageText: "ptb2deps [options] [FILE...]",
		Description: `Reads bracketed Penn Treebank trees (.mrg files), or sentence records that
carry "tree" (an input whose first non-blank byte is "{", as ptbstrip
writes), and writes one sentence record per tree: id, words, tags and
heads (1-based, 0 = root), plus the cleaned bracketing as tree with --tree.

Trees are cleaned as ptbstrip does: -NONE- elements, function tags and
indices go, and so do the punctuation tokens ` + "`` '' , . : -LRB- -RRB- # $" + ` unless
--keep-punct, before heads are found. Heads come from the head-rule table
of Collins (1999; the gold standard of Klein & Manning, Smith and
Spitkovsky) or of Yamada & Matsumoto (2003; Penn2Malt, NLTK's dependency
treebank). Collins' coordination rule moves a head that follows a CC to
the conjunct before the CC: --coord collins does so except in base NPs,
always also in base NPs, never not at all; ym has no such rule.
--dt-heads makes the determiner the head of its noun phrase: an NP with a
DT child is headed by its leftmost DT (and the NP's noun hangs from it),
the gold standard Klein (2005 §6.2) also scored the DMV against, "the gold
headship rule … changed to percolate determiners when present". Only DT
counts (not PDT, PRP$ or a possessor), with either table.

Ids are <file basename>#<position of the tree in its file>, e.g.
wsj_0001.mrg#1, or <stdin>#k; a record keeps its own id. Trees left with
no word are dropped and counted on stderr. An input with no tree is an
error.

Examples:
   ptb2deps wsj/0[2-9]/*.mrg wsj/1*/*.mrg wsj/2[01]/*.mrg | filterlen 10 > wsj10.jsonl
   ptb2deps --rules ym --keep-punct wsj_0001.mrg.gz -o wsj_0001.jsonl
   ptb2deps --dt-heads wsj/*/*.mrg | filterlen 10 > wsj10-dt.jsonl   # determiners head NPs`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "rules", Value: headrules.Collins, Usage: "head-rule `TABLE`: collins or ym"},
			&cli.StringFlag{Name: "coord", Value: headrules.CoordCollins,
				Usage: "Collins' coordination `RULE`: collins (not in base NPs), always, or never; ignored with --rules ym"},
			&cli.BoolFlag{Name: "dt-heads", Usage: "make an NP's leftmost DT child its head (Klein's determiner-headed gold standard)"},
			&cli.BoolFlag{Name: "keep-punct", Usage: "keep the punctuation tokens"},
			&cli.BoolFlag{Name: "tree", Usage: "add the cleaned bracketing to each record as tree"},
			encodingFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			opts := headrules.Options{
				Rules:     c.String("rules"),
				Coord:     c.String("coord"),
				KeepPunct: c.Bool("keep-punct"),
				Tree:      c.Bool("tree"),
				DTHeads:   c.Bool("dt-heads"),
			}
			if opts.Rules != headrules.Collins && opts.Rules != headrules.YM {
				return program.Usagef("--rules must be collins or ym, not %q", opts.Rules)
			}
			switch opts.Coord {
			case headrules.CoordCollins, headrules.CoordAlways, headrules.CoordNever:
			default:
				return program.Usagef("--coord must be collins, always or never, not %q", opts.Coord)
			}
			src, err := treebankSource(c)
			if err != nil {
				return err
			}
			var sum ptbstrip.Summary
			err = program.WriteOutput(c, src, func(w io.Writer) error {
				var err error
				sum, err = headrules.Convert(src, w, opts)
				return err
			})
			reportEmptyTrees(c, err, sum)
			return err
		},
	}
}
