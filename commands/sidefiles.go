package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
)

// The trainers' side files — the --log and the models saved in --save-dir
// — are checked before the run starts, never overwrite an input, and are
// written like -o: atomically, appearing with it when the run succeeds
// (program.AddSideOutput).

// savedModelName matches the names trainers give the models they save
// (train.Session's iter-NNNN.jsonl, the annealers' stage-… and epoch-…).
var savedModelName = sync.OnceValue(func() *regexp.Regexp { // compiled at first use, not at every start
	return regexp.MustCompile(`^(iter-\d+|stage-\d+-.*|epoch-\d+-.*)\.jsonl$`)
})

// reserveLog opens --log as a side file (checked with the run's other
// files by program.CheckFiles); it returns the name the training loop
// writes the log to ("" for no log).
func reserveLog(c *cli.Context) (string, error) {
	path := c.String("log")
	if path == "" {
		return "", nil
	}
	o, err := pipeline.Reserve(path)
	if err != nil {
		return "", fmt.Errorf("--log: %w", err)
	}
	program.AddSideOutput(c, o)
	return o.Name(), nil
}

// checkSaveDir makes --save-dir when missing and checks, before the run,
// that models can be written there and that none would overwrite an
// input or another output of the run.
func checkSaveDir(c *cli.Context, dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return program.Usagef("--save-dir %s is not a folder", dir)
	}
	files := program.FlagFiles(c)
	files.Outputs = append(files.Outputs, program.Output{Flag: "--save-dir", Path: dir, Match: savedModelName().MatchString})
	if err := program.CheckFiles(c, files); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("--save-dir: %w", err)
	}
	probe, err := pipeline.Reserve(filepath.Join(dir, "grind-write-check"))
	if err != nil {
		return fmt.Errorf("--save-dir %s: cannot write there: %w", dir, err)
	}
	probe.Abort()
	return nil
}

// savedModelPath is where --save-every writes the model of iteration iter.
func savedModelPath(dir string, iter int) string {
	return filepath.Join(dir, fmt.Sprintf("iter-%04d.jsonl", iter))
}

// trainerOutputs creates, before the run, the outputs of a trainer that
// writes them only when trained (train-ccm, train-hmm): -o and the side
// files --log and --save-model (nil when not given), all put in place
// together when the run succeeds.
func trainerOutputs(c *cli.Context) (log, model *pipeline.Output, err error) {
	if err := program.OpenOutput(c); err != nil {
		return nil, nil, err
	}
	if log, err = program.SideOutput(c, "log"); err != nil {
		return nil, nil, err
	}
	model, err = program.SideOutput(c, "save-model")
	return log, model, err
}
