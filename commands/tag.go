package commands

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/classes"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/hmmce"
)

func init() { program.Register("tag", tagApp) }

func tagApp() *cli.App {
	return &cli.App{
		Usage:     "tag sentences with a saved tagger (HMM, CE or class model): its states in tags, the reference in gold_tags",
		UsageText: "tag -m MODEL [--viterbi] [--prefix N] [options] [FILE...]",
		Description: `Writes each sentence with the tagger's states in "tags" and the reference
tags in "gold_tags" (the input's gold_tags when it has them, else its tags),
so that tag | score-tags works in one pipe. Sentences need words; tags are
optional (raw text). The model's header says what it is:

   hmm      train-hmm --save-model (every estimator but ce) or mstep:
            each token's most probable state (as train-hmm's default), or
            --viterbi the most probable tagging; a word the model never
            saw takes its unseen_word weights (README, Records)
   hmmce    train-hmm --estimator ce --save-model: the Viterbi tagging, as
            train-hmm's own (--viterbi is implied); a word the tagger never
            saw has emission weight 0 and its spelling features' weights;
            likewise ce-step's log-linear HMM (hmm, unit "w")
   classes  train-classes --save-model: each word's class, as tag-classes
            (--prefix N: a Brown class's first N bits)

Examples:
   train-hmm --states 45 --save-model hmm.jsonl train.jsonl > /dev/null
   tag -m hmm.jsonl test.jsonl | score-tags
   train-hmm --estimator ce --spelling --save-model ce.jsonl train.jsonl > /dev/null
   tag -m ce.jsonl test.jsonl -o test.tagged.jsonl
   tag -m brown.jsonl --prefix 4 test.jsonl | score-tags`,
		Flags: []cli.Flag{
			program.ModelFlag(true),
			&cli.BoolFlag{Name: "viterbi", Usage: "hmm: the most probable tagging instead of each token's most probable state"},
			&cli.IntFlag{Name: "prefix", Usage: "classes (Brown): each class's first `N` bits (a coarser class); 0 the whole path"},
			program.WorkersFlag(), program.MaxMemoryFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			model := c.String("model")
			if err := program.CheckModelFiles(model); err != nil {
				return err
			}
			if err := program.First(program.CheckWorkers(c), program.CheckInt(c, "prefix", 0)); err != nil {
				return err
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			kind := family.HeaderFamily(model)
			switch {
			case kind == classes.Family:
				if c.Bool("viterbi") {
					return program.Usagef("--viterbi is for HMM models: a class model tags each word by its class")
				}
				return tagWithClasses(c, model)
			case c.IsSet("prefix"):
				return program.Usagef("--prefix is for class models (Brown's classes are paths); %s is not one", model)
			}
			// A file whose header names another family is named so; any
			// other that is no HMM model (missing, a corpus, no header) is
			// the HMM reader's to name, at its line.
			named, err := families.All.NamedIn(model)
			if err != nil {
				return err
			}
			fam := families.HMM
			switch {
			case named != nil && named.Name() == hmmce.Family, hmm.IsWeights(model): // a CE tagger, or ce-step's log-linear HMM
				fam = families.HMMCE
			case named != nil && named.Name() != hmm.Family:
				return fmt.Errorf("%s: a %s model, not a tagger: tag takes HMM (hmm), CE (hmmce) and class (classes) models; decode takes the others", model, named.Name())
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				rep, err := fam.Decode(src, w, family.DecodeOptions{Model: model, MBR: !c.Bool("viterbi"), Workers: c.Int("workers"), MaxMemory: limit})
				if err == nil && rep.FellBack > 0 && !c.Bool("quiet") {
					fmt.Fprintf(c.App.ErrWriter, "tag: %d sentences of probability 0 under the model tagged by the fallback (every impossible event at 1e-300)\n", rep.FellBack)
				}
				return err
			})
		},
	}
}

// tagWithClasses tags with a class model, as tag-classes does.
func tagWithClasses(c *cli.Context, path string) error {
	m, err := classes.ReadModel(path)
	if err != nil {
		return err
	}
	prefix := c.Int("prefix")
	if prefix > 0 && m.Method != classes.MethodBrown {
		return program.Usagef("--prefix is for Brown models (their classes are paths); %s is of method %s", path, m.Method)
	}
	src := program.Source(c)
	var rep classes.TagReport
	err = program.WriteOutput(c, src, func(w io.Writer) error {
		var err error
		rep, err = m.Tag(src, w, prefix)
		return err
	})
	if err == nil && !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "%s: %d sentences, %d tokens (%d of words the model never saw)\n", c.App.Name, rep.Sentences, rep.Tokens, rep.Unseen)
	}
	return err
}
