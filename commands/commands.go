// Package commands holds the command lines of grind's programs: one file
// per program, each building a urfave/cli App that parses flags and calls
// one stage. Streams are injected, so tests run whole programs in memory;
// cmd/<name>/main.go only calls Main.
package commands

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/train"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1 // bad input or a failed run
	ExitUsage = 2 // bad flags or arguments
)

var programs = map[string]func() *cli.App{}

// register adds a program; each program's file calls it from init.
func register(name string, app func() *cli.App) {
	if _, dup := programs[name]; dup {
		panic("commands: program registered twice: " + name)
	}
	programs[name] = app
}

// Register adds a program defined outside this package: one whose
// dependencies only its own binary should carry (plotcurve's plotting
// library). Its package registers it from init.
func Register(name string, app func() *cli.App) { register(name, app) }

// Usagef, SkipBadFlag, QuietFlag, Source, TrainFlags, TrainJob and
// WriteOutput are the helpers of programs defined outside this package.
func Usagef(format string, args ...any) error { return usagef(format, args...) }

// SkipBadFlag is --skip-bad.
func SkipBadFlag() cli.Flag { return skipBadFlag() }

// QuietFlag is --quiet.
func QuietFlag() cli.Flag { return quietFlag() }

// Source is the program's input: its file arguments, or stdin.
func Source(c *cli.Context) pipeline.Source { return source(c) }

// TrainFlags are the flags every training program shares.
func TrainFlags(defaultInit string) []cli.Flag { return trainFlags(defaultInit) }

// TrainJob reads the shared training flags.
func TrainJob(c *cli.Context, total int) (train.Job, error) { return trainJob(c, total) }

// WriteOutput runs fn against the -o file (or stdout) and reports the
// records src skipped on stderr.
func WriteOutput(c *cli.Context, src pipeline.Source, fn func(w io.Writer) error) error {
	return writeOutput(c, src, fn)
}

// Names lists the registered programs.
func Names() []string {
	names := make([]string, 0, len(programs))
	for n := range programs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Main runs the named program on the process's arguments and streams.
func Main(name string) int {
	tuneGC()
	return Run(name, os.Args, os.Stdin, os.Stdout, os.Stderr)
}

// tuneGC trades memory for time, unless GOGC or GOMEMLIMIT say otherwise:
// the programs are short batch runs that build their data once, where the
// default collector spends a third of estep's time. The memory limit
// makes the collector work harder again before a large corpus gets near
// it.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(4 << 30)
	}
}

// Run runs the named program with args (args[0] is the program's name) on
// the given streams and returns its exit code.
func Run(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	mk, ok := programs[name]
	if !ok {
		fmt.Fprintf(stderr, "grind: no program named %q\n", name)
		return ExitUsage
	}
	app := mk()
	app.Name = name
	app.Reader, app.Writer, app.ErrWriter = stdin, stdout, stderr
	app.HideHelpCommand = true
	app.EnableBashCompletion = false
	app.ExitErrHandler = func(*cli.Context, error) {} // Run decides the exit code
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return usageError{err} }
	app.CustomAppHelpTemplate = strings.ReplaceAll(cli.AppHelpTemplate, "GLOBAL OPTIONS", "OPTIONS")
	if len(args) == 0 {
		args = []string{name}
	}
	err := app.Run(flagsFirst(app, args))
	if err == nil {
		return ExitOK
	}
	msg := strings.TrimRight(err.Error(), "\n")
	fmt.Fprintf(stderr, "%s: %s\n", name, msg)
	var u usageError
	if errors.As(err, &u) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", name)
		return ExitUsage
	}
	return ExitError
}

// flagsFirst moves flags before positional arguments, so that
// "filterlen 10 -o out.jsonl" works as users expect (urfave/cli stops
// parsing flags at the first argument). "--" ends the flags.
func flagsFirst(app *cli.App, args []string) []string {
	takesValue := map[string]bool{}
	for _, f := range app.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	flags, positional := []string{args[0]}, []string{}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			positional = append(positional, a)
		}
	}
	for _, p := range positional {
		if len(p) > 1 && p[0] == '-' {
			flags = append(flags, "--") // a file name that looks like a flag
			break
		}
	}
	return append(flags, positional...)
}

// usageError is a mistake on the command line rather than in the data.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// usagef reports a command-line mistake.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// Flags every program that writes records shares.
func outputFlag() cli.Flag {
	return &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "-",
		Usage: "write to `FILE` instead of stdout; .gz and .zst names are compressed, and the file appears only when the run succeeds"}
}

func skipBadFlag() cli.Flag {
	return &cli.BoolFlag{Name: "skip-bad", Usage: "skip bad records (counted on stderr) instead of stopping at the first"}
}

func quietFlag() cli.Flag {
	return &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "say nothing on stderr unless something fails"}
}

// source is the program's input: its file arguments, or stdin.
func source(c *cli.Context) pipeline.Source {
	return pipeline.Source{Names: c.Args().Slice(), Stdin: c.App.Reader, Bad: &pipeline.BadRecords{Skip: c.Bool("skip-bad")}}
}

// writeOutput runs fn against the -o file (or stdout) and reports skipped
// records on stderr.
func writeOutput(c *cli.Context, src pipeline.Source, fn func(w io.Writer) error) error {
	err := pipeline.WriteFile(c.String("output"), c.App.Writer, func(o *pipeline.Output) error { return fn(o) })
	if src.Bad != nil && !c.Bool("quiet") {
		src.Bad.Report(c.App.ErrWriter, c.App.Name)
	}
	return err
}
