package commands

import (
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/tagged2sents"
)

func init() { program.Register("tagged2sents", tagged2sentsApp) }

func tagged2sentsApp() *cli.App {
	return &cli.App{
		Usage:     "read POS-tagged text (Brown, CoNLL-2000) into sentence records with words and tags",
		UsageText: "tagged2sents --format brown|conll2000 [options] [FILE...]",
		Description: `Reads tagged running text into sentence records {"id","words","tags"}, for
tag induction (train-hmm) and its scorer (score-tags). Ids are "file#k".

  brown      Form C of the Brown corpus: one sentence per non-blank line,
             tokens word/tag split at the last "/" (1/2/cd is 1/2, cd).
  conll2000  one token per line, "word POS chunk"; a blank line ends a
             sentence. The chunk column is dropped.

--simplify (Brown only) strips the -tl, -hl and -nc suffixes from a tag's
end, repeatedly, and then a leading fw-: nn-tl-hl → nn, fw-at+nn-tl →
at+nn. It takes Brown's 472 tags to 190; *, $ and + are kept.

Examples:
   tagged2sents --format brown brown/c[a-r]?? > brown.jsonl
   tagged2sents --format brown --simplify brown/c[a-r]?? -o brown-simple.jsonl.gz
   tagged2sents --format conll2000 conll2000/train.txt | filterlen 10`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "input `FORMAT`: brown or conll2000 (required)"},
			&cli.BoolFlag{Name: "simplify", Usage: "Brown: strip -tl, -hl, -nc and fw- from tags"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			opts := tagged2sents.Options{Format: tagged2sents.Format(c.String("format")), Simplify: c.Bool("simplify")}
			if !slices.Contains(tagged2sents.Formats, opts.Format) {
				return program.Usagef("--format must be brown or conll2000, not %q", opts.Format)
			}
			if opts.Simplify && opts.Format != tagged2sents.Brown {
				return program.Usagef("--simplify is for --format brown")
			}
			src := program.Source(c)
			var sum tagged2sents.Summary
			err := program.WriteOutput(c, src, func(w io.Writer) error {
				var err error
				sum, err = tagged2sents.Convert(src, w, opts)
				return err
			})
			if err == nil && !c.Bool("quiet") {
				fmt.Fprintf(c.App.ErrWriter, "%s: %d sentences, %d tokens\n", c.App.Name, sum.Sentences, sum.Tokens)
			}
			return err
		},
	}
}
