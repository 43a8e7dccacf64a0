package commands

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/decode"
	"github.com/grind-nlp/grind/stages/families"
)

func init() { program.Register("decode", decodeApp) }

func decodeApp() *cli.App {
	return &cli.App{
		Usage:     "decode sentences with a model: pred (DMV), pred_spans (CCM) or tags (HMM)",
		UsageText: "decode -m MODEL [options] [FILE...]",
		Description: `Adds "pred", the heads of each sentence's best projective tree, and keeps every
other field (gold heads too), so that decode | score works in one pipe.

Viterbi (the default) takes the most probable tree; --mbr the tree with the
most expected correct attachments (the sum of edge posteriors, root included).
Ties go to the leftmost choice. Tags the model has never seen are parsed as
the model's average tag (README, "Unseen tags"); when none of the input's tags
is known (another tag set) decode refuses and points to tagmap. Sentences the
model gives probability 0 are parsed as if every impossible event had a tiny
probability (1e-300). Both are counted on stderr.

--max-depth D (and --max-chunk N) takes the best tree among those whose
left-corner parse needs at most D stack levels (Noji, Miyao & Johnson 2016);
with --mbr, the tree of the bounded posteriors. Without it a model trained
under the bound parses as a plain DMV, as lcdmv's evaluation does.

Examples:
   decode -m model.jsonl test10.jsonl | score
   decode --mbr -m model.jsonl dev.jsonl -o dev.parsed.jsonl
   decode --max-depth 1 --max-chunk 3 -m lc.jsonl dev.jsonl | score`,
		Flags: append(append([]cli.Flag{
			program.ModelFlag(true),
			&cli.BoolFlag{Name: "mbr", Usage: "minimum-Bayes-risk decoding instead of Viterbi"},
		}, depthFlags()...),
			program.WorkersFlag(), program.MaxMemoryFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		),
		Action: func(c *cli.Context) error {
			if err := program.CheckModelFiles(c.String("model")); err != nil {
				return err
			}
			if err := program.CheckWorkers(c); err != nil {
				return err
			}
			bound, err := depthBound(c)
			if err != nil {
				return err
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				rep, err := families.Decode(src, w, decode.Options{Model: c.String("model"), MBR: c.Bool("mbr"), Workers: c.Int("workers"), Bound: bound, MaxMemory: limit})
				switch {
				case err != nil || c.Bool("quiet"):
				case rep.Unknown > 0:
					fmt.Fprintf(c.App.ErrWriter, "decode: %d sentences; %d tokens of %d tags unknown to the model backed off to its average tag%s; %d sentences of probability 0 parsed by the fallback\n",
						rep.Sentences, rep.Unknown, len(rep.UnknownTags), tagList(rep.UnknownTags), rep.FellBack)
				case rep.FellBack > 0: // the CCM's and the HMM's, or no unseen tag
					fmt.Fprintf(c.App.ErrWriter, "decode: %d sentences; %d of probability 0 under the model parsed by the fallback (every impossible event at 1e-300)\n", rep.Sentences, rep.FellBack)
				}
				return err
			})
		},
	}
}

// tagList is " (A B C)" for a report, at most ten tags.
func tagList(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	if len(tags) > 10 {
		tags = append(tags[:10:10], "...")
	}
	return " (" + strings.Join(tags, " ") + ")"
}
