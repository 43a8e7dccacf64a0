package commands

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/deps2conll"
)

func init() { register("deps2conll", deps2conllApp) }

func deps2conllApp() *cli.App {
	return &cli.App{
		Usage:     "write sentence records as CoNLL-U or CoNLL-X",
		UsageText: "deps2conll [options] [FILE...]",
		Description: `Reads sentence records and writes them in CoNLL-U (default) or CoNLL-X, for
other tools and external evaluators. FORM is the word (the tag when the
record has no words), the tag goes in both tag columns, HEAD comes from
"heads" (or "pred" with --pred), and DEPREL is root or dep (HEAD and DEPREL
are _ when the record has no heads). CoNLL-U output names each sentence with
a "# sent_id = <id>" comment; CoNLL-X has no comments.

Examples:
   conll2deps ud/en_ewt-ud-dev.conllu | filterlen 10 | deps2conll > en10.conllu
   decode -m model.jsonl test.jsonl | deps2conll --pred --format conllx -o pred.conll`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "conllu", Usage: "output format: conllu or conllx"},
			&cli.BoolFlag{Name: "pred", Usage: `write the predicted heads ("pred") instead of the gold ones ("heads")`},
			outputFlag(), skipBadFlag(), quietFlag(),
		},
		Action: func(c *cli.Context) error {
			opts := deps2conll.Options{Pred: c.Bool("pred")}
			switch c.String("format") {
			case "conllu":
				opts.Dialect = format.CoNLLU
			case "conllx":
				opts.Dialect = format.CoNLLX
			default:
				return usagef("--format must be conllu or conllx, not %q", c.String("format"))
			}
			src := source(c)
			return writeOutput(c, src, func(w io.Writer) error {
				return deps2conll.Write(src, w, opts)
			})
		},
	}
}
