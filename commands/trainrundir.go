package commands

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/internal/buildinfo"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/emloop"
	"github.com/grind-nlp/grind/stages/pr"
	"github.com/grind-nlp/grind/stages/rundir"
	"github.com/grind-nlp/grind/stages/train"
)

// RunDirFlags are --run-dir and --resume, for the trainers that can
// continue a killed run (train-em, train-da, train-sa, train-ce,
// train-ccm, train-hmm), whose apps are registered through WithRunDir.
func RunDirFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "run-dir", Usage: "record the run in `DIR`: run.json (grind's version, host, times, command, every flag's value as used, every input with its SHA-256), iterations.jsonl, checkpoint.json after every iteration, model.jsonl"},
		&cli.StringFlag{Name: "resume", Usage: "continue the killed run of `DIR`: alone, it takes the run's flags and inputs from its run.json (checking the inputs' SHA-256); or given with the same flags and inputs"},
	}
}

// WithRunDir registers a trainer that takes RunDirFlags: --resume DIR
// alone is expanded into the run's own command line, and run.json gets
// the time the run ended when it succeeds.
func WithRunDir(app func() *cli.App) func() *cli.App {
	return func() *cli.App {
		a := app()
		program.SetExpandArgs(a, func(args []string) ([]string, error) { return resumeArgs(a, args) })
		action := a.Action
		a.Action = func(c *cli.Context) error {
			if err := action(c); err != nil {
				return err
			}
			return finishRun(c)
		}
		return a
	}
}

// mayDiffer are the flags a resumed run may change: they do not change
// the model (the E-step's sums do not depend on the number of workers,
// nor on whether the corpus is held or streamed).
var mayDiffer = map[string]bool{
	"workers": true, "quiet": true, "output": true, "run-dir": true, "resume": true,
	"save-every": true, "save-dir": true, "save-model": true, "stream": true,
}

// stdinNotResumable is why a run that read stdin cannot be resumed.
const stdinNotResumable = "it read stdin, which cannot be read again"

// runState is the run directory of a run under way, kept in the app's
// Metadata (runKey) from runDir to finishRun.
type runState struct {
	dir   string
	rec   *rundir.Record
	stdin *hashingReader // the run's stdin, when it reads it
}

const runKey = "grind.run"

