package commands

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ptbstrip"
	"github.com/grind-nlp/grind/stages/treebanks"
)

func init() { program.Register("ptbstrip", ptbstripApp) }

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

--format reads other treebanks into the same records (trees as PTB
brackets, so score reads their brackets):

   cess    CESS-ESP .tbf files (Spanish; ISO-8859-1): leaves (tag word
           lemma), the *0* empty subjects removed, function tags cut from
           labels (sn-SUJ becomes sn), punctuation = tags beginning with F;
           the 3 unbalanced trees of the sample are repaired (a missing ")"
           closed, a stray one dropped) and counted on stderr
   sinica  Sinica Treebank "parsed" (Chinese; UTF-8): one #ID TREE#PUNCT line
           per tree; roles dropped, tags lose a bracketed feature suffix
           (VA4[+ASP] becomes VA4); the final mark after "#" is the only
           punctuation (with --keep-punct a last leaf tagged COMMA, PERIOD,
           ...); the in-tree enumeration comma (tag Caa) is a word

Examples:
   ptbstrip wsj/00/wsj_0001.mrg | jq -r .tree
   ptbstrip --format cess cess_esp/*.tbf | filterlen 10
   ptbstrip --format sinica sinica_treebank/parsed | filterlen 10
   ptbstrip --keep-punct wsj/*/*.mrg -o wsj-trees.jsonl.gz`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "keep-punct", Usage: "keep the punctuation preterminals"},
			&cli.StringFlag{Name: "format", Value: "ptb", Usage: "treebank `FORMAT`: ptb, cess (CESS-ESP .tbf) or sinica (Sinica parsed)"},
			encodingFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			src, err := treebankSource(c)
			if err != nil {
				return err
			}
			if f := c.String("format"); f != "ptb" {
				return stripTreebank(c, src, f)
			}
			var sum ptbstrip.Summary
			err = program.WriteOutput(c, src, func(w io.Writer) error {
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

// stripTreebank is ptbstrip --format cess|sinica.
func stripTreebank(c *cli.Context, src pipeline.Source, name string) error {
	f, err := treebanks.ParseFormat(name)
	if err != nil {
		return program.Usagef("%v", err)
	}
	var sum treebanks.Summary
	err = program.WriteOutput(c, src, func(w io.Writer) error {
		var err error
		sum, err = treebanks.Strip(src, w, f, c.Bool("keep-punct"))
		return err
	})
	reportEmptyTrees(c, err, sum.Summary)
	if err == nil && sum.Repaired > 0 && !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "%s: repaired the brackets of %d unbalanced trees\n", c.App.Name, sum.Repaired)
	}
	return err
}
