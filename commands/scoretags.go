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

--analysis adds error analyses (names separated by commas, or all), each a
table after the scores and a field of the JSON record (all: every one the
sentences allow):
   confusion  the contingency table both ways: each induced tag's tokens, its
              many-to-1 and 1-to-1 gold tags and the gold tags of its tokens;
              each gold tag's tokens and the induced tags they are spread over
   tags       precision, recall and F1 of each gold tag when every token is
              given the gold tag its induced tag maps to, under the many-to-1
              map and the 1-to-1 one (and the names themselves, for tags
              named by the gold ones)
   sizes      the tokens of each gold and each induced tag, largest first,
              side by side (Johnson 2007: EM's states are far more uniform in
              size than the gold tags)
   words      the most frequent words of each induced tag (--words of them;
              Klein 2005, Fig. 5.9); needs sentences with "words"
--top cuts each table for people (the JSON has every row; --words cuts both).

Examples:
   train-hmm --states 45 --estimator em wsj.jsonl | score-tags
   score-tags --json tagged.jsonl | jq .one_to_1
   score-tags --analysis confusion,sizes --top 10 tagged.jsonl
   score-tags --analysis all --json tagged.jsonl | jq -r '.words[] | [.tag, (.words | map(.word) | join(" "))] | @tsv'
   score-tags --exclude ", . : ` + "`` ''" + ` -LRB- -RRB- # $" tagged.jsonl   # PTB punctuation not counted`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "exclude", Usage: "space-separated gold `TAGS` whose tokens are not counted (\",\" is a tag)"},
			&cli.BoolFlag{Name: "json", Usage: "write one JSON line instead of the text for people"},
			&cli.StringFlag{Name: "against", TakesFile: true, Usage: "also run the paired sign test on accuracy against the tagging of the same sentences in `FILE`"},
			&cli.StringSliceFlag{Name: "analysis", Usage: "add the error analyses `NAMES`: confusion, tags, sizes, words, or all (comma-separated, repeatable)"},
			&cli.IntFlag{Name: "top", Value: 20, Usage: "`N` rows of each analysis table for people (0: all; the JSON has every row)"},
			&cli.IntFlag{Name: "words", Value: tageval.DefaultWords, Usage: "`N` words of each induced tag in the words analysis, text and JSON (0: every word)"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			analyses, all, err := tageval.ParseAnalyses(c.StringSlice("analysis"))
			if err != nil {
				return program.Usagef("%v", err)
			}
			if c.Int("top") < 0 || c.Int("words") < 0 {
				return program.Usagef("--top and --words must be 0 or more")
			}
			o := tageval.Options{Analyses: analyses, AllAnalyses: all, Words: c.Int("words")}
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
			rep, err := tageval.Score(sents, o)
			if err != nil {
				return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
			}
			out := scoreTagsReport{Report: rep, Sentences: len(sents)}
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
				if err := tageval.WriteText(w, out.Report, out.Sentences); err != nil {
					return err
				}
				if st := out.SignTest; st != nil {
					if _, err := fmt.Fprintf(w, "sign test         %d tokens right here and wrong in %s, %d the other way, %d ties; p = %.3g\n", st.Tokens.Wins, st.Against, st.Tokens.Losses, st.Tokens.Ties, st.Tokens.P); err != nil {
						return err
					}
				}
				_, err := w.Write(tageval.AppendAnalyses(nil, out.Report, c.Int("top")))
				return err
			})
		},
	}
}
