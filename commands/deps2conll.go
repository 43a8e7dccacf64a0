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
other tools, external evaluators and the UD validator. FORM is the word (the
tag when the record has no words); the tags go in UPOS and the record's
"xpos" in XPOS (or "upos" in UPOS and the tags in XPOS), as conll2deps keeps
them; a record with neither has its tags in both columns, or with --tag upos
or xpos in one (the other _). HEAD comes from "heads" (or "pred" with
--pred), and DEPREL is root or dep (HEAD and DEPREL are _ when the record has
no heads).

CoNLL-U output names each sentence "# sent_id = <id>" (a record without an
id: <input basename>#<index in input>) and gives "# text = ...": the record's
text, checked against its words, or its words joined by spaces; multiword
tokens get their n-m lines and "no_space_after" words SpaceAfter=No in MISC
(on the token's line for a multiword token). CoNLL-X has no comments, no
multiword tokens and no MISC. Gold heads with several roots are written as
they are, with a warning on stderr (the UD validator wants one root unless
told --multiple-roots); so are sent_ids written twice (it wants them unique).
A word or tag CoNLL-U cannot hold (white space at either end or twice in a
row in a word, any in a tag or an id) is an error at its line, and so is an
input without sentences.

Examples:
   conll2deps ud/en_ewt-ud-dev.conllu | filterlen 10 | deps2conll > en10.conllu
   decode -m model.jsonl test.jsonl | deps2conll --pred --format conllx -o pred.conll`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "conllu", Usage: "output `FORMAT`: conllu or conllx"},
			&cli.BoolFlag{Name: "pred", Usage: `write the predicted heads ("pred") instead of the gold ones ("heads")`},
			&cli.StringFlag{Name: "tag", Value: string(deps2conll.Both), Usage: "the tag `COLUMN` of records that keep no \"upos\" or \"xpos\": both, upos (column 4; XPOS is _) or xpos (column 5; UPOS is _)"},
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
			if err == nil && sum.RepeatedID > 0 && !c.Bool("quiet") {
				fmt.Fprintf(c.App.ErrWriter, "%s: warning: %d sentences have a sent_id written before (first: %s); CoNLL-U validators want them unique\n",
					c.App.Name, sum.RepeatedID, sum.FirstRepeatedID)
			}
			return err
		},
	}
}
