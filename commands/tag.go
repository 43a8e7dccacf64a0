package commands

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
)

func init() { program.Register("tag", tagApp) }

func tagApp() *cli.App {
	return &cli.App{
		Usage:     "tag sentences with an HMM model: induced states in tags, the reference in gold_tags",
		UsageText: "tag -m MODEL [--viterbi] [options] [FILE...]",
		Description: `Writes each sentence with the model's states in "tags" and the reference tags
in "gold_tags" (the input's gold_tags when it has them, else its tags), so that
tag | score-tags works in one pipe. Decoding is each token's most probable
state (as train-hmm's default), or --viterbi the most probable tagging. A word
the model never saw takes its unseen_word weights (README, Records). It is
decode -m with the HMM's defaults, and takes HMM models only.

Examples:
   train-hmm --states 45 --save-model hmm.jsonl train.jsonl > /dev/null
   tag -m hmm.jsonl test.jsonl | score-tags`,
		Flags: []cli.Flag{
			program.ModelFlag(true),
			&cli.BoolFlag{Name: "viterbi", Usage: "the most probable tagging instead of each token's most probable state"},
			program.WorkersFlag(), program.MaxMemoryFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			model := c.String("model")
			if err := program.CheckModelFiles(model); err != nil {
				return err
			}
			if err := program.CheckWorkers(c); err != nil {
				return err
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			// A file whose header names another family is named so; any
			// other that is no HMM model (missing, a corpus, no header) is
			// the HMM reader's to name, at its line.
			named, err := families.All.NamedIn(model)
			if err != nil {
				return err
			}
			if named != nil && named.Name() != hmm.Family {
				return fmt.Errorf("%s: a %s model, not an HMM model: tag takes train-hmm --save-model's or mstep's HMM models; decode takes the others", model, named.Name())
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				rep, err := families.HMM.Decode(src, w, family.DecodeOptions{Model: model, MBR: !c.Bool("viterbi"), Workers: c.Int("workers"), MaxMemory: limit})
				if err == nil && rep.FellBack > 0 && !c.Bool("quiet") {
					fmt.Fprintf(c.App.ErrWriter, "tag: %d sentences of probability 0 under the model tagged by the fallback (every impossible event at 1e-300)\n", rep.FellBack)
				}
				return err
			})
		},
	}
}
