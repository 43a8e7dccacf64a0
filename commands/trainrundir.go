package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/rundir"
	"github.com/grind-nlp/grind/stages/train"
)

// RunDirFlags are --run-dir and --resume, for the trainers that can
// continue a killed run (train-em, train-da, train-sa, train-ce,
// train-ccm, train-hmm).
func RunDirFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "run-dir", Usage: "record the run in `DIR`: run.json (command, flags, input hashes), iterations.jsonl, checkpoint.json after every iteration, model.jsonl"},
		&cli.StringFlag{Name: "resume", Usage: "continue the killed run of `DIR` (same program, flags and inputs)"},
	}
}

// runRecord is run.json: what a resumed run must match.
type runRecord struct {
	Program string            `json:"program"`
	Argv    []string          `json:"argv"`   // the process's command line
	Args    []string          `json:"args"`   // the input files
	Flags   map[string]string `json:"flags"`  // every flag's value, defaults included
	Inputs  []string          `json:"inputs"` // sha256 of each input file (and -m)
}

// mayDiffer are the flags a resumed run may change: they do not change
// the model (the E-step's sums do not depend on the number of workers,
// nor on whether the corpus is held or streamed).
var mayDiffer = map[string]bool{
	"workers": true, "quiet": true, "output": true, "run-dir": true, "resume": true,
	"save-every": true, "save-dir": true, "save-model": true, "stream": true,
}

// runDir reads --run-dir and --resume: it checks the directory before the
// run, writes run.json for a new run and checks it for a resumed one.
func runDir(c *cli.Context) (dir string, resume bool, err error) {
	return runDirOf(c, runInputs(c))
}

// runDirOf is runDir with the input files (hashed into run.json) given.
// The run holds the directory's lock (rundir.Lock) until it ends: a
// second run or resume there is refused at once.
func runDirOf(c *cli.Context, inputs []string) (dir string, resume bool, err error) {
	dir, resume = c.String("run-dir"), c.IsSet("resume")
	if resume {
		if dir != "" {
			return "", false, program.Usagef("--run-dir and --resume: a run either starts or resumes")
		}
		dir = c.String("resume")
	}
	if dir == "" {
		return "", false, nil
	}
	flag := map[bool]string{false: "--run-dir", true: "--resume"}[resume]
	if c.String("log") != "" {
		return "", false, program.Usagef("--log and %s: the run directory has its log, %s", flag, train.RunLog)
	}
	if c.NArg() == 0 {
		return "", false, program.Usagef("%s needs input files: stdin cannot be read again on --resume", flag)
	}
	folder := pipeline.KeyOf(dir)
	if folder.Exists() && !folder.IsDir() {
		return "", false, program.Usagef("%s %s is not a folder", flag, dir)
	}
	for _, in := range inputs {
		if in == "-" {
			return "", false, program.Usagef("%s needs input files: stdin cannot be read again on --resume", flag)
		}
		if what := notRereadable(in); what != "" {
			return "", false, program.Usagef("%s needs input files it can read again on --resume, not %s (%s); save it to a file first", flag, in, what)
		}
		if pipeline.InDir(in, folder, nil) {
			return "", false, program.Usagef("%s %s holds the input %s; record the run elsewhere", flag, dir, in)
		}
	}
	for _, o := range program.FlagFiles(c).Outputs {
		if pipeline.InDir(o.Path, folder, nil) {
			return "", false, program.Usagef("%s %s: write %s outside it (the run writes %s there)", flag, dir, o.Flag, train.RunModel)
		}
	}
	path := filepath.Join(dir, "run.json")
	if resume {
		if _, err := os.Stat(path); err != nil {
			return "", false, program.Usagef("--resume %s: no run.json there (not a run directory)", dir)
		}
	} else if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", false, fmt.Errorf("--run-dir: %w", err)
	}
	lock, err := rundir.Lock(dir)
	if err != nil {
		return "", false, fmt.Errorf("%s %s: %w", flag, dir, err)
	}
	program.Hold(c, lock)
	// What a run killed with SIGKILL was writing, it left half-written.
	for _, name := range []string{"run.json", rundir.Log, rundir.Checkpoint, rundir.Model} {
		if err := pipeline.RemoveStaleTemps(filepath.Join(dir, name)); err != nil {
			return "", false, err
		}
	}
	if _, err := os.Stat(path); err == nil && !resume && rundir.Begun(dir) {
		return "", false, program.Usagef("--run-dir %s already holds a run; continue it with --resume %s or choose another", dir, dir)
	}
	rec := runRecord{Program: c.App.Name, Argv: os.Args, Args: c.Args().Slice(), Flags: map[string]string{}}
	for _, f := range c.App.Flags {
		name := f.Names()[0]
		if name == "help" || name == "version" {
			continue
		}
		rec.Flags[name] = fmt.Sprint(c.Value(name))
	}
	for _, in := range inputs {
		h, err := rundir.HashFile(in)
		if err != nil {
			return "", false, err
		}
		rec.Inputs = append(rec.Inputs, h)
	}
	if resume {
		defaults := map[string]bool{}
		for name := range rec.Flags {
			defaults[name] = !c.IsSet(name)
		}
		return dir, true, checkResume(path, rec, inputs, defaults)
	}
	// A run that never got anywhere here (killed while it was set up, or
	// failed before its first iteration) left nothing to keep; a stale
	// checkpoint of an earlier run that lost its run.json must not be
	// taken for this run's.
	for _, name := range []string{rundir.Checkpoint, rundir.Log} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", false, err
		}
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	return dir, false, pipeline.WriteFile(path, nil, func(o *pipeline.Output) error {
		_, err := o.Write(append(b, '\n'))
		return err
	})
}

