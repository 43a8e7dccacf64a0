package commands

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/deps2conll"
)

func init() { program.Register("deps2conll", deps2conllApp) }

func deps2conllApp() *cli.App {
	return &cli.App{
		Usage:     "write sentence records as CoNLL-U or CoNLL-X",
		UsageText: "deps2conll [options] [FILE...]",
		Description: `Reads sentence records and writes them in CoNLL-U (default) or CoNLL-X, for
other tools and external evaluators. FORM is the word (the tag when the
record has no words), the tag goes in both tag columns, HEAD comes from
"heads" (or "pred" with --pred), and DEPREL is root or dep (HEAD and DEPREL
are _ when the record has no heads); --tag upos or xpos puts the tag in one
column only. CoNLL-U output names each sentence with a "# sent_id = <id>"
comment and gives its words as "# text = ..."; CoNLL-X has no comments.
Gold heads with several roots are written as they are, with a warning on
stderr (CoNLL-U validators allow one root).

Examples:
   conll2deps ud/en_ewt-ud-dev.conllu | filterlen 10 | deps2conll > en10.conllu
   decode -m model.jsonl test.jsonl | deps2conll --pred --format conllx -o pred.conll`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "conllu", Usage: "output `FORMAT`: conllu or conllx"},
			&cli.BoolFlag{Name: "pred", Usage: `write the predicted heads ("pred") instead of the gold ones ("heads")`},
			&cli.StringFlag{Name: "tag", Value: string(deps2conll.Both), Usage: "the tag `COLUMN`: both, upos (column 4; XPOS is _) or xpos (column 5; UPOS is _)"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			opts := deps2conll.Options{Pred: c.Bool("pred")}
			switch c.String("format") {
			case "conllu":
				opts.Dialect = format.CoNLLU
			case "conllx":
				opts.Dialect = format.CoNLLX
			default:
				return program.Usagef("--format must be conllu or conllx, not %q", c.String("format"))
			}
			switch opts.Tag = deps2conll.Column(c.String("tag")); opts.Tag {
			case deps2conll.Both, deps2conll.UPOS, deps2conll.XPOS:
			default:
				return program.Usagef("--tag must be both, upos or xpos, not %q", c.String("tag"))
			}
			src := program.Source(c)
			var sum deps2conll.Summary
			err := program.WriteOutput(c, src, func(w io.Writer) error {
				var err error
				sum, err = deps2conll.Write(src, w, opts)
				return err
			})
			if err == nil && sum.MultiRoot > 0 && !c.Bool("quiet") {
				first := sum.FirstMultiRoot
				if first == "" {
					first = "(no id)"
				}
				fmt.Fprintf(c.App.ErrWriter, "%s: warning: %d of %d sentences have several roots in their gold heads (first: %s); CoNLL-U validators allow one\n",
					c.App.Name, sum.MultiRoot, sum.Sentences, first)
			}
			return err
		},
	}
}
