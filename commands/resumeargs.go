package commands

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/rundir"
)

// resumeArgs expands --resume DIR given without file arguments into the
// run's own command line from its run.json: the run's flags and files,
// the flags given now in place of the run's (checked against the record
// like those of any resume), and relative names made relative to the
// folder the run was started in, so that it continues from anywhere. Any
// other command line is returned as it is.
func resumeArgs(app *cli.App, args []string) ([]string, error) {
	flags, positional, err := program.SplitArgs(app, args)
	if err != nil || len(positional) > 0 {
		return args, nil // parsed, and refused, as usual
	}
	given := map[string]bool{}
	dir := ""
	for _, f := range flags {
		given[f.Name] = true
		if f.Name == "resume" {
			dir = flagValue(f)
		}
	}
	if dir == "" || given["run-dir"] {
		return args, nil
	}
	rec, err := readResumable(dir)
	if err != nil {
		return nil, err
	}
	if rec.Program != app.Name {
		return nil, program.Usagef("--resume: %s is a run of %s, not %s", dir, rec.Program, app.Name)
	}
	if len(rec.Argv) == 0 {
		return nil, program.Usagef("--resume %s: its %s holds no command line; give the run's flags and files", dir, rundir.RecordFile)
	}
	was, files, err := program.SplitArgs(app, rec.Argv)
	if err != nil {
		return nil, program.Usagef("--resume %s: the command line in its %s: %v", dir, rundir.RecordFile, err)
	}
	base := ""
	if wd, _ := os.Getwd(); rec.Dir != "" && rec.Dir != wd {
		if fi, err := os.Stat(rec.Dir); err == nil && fi.IsDir() {
			base = rec.Dir
		}
	}
	out := []string{args[0]}
	for _, f := range was {
		if given[f.Name] || f.Name == "run-dir" || f.Name == "resume" {
			continue
		}
		if v := flagValue(f); base != "" && isPathFlag(app, f.Name, v) {
			f.Tokens = []string{"--" + f.Name, relativeTo(base, v)}
		}
		out = append(out, f.Tokens...)
	}
	for _, f := range flags {
		out = append(out, f.Tokens...)
	}
	out = append(out, "--")
	for _, name := range files {
		out = append(out, relativeTo(base, name))
	}
	return out, nil
}

// flagValue is the value a flag's tokens give it ("" for a bool flag
// given alone).
func flagValue(f program.ArgFlag) string {
	if len(f.Tokens) == 2 {
		return f.Tokens[1]
	}
	_, v, _ := strings.Cut(f.Tokens[0], "=")
	return v
}

// isPathFlag says whether the flag name of app names a file or folder:
// an input (TakesFile, a --rules FILE), an output, --save-dir.
func isPathFlag(app *cli.App, name, value string) bool {
	if program.IsOutputFlag(name) || name == "save-dir" || isRulesFile(name, value) {
		return true
	}
	for _, f := range app.Flags {
		if sf, ok := program.Unwrap(f).(*cli.StringFlag); ok && sf.Name == name {
			return sf.TakesFile
		}
	}
	return false
}

// relativeTo is name read from folder base ("": the working folder);
// stdin and stdout (-) are no file.
func relativeTo(base, name string) string {
	if base == "" || name == "-" || name == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(base, name)
}