// notRereadable says why a resumed run could not read the input in
// again: it is a pipe, a FIFO, a device or this process's own standard
// input ("" when it can).
func notRereadable(in string) string {
	if pipeline.ProcessOwn(in) {
		return "a name of this process's own descriptors"
	}
	fi, err := os.Stat(in)
	switch {
	case err != nil || fi.Mode().IsRegular():
		return "" // hashing it says what is wrong
	case fi.Mode()&fs.ModeNamedPipe != 0:
		return "a pipe or FIFO"
	case fi.IsDir():
		return "a folder"
	}
	return "a device or socket"
}

// checkResume refuses to resume a run made by another program, on other
// inputs (named, in the order of now.Inputs) or with other flags (but
// those of mayDiffer). A flag the run's record lacks (a run of an older
// grind, before the flag was made) is the run's as long as it is left at
// its default now (defaults[name]): what the older program did.
func checkResume(path string, now runRecord, names []string, defaults map[string]bool) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return program.Usagef("--resume %s: no run.json there (not a run directory)", filepath.Dir(path))
	}
	if err != nil {
		return err
	}
	var was runRecord
	if err := json.Unmarshal(b, &was); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if was.Program != now.Program {
		return program.Usagef("--resume: %s is a run of %s, not %s", filepath.Dir(path), was.Program, now.Program)
	}
	if len(was.Inputs) != len(now.Inputs) {
		return program.Usagef("--resume: the run read %d input files (%s), this one %d", len(was.Inputs), path, len(now.Inputs))
	}
	for i, h := range now.Inputs {
		if h != was.Inputs[i] {
			return program.Usagef("--resume: %s is not the file the run read: its SHA-256 differs from run.json's (%s)", names[i], path)
		}
	}
	var differ []string
	for name, v := range now.Flags {
		w, ok := was.Flags[name]
		if !ok && defaults[name] {
			continue
		}
		if !mayDiffer[name] && (!ok || w != v) {
			differ = append(differ, fmt.Sprintf("--%s %s (the run had %s)", name, v, w))
		}
	}
	if len(differ) > 0 {
		sort.Strings(differ)
		return program.Usagef("--resume: flags differ from the run's (%s): %s", path, strings.Join(differ, ", "))
	}
	return nil
}

// trainerRun is the run directory of a trainer on emloop (train-ccm,
// train-hmm): run.json, the iteration log, the checkpoints in the form S
// its family stores them, and the final model.
type trainerRun[S any] struct {
	dir     string
	resumed *rundir.State[S] // nil: from the start
	log     *os.File
	elapsed float64 // seconds the resumed run's log had reached
}

// openTrainerRun reads --run-dir and --resume (nil without them): run.json
// written or checked, the checkpoint read, the log cut back to it.
func openTrainerRun[S any](c *cli.Context, inputs []string) (*trainerRun[S], error) {
	dir, resume, err := runDirOf(c, inputs)
	if err != nil || dir == "" {
		return nil, err
	}
	r := &trainerRun[S]{dir: dir}
	done := 0
	if resume {
		if r.resumed, err = rundir.Read[S](dir, nil); err != nil {
			return nil, err
		}
		if r.resumed != nil {
			done = r.resumed.Done()
		}
	}
	if r.log, r.elapsed, err = rundir.OpenLog(dir, resume, done); err != nil {
		return nil, err
	}
	return r, nil
}

// origin is where the log's seconds count from: as many seconds ago as a
// resumed run's log had reached.
func (r *trainerRun[S]) origin() time.Time {
	if r == nil {
		return time.Now()
	}
	return time.Now().Add(-time.Duration(r.elapsed * float64(time.Second)))
}

func (r *trainerRun[S]) checkpoint(st rundir.State[S]) error { return rundir.Write(r.dir, st) }

// saveModel writes the final model into the run directory atomically.
func (r *trainerRun[S]) saveModel(write func(io.Writer) error) error {
	return pipeline.WriteFile(filepath.Join(r.dir, rundir.Model), nil, func(o *pipeline.Output) error { return write(o) })
}

func (r *trainerRun[S]) close() error {
	if r == nil {
		return nil
	}
	return r.log.Close()
}
