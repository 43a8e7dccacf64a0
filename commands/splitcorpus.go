package commands

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/split"
)

func init() { program.Register("split-corpus", splitApp) }

func splitApp() *cli.App {
	return &cli.App{
		Usage:     "split sentences into train, dev and test files",
		UsageText: "split-corpus --prefix P [--every K] [--train SET] [--dev SET] [--test SET] [options] [FILE...]",
		Description: `Writes P.train.jsonl, P.dev.jsonl and P.test.jsonl (with --suffix .gz or
.zst, compressed: P.train.jsonl.gz ...). The files appear only when the run
succeeds; the counts go to stderr. The split is deterministic: nothing is
shuffled, and each file keeps the input order.

By PTB section (without --every): the section is read from the sentence id,
which must name the WSJ file (wsj_SSNN.mrg#k is in section SS, the file
number over 100). SETs are sections: lists of numbers and ranges like
2-21 or 0-1,24.

By position (--every K): sentence i, counted from 0 in the input, goes to
the part whose SET holds i mod K; SETs are residues 0..K-1.

An omitted --train takes everything --dev and --test leave; with --train
given, sentences in no SET are dropped (and counted). With none of --every,
--train, --dev, --test, the first sentence decides: by section (train 2-21,
dev 22, test 23) when its id names a WSJ file, else --every 10 --dev 8
--test 9.

Examples:
   ptb2deps wsj/*/*.mrg | split-corpus --prefix wsj --train 2-21 --dev 22 --test 23
   split-corpus --prefix en --every 10 --dev 8 --test 9 --suffix .gz en.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "prefix", Usage: "write `P`.train.jsonl, P.dev.jsonl and P.test.jsonl (required)"},
			&cli.StringFlag{Name: "suffix", Usage: "`.gz` or .zst to compress the files (P.train.jsonl.gz ...)"},
			&cli.IntFlag{Name: "every", Usage: "split by position: sentence i is placed by i mod `K`"},
			&cli.StringFlag{Name: "train", Usage: "sections (or residues with --every) of the training file: a `SET` like 2-21"},
			&cli.StringFlag{Name: "dev", Usage: "sections (or residues) of the development file: a `SET` like 22"},
			&cli.StringFlag{Name: "test", Usage: "sections (or residues) of the test file: a `SET` like 23"},
			program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			prefix := c.String("prefix")
			if prefix == "" {
				return program.Usagef("missing --prefix, the start of the output file names")
			}
			suffix := c.String("suffix")
			if suffix != "" && suffix != ".gz" && suffix != ".zst" {
				return program.Usagef("--suffix must be .gz or .zst, not %q", suffix)
			}
			opts := split.Options{Every: c.Int("every")}
			if c.IsSet("every") && opts.Every < 1 {
				return program.Usagef("--every must be a positive number, not %d", opts.Every)
			}
			sets := map[string]*split.Set{"train": &opts.Train, "dev": &opts.Dev, "test": &opts.Test}
			for name, set := range sets {
				if !c.IsSet(name) {
					continue
				}
				s, err := split.ParseSet(c.String(name))
				if err != nil {
					return program.Usagef("--%s: %v", name, err)
				}
				*set = s
			}
			if !c.IsSet("every") && !c.IsSet("train") && !c.IsSet("dev") && !c.IsSet("test") {
				opts.Auto = true
			} else if c.IsSet("every") && !c.IsSet("dev") && !c.IsSet("test") {
				return program.Usagef("--every needs --dev or --test (e.g. --every 10 --dev 8 --test 9)")
			}
			if err := opts.Check(); err != nil {
				return program.Usagef("%v", err)
			}
			name := func(p split.Part) string { return prefix + "." + p.String() + ".jsonl" + suffix }
			files := program.FlagFiles(c)
			for _, p := range split.Parts {
				files.Outputs = append(files.Outputs, program.Output{Flag: "--prefix", Path: name(p)})
			}
			if err := program.CheckFiles(c, files); err != nil {
				return err
			}
			src := program.Source(c)
			counts, used, err := splitFiles(src, name, c.App.Writer, opts)
			if !c.Bool("quiet") {
				src.Bad.Report(c.App.ErrWriter, c.App.Name)
				if err == nil {
					how := used.Describe()
					if counts == (split.Counts{}) {
						how = "no sentences"
					}
					fmt.Fprintf(c.App.ErrWriter, "%s: %v (%s)\n", c.App.Name, counts, how)
				}
			}
			return err
		},
	}
}

// splitFiles writes the three parts to the files name gives them: the
// three appear together or not at all.
func splitFiles(src pipeline.Source, name func(split.Part) string, stdout io.Writer, opts split.Options) (split.Counts, split.Options, error) {
	var outs [3]*pipeline.Output
	var writers [3]io.Writer
	for _, p := range split.Parts {
		o, err := pipeline.Create(name(p), stdout)
		if err != nil {
			for _, prev := range outs[:p] {
				prev.Abort()
			}
			return split.Counts{}, opts, err
		}
		defer o.Abort()
		outs[p], writers[p] = o, o
	}
	counts, used, err := split.Split(src, writers, opts)
	if err != nil {
		return counts, used, err
	}
	return counts, used, pipeline.CommitAll(outs[:]...)
}
