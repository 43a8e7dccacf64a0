package commands

import (
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/tageval"
)

func init() { register("score-tags", scoreTagsApp) }

func scoreTagsApp() *cli.App {
	return &cli.App{
		Usage:     "score induced tags (tags) against gold ones (gold_tags)",
		UsageText: "score-tags [options] [FILE...]",
		Description: `Reads sentences whose "tags" are induced and whose "gold_tags" are the
reference (train-hmm writes both) and reports, over every token:

  many-to-1        each induced tag mapped to its most frequent gold tag
  1-to-1 (greedy)  pairs taken by co-occurrence count, highest first, each
                   induced and gold tag at most once (ties by name)
  VI               H(G|I) + H(I|G) in bits, with both halves
  V-measure        harmonic mean of homogeneity 1 − H(G|I)/H(G) and
                   completeness 1 − H(I|G)/H(I)
  accuracy         induced tag = gold tag (meaningful when the states are
                   named by the gold tags, as with a tag dictionary), and
                   the same on ambiguous words: words seen with more than
                   one gold tag in the scored data

Every token counts, punctuation included, unless --exclude names gold tags.

Examples:
   train-hmm --states 45 --estimator em wsj.jsonl | score-tags
   score-tags --json tagged.jsonl | jq .one_to_1
   score-tags --exclude ", . : ` + "`` ''" + ` -LRB- -RRB- # $" tagged.jsonl   # PTB punctuation not counted`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "exclude", Usage: "space-separated gold `TAGS` whose tokens are not counted (\",\" is a tag)"},
			&cli.BoolFlag{Name: "json", Usage: "write one JSON line instead of the text for people"},
			outputFlag(), skipBadFlag(), quietFlag(),
		},
		Action: func(c *cli.Context) error {
			var o tageval.Options
			if c.IsSet("exclude") {
				o.Exclude = strings.Fields(c.String("exclude"))
			}
			src := source(c)
			r, sents, err := tageval.Score(src, o)
			if err != nil {
				return err
			}
			return writeOutput(c, src, func(w io.Writer) error {
				if c.Bool("json") {
					return pipeline.WriteRecord(w, r)
				}
				return tageval.WriteText(w, r, sents)
			})
		},
	}
}