// runDir reads --run-dir and --resume: it checks the directory before the
// run, writes run.json for a new run and checks it for a resumed one.
// The run holds the directory's lock (rundir.Lock) until it ends: a
// second run or resume there is refused at once.
func runDir(c *cli.Context) (dir string, resume bool, err error) {
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
	folder := pipeline.KeyOf(dir)
	if folder.Exists() && !folder.IsDir() {
		return "", false, program.Usagef("%s %s is not a folder", flag, dir)
	}
	inputs := runInputs(c)
	readsStdin := false
	for _, in := range inputs {
		if in.File == "-" {
			readsStdin = true
			continue
		}
		if what := notRereadable(in.File); what != "" {
			return "", false, program.Usagef("%s needs input files it can read again on --resume, not %s (%s); save it to a file first, or give it on stdin (hashed as it is read; such a run cannot be resumed)", flag, in.File, what)
		}
		if pipeline.InDir(in.File, folder, nil) {
			return "", false, program.Usagef("%s %s holds the input %s; record the run elsewhere", flag, dir, in.File)
		}
	}
	for _, o := range program.FlagFiles(c).Outputs {
		if pipeline.InDir(o.Path, folder, nil) {
			return "", false, program.Usagef("%s %s: write %s outside it (the run writes %s there)", flag, dir, o.Flag, train.RunModel)
		}
	}
	var was *rundir.Record
	if resume {
		if was, err = readResumable(dir); err != nil {
			return "", false, err
		}
		if readsStdin {
			return "", false, program.Usagef("--resume %s: a resumed run's inputs are checked against run.json's SHA-256 before it goes on, which stdin's cannot be: give the run's files, or --resume %s alone", dir, dir)
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
	for _, name := range []string{rundir.RecordFile, rundir.Log, rundir.Checkpoint, rundir.Model} {
		if err := pipeline.RemoveStaleTemps(filepath.Join(dir, name)); err != nil {
			return "", false, err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.RecordFile)); err == nil && !resume && rundir.Begun(dir) {
		return "", false, program.Usagef("--run-dir %s already holds a run; continue it with '%s --resume %s' or choose another", dir, c.App.Name, dir)
	}
	now, declared, err := newRecord(c, inputs)
	if err != nil {
		return "", false, err
	}
	st := &runState{dir: dir, rec: now}
	if resume {
		if err := checkResume(dir, was, now, declared, c); err != nil {
			return "", false, err
		}
		was.Ended = ""
		r := rundir.Resumption{Started: now.Started, Host: now.Host}
		if was.Grind == nil || *was.Grind != *now.Grind || was.Go != now.Go {
			r.Grind, r.Go = now.Grind, now.Go
		}
		was.Resumed = append(was.Resumed, r)
		st.rec = was
	} else {
		if readsStdin {
			now.NotResumable = stdinNotResumable
			st.stdin = &hashingReader{r: c.App.Reader, h: sha256.New()}
			c.App.Reader = st.stdin
			if !c.Bool("quiet") {
				fmt.Fprintf(c.App.ErrWriter, "%s: --run-dir %s: this run reads stdin, which cannot be read again: it cannot be resumed (save the input to a file for a run that can)\n", c.App.Name, dir)
			}
		}
		// A run that never got anywhere here (killed while it was set up,
		// or failed before its first iteration) left nothing to keep; a
		// stale checkpoint of an earlier run that lost its run.json must
		// not be taken for this run's.
		for _, name := range []string{rundir.Checkpoint, rundir.Log} {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", false, err
			}
		}
	}
	c.App.Metadata[runKey] = st
	return dir, resume, rundir.WriteRecord(dir, st.rec)
}

// readResumable reads the record of the run --resume dir continues.
func readResumable(dir string) (*rundir.Record, error) {
	was, err := rundir.ReadRecord(dir)
	switch {
	case errors.Is(err, rundir.ErrNoRecord):
		return nil, program.Usagef("--resume %s: no %s there (not a run directory)", dir, rundir.RecordFile)
	case err != nil:
		return nil, err
	case was.NotResumable != "":
		return nil, program.Usagef("--resume %s: the run cannot be resumed: %s; start it again with --run-dir", dir, was.NotResumable)
	}
	return was, nil
}

// finishRun records in run.json that the run ended, and the SHA-256 of
// the stdin it read (read to its end first: the run's input is all of
// it).
func finishRun(c *cli.Context) error {
	st, ok := c.App.Metadata[runKey].(*runState)
	if !ok {
		return nil
	}
	if st.stdin != nil {
		sum, err := st.stdin.sum()
		if err != nil {
			return fmt.Errorf("%s: %w", pipeline.StdinName, err)
		}
		for i := range st.rec.Inputs {
			if st.rec.Inputs[i].File == "-" {
				st.rec.Inputs[i].SHA256 = sum
			}
		}
	}
	st.rec.Ended = time.Now().Format(time.RFC3339)
	return rundir.WriteRecord(st.dir, st.rec)
}

// hashingReader is a run's stdin, hashed as it is read.
type hashingReader struct {
	r io.Reader
	h hash.Hash
}

func (s *hashingReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.h.Write(p[:n])
	return n, err
}

// sum is the SHA-256 of all of stdin, in hex.
func (s *hashingReader) sum() (string, error) {
	if _, err := io.Copy(io.Discard, s); err != nil {
		return "", err
	}
	return hex.EncodeToString(s.h.Sum(nil)), nil
}

// runInputs are the files a run reads, in the order run.json lists them:
// its arguments ("-", stdin, when there are none), then the files its
// flags name (-m, --test, a --rules FILE).
func runInputs(c *cli.Context) []rundir.Input {
	var ins []rundir.Input
	args := c.Args().Slice()
	if len(args) == 0 {
		args = []string{"-"}
	}
	for _, a := range args {
		ins = append(ins, rundir.Input{File: a})
	}
	for _, f := range c.App.Flags {
		name := f.Names()[0]
		if sf, ok := program.Unwrap(f).(*cli.StringFlag); ok && c.IsSet(name) && (sf.TakesFile || isRulesFile(name, c.String(name))) {
			ins = append(ins, rundir.Input{File: c.String(name), Flag: "--" + name})
		}
	}
	return ins
}

// isRulesFile says whether value of flag name is posterior
// regularization's --rules naming a file, not a built-in table.
func isRulesFile(name, value string) bool {
	return name == "rules" && !slices.Contains(pr.BuiltinRules(), value)
}

// usedKey holds, in the app's Metadata, the values a run uses for flags
// whose declared default stands for another value (setUsed).
const usedKey = "grind.used"

// setUsed records that the run uses value for the flag name (--tol left
// out: the estimator's own threshold), which run.json shows instead of
// the flag's declared default. It is called before runDir.
func setUsed(c *cli.Context, name, value string) {
	used, _ := c.App.Metadata[usedKey].(map[string]string)
	if used == nil {
		used = map[string]string{}
		c.App.Metadata[usedKey] = used
	}
	used[name] = value
}

// setUsedTol records the --tol a run uses: the one given (0: none, it
// runs to --max-iter), else def, the estimator's own.
func setUsedTol(c *cli.Context, def float64) {
	tol := def
	if c.String("stop") == string(emloop.Bits) {
		tol = emloop.DefaultBitsTol
	}
	if c.IsSet("tol") {
		tol = c.Float64("tol")
	}
	setUsed(c, "tol", strconv.FormatFloat(tol, 'g', -1, 64))
}

// newRecord is the record of this run: who, where and when, the command
// line, every flag's value as used and every input hashed (stdin's when
// it has been read). declared holds every flag's declared value instead,
// as an older grind recorded them.
func newRecord(c *cli.Context, inputs []rundir.Input) (rec *rundir.Record, declared map[string]string, err error) {
	build := buildinfo.Read()
	host, _ := os.Hostname()
	wd, _ := os.Getwd()
	rec = &rundir.Record{
		Program: c.App.Name, Grind: &build, Go: buildinfo.GoVersion(), Host: host, Dir: wd,
		Started: time.Now().Format(time.RFC3339),
		Argv:    program.Argv(c), Args: c.Args().Slice(), Flags: map[string]string{}, Inputs: inputs,
	}
	declared = map[string]string{}
	used, _ := c.App.Metadata[usedKey].(map[string]string)
	for _, f := range c.App.Flags {
		name := f.Names()[0]
		if name == "help" || name == "version" {
			continue
		}
		declared[name] = fmt.Sprint(c.Value(name))
		rec.Flags[name] = declared[name]
		if v, ok := used[name]; ok {
			rec.Flags[name] = v
		} else if name == "workers" {
			rec.Flags[name] = strconv.Itoa(pipeline.Workers(c.Int(name)))
		}
	}
	for i, in := range rec.Inputs {
		if in.File == "-" {
			continue
		}
		if rec.Inputs[i].SHA256, err = rundir.HashFile(in.File); err != nil {
			return nil, nil, err
		}
	}
	return rec, declared, nil
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

// checkResume refuses to resume the run recorded in dir (was) with a run
// (now) made by another program, on other inputs (compared by their
// SHA-256, whatever they are called now) or with other flags (but those
// of mayDiffer). A record of an older grind holds every flag's declared
// value (compared with declared) and its inputs' hashes alone; a flag it
// lacks (made since) is the run's as long as it is left at its default
// now: what the older program did.
func checkResume(dir string, was, now *rundir.Record, declared map[string]string, c *cli.Context) error {
	path := filepath.Join(dir, rundir.RecordFile)
	if was.Program != now.Program {
		return program.Usagef("--resume: %s is a run of %s, not %s", dir, was.Program, now.Program)
	}
	inputs, flags := now.Inputs, now.Flags
	if was.Old() {
		// An older grind did not hash a --rules FILE.
		inputs = slices.DeleteFunc(slices.Clone(inputs), func(in rundir.Input) bool { return in.Flag == "--rules" })
		flags = declared
	}
	if len(was.Inputs) != len(inputs) {
		return program.Usagef("--resume: the run read %d input files (%s), this one %d", len(was.Inputs), path, len(inputs))
	}
	byHash := map[string]bool{} // the flags whose files are compared by their hashes
	for i, in := range inputs {
		w := was.Inputs[i]
		if in.SHA256 != w.SHA256 || !was.Old() && in.Flag != w.Flag {
			if w.File != "" && w.File != in.File {
				return program.Usagef("--resume: %s is not the file the run read (%s): its SHA-256 differs from run.json's (%s)", in.File, w.File, path)
			}
			return program.Usagef("--resume: %s is not the file the run read: its SHA-256 differs from run.json's (%s)", in.File, path)
		}
		if !was.Old() && in.Flag != "" {
			byHash[strings.TrimPrefix(in.Flag, "--")] = true
		}
	}
	var differ []string
	for name, v := range flags {
		w, ok := was.Flags[name]
		if !ok && !c.IsSet(name) || mayDiffer[name] || byHash[name] {
			continue
		}
		if !ok || w != v {
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
func openTrainerRun[S any](c *cli.Context) (*trainerRun[S], error) {
	dir, resume, err := runDir(c)
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
