package commands

import (
	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
)

func init() { program.Register("tag-classes", tagClassesApp) }

func tagClassesApp() *cli.App {
	return &cli.App{
		Usage:     "tag sentences with a class model: each word's class in tags, the reference in gold_tags",
		UsageText: "tag-classes -m MODEL [--prefix N] [options] [FILE...]",
		Description: `Writes each sentence with its words' classes under a class model
(train-classes --save-model) in "tags" and the reference tags in "gold_tags"
(the input's gold_tags when it has them, else its tags). Sentences need
words; tags are optional. A word of the training text takes its class (the
same as train-classes wrote there); another word takes the class most common
among the training words seen once that share its shape (digit, other,
upper, capital, lower) and its longest suffix of up to 3 characters, else
its shape alone, else the class most common among them all — the model's
"unseen" records (README, Records). A Klein model looks words up
lowercased. --prefix N keeps the first N bits of a Brown class: a coarser
class. tag -m does the same with a class model (tag takes every tagger).

Examples:
   train-classes --method brown --classes 256 --save-model brown.jsonl train.jsonl > /dev/null
   tag-classes -m brown.jsonl test.jsonl | score-tags
   tag-classes -m brown.jsonl --prefix 4 test.jsonl -o test.classes.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Required: true, TakesFile: true, Usage: "the class model `FILE` (train-classes --save-model)"},
			&cli.IntFlag{Name: "prefix", Usage: "Brown models: each class's first `N` bits (a coarser class); 0 the whole path"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			path := c.String("model")
			if path == "-" {
				return program.Usagef("a model is read from a file, not stdin (-): stdin is for the sentences")
			}
			if prefix := c.Int("prefix"); prefix < 0 {
				return program.Usagef("--prefix must be ≥ 0, not %d", prefix)
			}
			return tagWithClasses(c, path)
		},
	}
}
