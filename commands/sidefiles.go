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

// runInputs are the files a run reads: its arguments and -m.
func runInputs(c *cli.Context) []string {
	names := append([]string(nil), c.Args().Slice()...)
	if m := c.String("model"); m != "" {
		names = append(names, m)
	}
	return names
}

// sameFile says whether a and b name one existing file.
func sameFile(a, b string) bool {
	if a == "-" || b == "-" || a == "" || b == "" {
		return false
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// distinctOutputs refuses two output flags of one run (names: flag names,
// "output" for -o) that name one file — by one name, or as one existing
// regular file — since the one written last would replace the other.
// Devices and FIFOs (/dev/null) are written through and may be shared.
func distinctOutputs(c *cli.Context, names ...string) error {
	flag := func(name string) string {
		if name == "output" {
			return "-o"
		}
		return "--" + name
	}
	for i, a := range names {
		pa := c.String(a)
		if pa == "" || pa == "-" {
			continue
		}
		for _, b := range names[i+1:] {
			pb := c.String(b)
			if pb == "" || pb == "-" {
				continue
			}
			fi, err := os.Stat(pa)
			device := err == nil && !fi.Mode().IsRegular()
			if !device && (filepath.Clean(pa) == filepath.Clean(pb) || sameFile(pa, pb)) {
				return program.Usagef("%s and %s both name %s: one would replace the other", flag(a), flag(b), pa)
			}
		}
	}
	return nil
}

// outsideRunDir refuses the output flags names (as distinctOutputs) that
// name a file in the run directory (--run-dir, --resume), whose files
// (run.json, iterations.jsonl, checkpoint.json, model.jsonl) the run
// writes, as -o is refused there.
func outsideRunDir(c *cli.Context, names ...string) error {
	dir := c.String("run-dir")
	if dir == "" {
		dir = c.String("resume")
	}
	if dir == "" {
		return nil
	}
	for _, name := range names {
		if p := c.String(name); p != "" && p != "-" && (filepath.Clean(filepath.Dir(p)) == filepath.Clean(dir) || sameFile(filepath.Dir(p), dir)) {
			return program.Usagef("--%s %s: write it outside the run directory %s, whose files the run writes", name, p, dir)
		}
	}
	return nil
}

// reserveLog checks --log and opens it as a side file; it returns the
// name the training loop writes the log to ("" for no log).
func reserveLog(c *cli.Context) (string, error) {
	path := c.String("log")
	if path == "" {
		return "", nil
	}
	for _, in := range runInputs(c) {
		if sameFile(path, in) {
			return "", program.Usagef("--log %s is an input of this run; it would be overwritten", path)
		}
	}
	if out := c.String("output"); out != "" && out != "-" && (sameFile(path, out) || filepath.Clean(path) == filepath.Clean(out)) {
		return "", program.Usagef("--log and -o both name %s", path)
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
// input.
func checkSaveDir(c *cli.Context, dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return program.Usagef("--save-dir %s is not a folder", dir)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("--save-dir: %w", err)
	}
	probe, err := pipeline.Reserve(filepath.Join(dir, "grind-write-check"))
	if err != nil {
		return fmt.Errorf("--save-dir %s: cannot write there: %w", dir, err)
	}
	probe.Abort()
	for _, in := range runInputs(c) {
		if in == "-" || !savedModelName().MatchString(filepath.Base(in)) {
			continue
		}
		if sameFile(filepath.Dir(in), dir) {
			return program.Usagef("--save-dir %s would overwrite the input %s (saved models are named like it); save elsewhere", dir, in)
		}
	}
	return nil
}

// savedModelPath is where --save-every writes the model of iteration iter.
func savedModelPath(dir string, iter int) string {
	return filepath.Join(dir, fmt.Sprintf("iter-%04d.jsonl", iter))
}
