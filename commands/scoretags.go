package commands

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/tageval"
)

func init() { program.Register("score-tags", scoreTagsApp) }

// scoreTagsReport is score-tags' JSON line, a record of scores as score
// writes (README, Conventions): the sentences and tokens scored, the
// measures and, with --against, the sign test.
type scoreTagsReport struct {
	Sentences int `json:"sentences"`
	Tokens    int `json:"tokens"`
	tageval.Report
	SignTest *tageval.SignTest `json:"sign_test,omitempty"`
}

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
  accuracy         induced tag = gold tag, and the same on ambiguous words:
                   words seen with more than one gold tag in the scored
                   data; only when the states are named by the gold tags
                   (some induced tag is a gold tag, as with a tag
                   dictionary): induced states s0, s1, … have none

Shares are percentages in the text and fractions (0..1) with --json, as
every program writes them. Every token counts, punctuation included, unless
--exclude names gold tags. --against FILE adds the paired sign test (Smith
& Eisner 2004) of accuracy, for tags named by the gold tags: tokens right in
the input and wrong in FILE (wins), the other way (losses), the rest (ties),
and the exact two-sided binomial p-value.

Examples:
   train-hmm --states 45 --estimator em wsj.jsonl | score-tags
   score-tags --json tagged.jsonl | jq .one_to_1
   score-tags --exclude ", . : ` + "`` ''" + ` -LRB- -RRB- # $" tagged.jsonl   # PTB punctuation not counted`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "exclude", Usage: "space-separated gold `TAGS` whose tokens are not counted (\",\" is a tag)"},
			&cli.BoolFlag{Name: "json", Usage: "write one JSON line instead of the text for people"},
			&cli.StringFlag{Name: "against", TakesFile: true, Usage: "also run the paired sign test on accuracy against the tagging of the same sentences in `FILE`"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			var o tageval.Options
			if c.IsSet("exclude") {
				o.Exclude = strings.Fields(c.String("exclude"))
			}
			src := program.Source(c)
			if other := c.String("against"); other == "-" && (c.NArg() == 0 || slices.Contains(c.Args().Slice(), "-")) {
				return program.Usagef("--against - and another input cannot both come from stdin")
			}
			sents, err := tageval.ReadTagged(src)
			if err != nil {
				return err
			}
			out := scoreTagsReport{Report: tageval.Score(sents, o), Sentences: len(sents)}
			out.Tokens = out.Report.Tokens
			if out.Tokens == 0 {
				// Every measure of no tokens would print as 0 (or 1), a score
				// of nothing.
				return fmt.Errorf("%s: no token to score: --exclude leaves out every token of the %d sentences", pipeline.DescribeInputs(src.Names), len(sents))
			}
			if other := c.String("against"); other != "" {
				if out.Accuracy == nil {
					// Both taggings' accuracy would be 0: nothing to test.
					return fmt.Errorf("%s: --against compares tag accuracy, and these tags are not named by the gold tags (induced states have no accuracy; taggings with a tag dictionary have)", pipeline.DescribeInputs(src.Names))
				}
				them, err := tageval.ReadTagged(pipeline.Source{Names: []string{other}, Stdin: c.App.Reader})
				if err != nil {
					return err
				}
				st, err := tageval.Compare(sents, them, o)
				if err != nil {
					return fmt.Errorf("--against %s: %w", other, err)
				}
				st.Against = other
				out.SignTest = &st
			}
			return program.WriteOutput(c, src, func(w io.Writer) error {
				if c.Bool("json") {
					return pipeline.WriteRecord(w, out)
				}
				if err := tageval.WriteText(w, out.Report, out.Sentences); err != nil || out.SignTest == nil {
					return err
				}
				st := out.SignTest
				_, err := fmt.Fprintf(w, "sign test         %d tokens right here and wrong in %s, %d the other way, %d ties; p = %.3g\n", st.Tokens.Wins, st.Against, st.Tokens.Losses, st.Tokens.Ties, st.Tokens.P)
				return err
			})
		},
	}
}
