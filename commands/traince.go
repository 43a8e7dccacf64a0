package commands

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/train"
)

// The command of train-ce is in package cecmd, so that only its binary
// links gonum's optimiser; these are the shared parts it uses.

// TrainFlags are the flags every training program shares.
func TrainFlags(defaultInit string) []cli.Flag { return trainFlags(defaultInit) }

// TrainJob reads the shared training flags.
func TrainJob(c *cli.Context, total int) (train.Job, error) { return trainJob(c, total) }

// WriteOutput runs fn against the -o file (or stdout) and reports the
// records src skipped on stderr.
func WriteOutput(c *cli.Context, src pipeline.Source, fn func(w io.Writer) error) error {
	return writeOutput(c, src, fn)
}
