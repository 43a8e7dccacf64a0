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
"pred_spans" only is compared on brackets alone.

Examples:
   conll2deps dev.conllu | filterlen 10 | baseline --attach right | score
   decode -m model.jsonl test10.jsonl | score --root exclude --json
   my-parser < test.jsonl | score --gold test.jsonl
   ptb2deps --tree wsj/*/*.mrg | filterlen 10 | baseline --brackets right | score
   decode -m sa.jsonl test10.jsonl | score --root exclude --against em-parses.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "root", Value: string(score.RootCounted), Usage: "headline convention: `count` (root attachment scored) or exclude (Smith's F1 over arcs between words)"},
			&cli.BoolFlag{Name: "json", Usage: "write the report as one JSON line"},
			&cli.StringFlag{Name: "gold", TakesFile: true, Usage: "take gold heads from the sentences of `FILE`, matched to the input by order (their tags must agree), for predictions that dropped \"heads\""},
			&cli.StringFlag{Name: "against", TakesFile: true, Usage: "sign test against the \"pred\" of `FILE` (the same sentences, in order)"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			root, err := score.ParseConvention(c.String("root"))
			if err != nil {
				return program.Usagef("%v", err)
			}
			opts := score.Options{Root: root, JSON: c.Bool("json"), Gold: c.String("gold"), Against: c.String("against")}
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
