package commands

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/conll2deps"
)

func init() { program.Register("conll2deps", conll2depsApp) }

func conll2depsApp() *cli.App {
	return &cli.App{
		Usage:     "turn CoNLL-U, CoNLL-X or NLTK .dp treebanks into sentence records",
		UsageText: "conll2deps [options] [FILE...]",
		Description: `Reads dependency treebanks and writes one sentence record (id, words, tags,
heads) per sentence. "# sent_id = X" becomes the id (else the id is <file
basename>#<index in file>, or <stdin>#<index>). The CoNLL tag column that
--tag does not take is kept too ("xpos", or "upos" under --tag xpos; not
when every word's is _), and from CoNLL-U the text ("# text"), the
multiword tokens ("multiword": n-m lines) and the words the text puts no
space after ("no_space_after", read from the text, else from SpaceAfter=No),
so that deps2conll gives them back; a "# text" that does not hold the words
is left out, counted on stderr. Empty nodes (n.m) and other comments are
skipped.

Punctuation is removed unless --keep-punct: every word whose tag is in the
punctuation set goes, each word whose head went is attached to its nearest
kept ancestor (or the root), and the words are renumbered. The set is
matched against UPOS in CoNLL files and against the tag in .dp files; by
default it is PUNCT for CoNLL (add SYM with --punct PUNCT,SYM) and the nine
PTB punctuation tags ` + "`` '' , . : -LRB- -RRB- # $" + ` for .dp. Sentences left
empty are dropped and counted on stderr. The kept words' text is then the
text of the kept tokens (a space between two where the original had one
anywhere between them); a multiword token that lost a word is undone.

Examples:
   conll2deps --tag xpos ud-nopunct/en-ud-train-nopunct-len15.conllu | filterlen 10
   conll2deps --punct PUNCT,SYM ud/en_ewt-ud-dev.conllu -o en-dev.jsonl.gz
   conll2deps ptb-sample-deps-ym/*.dp | filterlen 10 > wsj10-sample.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: string(conll2deps.Auto),
				Usage: "input `FORMAT`: auto (per file, from the column count of its first word line), conllu, conllx or dp"},
			&cli.StringFlag{Name: "tag", Value: string(conll2deps.UPOS),
				Usage: "CoNLL tag `COLUMN`: upos (column 4) or xpos (column 5); .dp files have one"},
			&cli.StringFlag{Name: "punct", DefaultText: "PUNCT for CoNLL, the PTB punctuation tags for .dp", Usage: "comma-separated punctuation `TAGS` to remove"},
			&cli.BoolFlag{Name: "keep-punct", Usage: "remove nothing"},
			encodingFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			opts := conll2deps.Options{
				Format:    conll2deps.Format(c.String("format")),
				Tag:       conll2deps.Tag(c.String("tag")),
				KeepPunct: c.Bool("keep-punct"),
			}
			if !slices.Contains(conll2deps.Formats, opts.Format) {
				return program.Usagef("--format must be auto, conllu, conllx or dp, not %q", opts.Format)
			}
			if opts.Tag != conll2deps.UPOS && opts.Tag != conll2deps.XPOS {
				return program.Usagef("--tag must be upos or xpos, not %q", opts.Tag)
			}
			if c.IsSet("punct") {
				if opts.KeepPunct {
					return program.Usagef("--punct and --keep-punct contradict each other")
				}
				for _, t := range strings.Split(c.String("punct"), ",") {
					if t = strings.TrimSpace(t); t != "" {
						opts.Punct = append(opts.Punct, t)
					}
				}
				if len(opts.Punct) == 0 {
					return program.Usagef("--punct needs at least one tag (use --keep-punct to remove nothing)")
				}
			}
			src, err := treebankSource(c)
			if err != nil {
				return err
			}
			var sum conll2deps.Summary
			err = program.WriteOutput(c, src, func(w io.Writer) error {
				var err error
				sum, err = conll2deps.Convert(src, w, opts)
				return err
			})
			if err == nil && sum.Empty > 0 && !c.Bool("quiet") {
				fmt.Fprintf(c.App.ErrWriter, "%s: dropped %d sentences left empty by punctuation removal\n", c.App.Name, sum.Empty)
			}
			if err == nil && sum.TextLost > 0 && !c.Bool("quiet") {
				fmt.Fprintf(c.App.ErrWriter, "%s: left out the \"# text\" of %d sentences, which does not hold their words (first: %s)\n", c.App.Name, sum.TextLost, sum.FirstTextLost)
			}
			return err
		},
	}
}
