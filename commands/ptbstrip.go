package commands

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/stages/ptbstrip"
)

func init() { register("ptbstrip", ptbstripApp) }

func ptbstripApp() *cli.App {
	return &cli.App{
		Usage:     "clean Penn Treebank trees into sentence records",
		UsageText: "ptbstrip [options] [FILE...]",
		Description: `Reads bracketed Penn Treebank trees (.mrg files: many trees per file, each
over many lines, in an unlabelled outer bracket "( (S ...) )" or a ROOT/TOP
node, both removed) and writes one sentence record per tree: id, words,
tags, and tree, the cleaned bracketing on one line. Records that carry
"tree" (a first non-blank byte "{") are read too.

Cleaning removes -NONE- elements and the constituents left empty, function
tags and indices from phrase labels (NP-SBJ-1 and NP=2 become NP, ADVP|PRT
becomes ADVP; tags such as -LRB- and -NONE- stay whole), and, unless
--keep-punct, the punctuation preterminals ` + "`` '' , . : -LRB- -RRB- # $" + `
(then the constituents left empty). Trees left with no word are dropped
and counted on stderr.

Ids are <file basename>#<position of the tree in its file>, e.g.
wsj_0001.mrg#1, or <stdin>#k. An input with no tree is an error.

Examples:
   ptbstrip wsj/00/wsj_0001.mrg | jq -r .tree
   ptbstrip --keep-punct wsj/*/*.mrg -o wsj-trees.jsonl.gz`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "keep-punct", Usage: "keep the punctuation preterminals"},
			encodingFlag(), outputFlag(), skipBadFlag(), quietFlag(),
		},
		Action: func(c *cli.Context) error {
			src, err := treebankSource(c)
			if err != nil {
				return err
			}
			var sum ptbstrip.Summary
			err = writeOutput(c, src, func(w io.Writer) error {
				var err error
				sum, err = ptbstrip.Strip(src, w, ptbstrip.Options{KeepPunct: c.Bool("keep-punct")})
				return err
			})
			reportEmptyTrees(c, err, sum)
			return err
		},
	}
}

// reportEmptyTrees tells people about trees that stripping left empty.
func reportEmptyTrees(c *cli.Context, err error, sum ptbstrip.Summary) {
	if err == nil && sum.Empty > 0 && !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "%s: dropped %d of %d trees left with no word after stripping\n", c.App.Name, sum.Empty, sum.Trees)
	}
}
