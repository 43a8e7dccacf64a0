package commands

import (
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/score"
)

func init() { program.Register("score", scoreApp) }

func scoreApp() *cli.App {
	return &cli.App{
		Usage:     "attachment accuracy of predicted trees against gold ones",
		UsageText: "score [options] [FILE...]",
		Description: `Reads sentences carrying gold "heads" and predicted "pred" and writes one
report: directed and undirected attachment accuracy, micro-averaged over all
tokens, under both conventions of the literature:

   root counted   (Klein, Spitkovsky) n attachments per sentence, the root's
                  included; accuracy = correct / tokens.
   root excluded  (Smith) only arcs between words; precision = correct /
                  predicted arcs, recall = correct / gold arcs, F1 (equal to
                  accuracy over n-1 when both trees have one root).

Undirected scores also credit a predicted arc (h,d) when gold has (d,h); a
predicted root attachment counts only if it is the gold root. --root picks
the headline convention and the one of the per-length table; both are
always computed. With --json the report is one JSON line (fractions 0..1);
otherwise a table for people (percentages).

Sentences with a gold "tree" and a prediction are also scored on brackets
(one-word sentences skipped): "pred_spans", or else the brackets of "pred"
(each word's maximal span). Reported: UP/UR/F1 micro-averaged with the
whole-sentence bracket (Klein's standard), Klein's macro UP'/UR' without
the top bracket, Smith & Eisner's (no whole-sentence credit), sentence-level
F1, crossing brackets per sentence, and the expected RANDOM and the UBOUND
of the gold trees. A sentence needs gold heads and "pred", or a tree and a
prediction.

--against B.jsonl adds Smith's paired sign test of the input's "pred" against
B's "pred" (the same sentences in the same order, tags equal): directed
attachments under --root, wins (input right, B wrong), losses and ties per
sentence (more right attachments) and per token, each with the exact two-sided
binomial p-value of wins among wins + losses. With gold trees the test also
runs on brackets (right brackets per sentence; each gold bracket); a B with
"pred_spans" only is compared on brackets alone. --undirected makes the
attachment test undirected: a token's gold attachment is right when the
prediction has it in either direction (as the undirected score counts), the
test for parsers of undirected trees such as Model U (train-ce --family
modelu), whose direction is only read away from the first word.

--analysis adds error analyses (names separated by commas, or all), each a
table after the scores and a field of the JSON record (all: every one the
sentences allow):
   links      Smith's link types (Tables 3.3, 4.3): arcs between words by the
              unordered pair of their tags, undirected precision and recall;
              directed types head -> dependent (ROOT for the root) with what
              is over- and under-proposed (Klein Fig. 6.5); the divergence of
              predicted from gold link types in bits (Smith Table 8.9)
   distance   Smith's precision and recall by distance |head - dependent|
              (Tables 3.4, 4.4): undirected, and directed for left and right
              dependents
   paths      Smith's path analysis (Tables 3.5, 4.5, 8.9): the path in the
              predicted tree from each token to its gold parent, the wall a
              node, undirected and directed (infinite when the gold parent is
              no ancestor); mean undirected length over tokens and sentences
   labels     Klein's recall by gold label LR(X) (section 2.2.4, Fig. 5.8)
   sequences  Klein's tag sequences most over-, under- and crossing-proposed
              as brackets (Figs. 5.7, 6.7)
The first three need gold heads and "pred"; the last two a gold "tree" and a
prediction. With --against, paths adds Smith's sign test of path lengths (a
shorter undirected path to the gold parent wins, per sentence and per token). --top cuts each table for people (the JSON has every row);
--min-count N leaves out link types with fewer than N arcs predicted and in
gold, labels with fewer gold nodes, sequences over- and under-proposed fewer
times.

Examples:
   conll2deps dev.conllu | filterlen 10 | baseline --attach right | score
   decode -m model.jsonl test10.jsonl | score --root exclude --json
   my-parser < test.jsonl | score --gold test.jsonl
   ptb2deps --tree wsj/*/*.mrg | filterlen 10 | baseline --brackets right | score
   decode -m sa.jsonl test10.jsonl | score --root exclude --against em-parses.jsonl
   decode -m modelu.jsonl test10.jsonl | score --root exclude --against right.jsonl --undirected
   decode -m model.jsonl test10.jsonl | score --analysis links,distance,paths
   train-ccm test10.jsonl | score --analysis labels,sequences --json | jq .by_label`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "root", Value: string(score.RootCounted), Usage: "headline convention: `count` (root attachment scored) or exclude (Smith's F1 over arcs between words)"},
			&cli.BoolFlag{Name: "json", Usage: "write the report as one JSON line"},
			&cli.StringFlag{Name: "gold", TakesFile: true, Usage: "take gold heads from the sentences of `FILE`, matched to the input by order (their tags must agree), for predictions that dropped \"heads\""},
			&cli.StringFlag{Name: "against", TakesFile: true, Usage: "sign test against the \"pred\" of `FILE` (the same sentences, in order)"},
			&cli.BoolFlag{Name: "undirected", Usage: "with --against: the sign test on undirected attachments (a gold attachment found in either direction)"},
			&cli.StringSliceFlag{Name: "analysis", Usage: "add the error analyses `NAMES`: links, distance, paths, labels, sequences, or all (comma-separated, repeatable)"},
			&cli.IntFlag{Name: "top", Value: 20, Usage: "`N` rows of each analysis table for people (0: all; the JSON has every row)"},
			&cli.IntFlag{Name: "min-count", Usage: "leave out analysis rows below `N` (arcs of a link type predicted or in gold, gold nodes of a label, errors of a sequence)"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			root, err := score.ParseConvention(c.String("root"))
			if err != nil {
				return program.Usagef("%v", err)
			}
			analyses, all, err := score.ParseAnalyses(c.StringSlice("analysis"))
			if err != nil {
				return program.Usagef("%v", err)
			}
			if c.Int("top") < 0 || c.Int("min-count") < 0 {
				return program.Usagef("--top and --min-count must be 0 or more")
			}
			if c.Bool("undirected") && c.String("against") == "" {
				return program.Usagef("--undirected is an option of the sign test: it needs --against")
			}
			opts := score.Options{Root: root, JSON: c.Bool("json"), Gold: c.String("gold"), Against: c.String("against"), UndirectedSign: c.Bool("undirected"),
				Analyses: analyses, AllAnalyses: all, Top: c.Int("top"), MinCount: c.Int("min-count")}
			if opts.Against == "-" && (c.NArg() == 0 || slices.Contains(c.Args().Slice(), "-") || opts.Gold == "-") {
				return program.Usagef("--against - and another input cannot both come from stdin")
			}
			if opts.Gold == "-" && (c.NArg() == 0 || slices.Contains(c.Args().Slice(), "-")) {
				return program.Usagef("--gold - and the predictions cannot both come from stdin")
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return score.Score(src, w, opts)
			})
		},
	}
}
