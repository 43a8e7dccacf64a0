// Package program is what every grind program shares: running one by
// name on injected streams (so tests run whole programs in memory), exit
// codes, usage errors, --help and --version, and the flags and output
// handling common to them. Each program registers itself from the init of
// its own package; a binary links only the programs it imports, so
// estep, mstep and sumcounts (commands/stepcmd), which a shell loop starts
// at every iteration, carry none of the trainers' code.
package program

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/internal/buildinfo"
	"github.com/grind-nlp/grind/internal/lines"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/memory"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1 // bad input or a failed run
	ExitUsage = 2 // bad flags or arguments
	// ExitInternal is a bug in grind (a Go panic), never the user's fault:
	// its own code, so scripts can tell it from bad input.
	ExitInternal = 3
)

var programs = map[string]func() *cli.App{}

// Register adds a program; each program's package calls it from init.
func Register(name string, app func() *cli.App) {
	if _, dup := programs[name]; dup {
		panic("program: registered twice: " + name)
	}
	programs[name] = app
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

// App builds the named program's app as registered (nil: no such
// program), before Run adds what every program shares.
func App(name string) *cli.App {
	mk, ok := programs[name]
	if !ok {
		return nil
	}
	return mk()
}

// Main runs the named program on the process's arguments and streams.
func Main(name string) int { return MainArgs(name, os.Args) }

// MainArgs is Main with the program's command line given (args[0] its
// name): the front command grind runs "grind PROGRAM …" so.
func MainArgs(name string, args []string) int {
	tuneGC()
	memory.TuneGC()
	pipeline.RemoveTempsOnSignal()
	if v := os.Getenv("GRIND_MAX_LINE"); v != "" {
		n, err := parseSize(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: GRIND_MAX_LINE: %v\n", name, err)
			return ExitUsage
		}
		lines.MaxLine = n
	}
	code := Run(name, args, os.Stdin, os.Stdout, os.Stderr)
	// The kernel closes a process's files only after freeing its memory,
	// which takes estep most of a millisecond: the program reading our
	// output through a pipe (mstep after estep) would wait for it.
	// Closed now, it sees the end of its input at once.
	os.Stdout.Close()
	return code
}

// parseSize reads a size in bytes: 1000, 64K, 64M, 1G (powers of 1024).
func parseSize(s string) (int, error) {
	if s == "" {
		return 0, errors.New("empty size")
	}
	mult := 1
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	}
	digits := s
	if mult > 1 {
		digits = s[:len(s)-1]
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || n > (1<<40)/mult {
		return 0, fmt.Errorf("%q is not a size such as 1000, 64K, 64M or 1G", s)
	}
	return n * mult, nil
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
// the given streams and returns its exit code. A panic is a bug in grind:
// it is reported as an internal error with its own exit code, never shown
// to the user as a Go stack dump.
func Run(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: internal error: %v\n", name, r)
			fmt.Fprintf(stderr, "This is a bug in grind; please report it with the command line and input that caused it (GRIND_TRACEBACK=1 prints where it happened).\n")
			if os.Getenv("GRIND_TRACEBACK") != "" {
				stderr.Write(debug.Stack())
			}
			code = ExitInternal
		}
	}()
	app := App(name)
	if app == nil {
		fmt.Fprintf(stderr, "grind: no program named %q\n", name)
		return ExitUsage
	}
	app.Name = name
	app.Reader, app.Writer, app.ErrWriter = stdin, stdout, stderr
	app.HideHelpCommand = true
	app.EnableBashCompletion = false
	app.ExitErrHandler = func(*cli.Context, error) {} // Run decides the exit code
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return usageError{withSuggestion(app, err)} }
	checkFlagFiles(app)
	checkRequiredFlags(app)
	addHelpAndVersion(app)
	groupFlagsInHelp(app)
	if len(args) == 0 {
		args = []string{name}
	}
	cacheNames(app)
	reordered, err := prepareArgs(app, args)
	if err == nil {
		defer release(app)
		err = app.Run(reordered)
	}
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

// addHelpAndVersion gives the app --help and --version flags of its own.
// urfave/cli's are package variables that every app's run writes to,
// which is a data race when tests run programs side by side.
func addHelpAndVersion(app *cli.App) {
	app.HideHelp, app.HideVersion = true, true
	app.Flags = append(app.Flags,
		&cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show help", DisableDefaultText: true}, // urfave/cli shows it when set
		&cli.BoolFlag{Name: "version", Aliases: []string{"V", "v"}, Usage: "print grind's version, the commit it was built from, the Go release and the DMV E-step's kernel", DisableDefaultText: true})
	action := app.Action
	if action == nil {
		return
	}
	app.Action = func(c *cli.Context) error {
		if c.Bool("version") {
			_, err := io.WriteString(c.App.Writer, Version(c.App.Name))
			return err
		}
		return action(c)
	}
}

// checkRequiredFlags takes the check of required flags from urfave/cli,
// which prints the whole help on stdout and exits 1, and makes a missing
// one a usage error (stderr, exit 2) like every other command-line
// mistake.
func checkRequiredFlags(app *cli.App) {
	var required []cli.Flag
	for _, f := range app.Flags {
		var isRequired *bool
		switch f := f.(type) {
		case *cli.StringFlag:
			isRequired = &f.Required
		case *cli.IntFlag:
			isRequired = &f.Required
		case *cli.Float64Flag:
			isRequired = &f.Required
		case *cli.StringSliceFlag:
			isRequired = &f.Required
		}
		if isRequired != nil && *isRequired {
			*isRequired, required = false, append(required, f)
		}
	}
	if len(required) == 0 || app.Action == nil {
		return
	}
	action := app.Action
	app.Action = func(c *cli.Context) error {
		for _, f := range required {
			if !c.IsSet(f.Names()[0]) {
				if c.App.UsageText != "" {
					return Usagef("missing %s (usage: %s)", flagPlaceholder(f), c.App.UsageText)
				}
				return Usagef("missing %s", flagPlaceholder(f))
			}
		}
		return action(c)
	}
}

// flagPlaceholder names a flag and what it takes, as the help shows it:
// "--dev FILE".
func flagPlaceholder(f cli.Flag) string {
	name := "--" + f.Names()[0]
	if d, ok := f.(cli.DocGenerationFlag); ok && d.TakesValue() {
		if u, ok := f.(interface{ GetUsage() string }); ok {
			if _, rest, ok := strings.Cut(u.GetUsage(), "`"); ok {
				if ph, _, ok := strings.Cut(rest, "`"); ok && ph != "" {
					return name + " " + ph
				}
			}
		}
	}
	return name
}

// usageError is a mistake on the command line rather than in the data.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// Usagef reports a command-line mistake.
func Usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// OutputFlag is -o, the flag of every program that writes records.
func OutputFlag() cli.Flag {
	return &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "-",
		Usage: "write to `FILE` instead of stdout; .gz and .zst names are compressed, and the file appears only when the run succeeds"}
}

// SkipBadFlag is --skip-bad.
func SkipBadFlag() cli.Flag {
	return &cli.BoolFlag{Name: "skip-bad", Usage: "skip bad records (counted on stderr) instead of stopping at the first"}
}

// QuietFlag is --quiet.
func QuietFlag() cli.Flag {
	return &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "say nothing on stderr unless something fails"}
}

// Source is the program's input: its file arguments, or stdin.
func Source(c *cli.Context) pipeline.Source {
	return pipeline.Source{Names: c.Args().Slice(), Stdin: c.App.Reader, Bad: &pipeline.BadRecords{Skip: c.Bool("skip-bad")}}
}

// WriteOutput runs fn against the -o file (or stdout) and reports skipped
// records on stderr. The run's side files (a trainer's --log) are put in
// place with -o when fn succeeds, and removed when it fails.
func WriteOutput(c *cli.Context, src pipeline.Source, fn func(w io.Writer) error) error {
	err := writeWithSides(c, fn)
	if src.Bad != nil && !c.Bool("quiet") {
		src.Bad.Report(c.App.ErrWriter, c.App.Name)
	}
	return err
}

func writeWithSides(c *cli.Context, fn func(w io.Writer) error) error {
	sides := sideOutputs(c)
	defer func() {
		for _, o := range sides {
			o.Abort()
		}
	}()
	if err := OpenOutput(c); err != nil {
		return err
	}
	o := c.App.Metadata[outputKey].(*pipeline.Output)
	defer o.Abort()
	if err := fn(o); err != nil {
		return nameSideFiles(err, sides)
	}
	return pipeline.CommitAll(append([]*pipeline.Output{o}, sides...)...)
}

// outputKey holds, in the app's Metadata, the -o output once opened.
const outputKey = "grind.output"

// OpenOutput creates the -o file now, for a program that writes it only
// after a long run (a trainer that writes its sentences when trained): a
// folder that is missing or cannot be written is said before the run,
// and SIGINT removes the file however early it comes. WriteOutput writes
// it (and opens it, when this was not called).
func OpenOutput(c *cli.Context) error {
	if c.App.Metadata == nil {
		c.App.Metadata = map[string]any{}
	}
	if _, ok := c.App.Metadata[outputKey]; ok {
		return nil
	}
	o, err := pipeline.Create(c.String("output"), c.App.Writer)
	if err != nil {
		return err
	}
	c.App.Metadata[outputKey] = o
	return nil
}

// nameSideFiles puts the user's names in an error that names the
// temporary file of a side output (a log that could not be written).
func nameSideFiles(err error, sides []*pipeline.Output) error {
	msg := err.Error()
	for _, o := range sides {
		if tmp := o.Name(); tmp != o.Path() && strings.Contains(msg, tmp) {
			msg = strings.ReplaceAll(msg, tmp, o.Path())
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// sideOutputsKey holds, in the app's Metadata, the side files of a run
// (a trainer's --log, its saved models) that WriteOutput commits together
// with -o.
const sideOutputsKey = "grind.sideOutputs"

// AddSideOutput makes o a side file of the run: put in place with -o when
// the program succeeds, removed when it fails.
func AddSideOutput(c *cli.Context, o *pipeline.Output) {
	if c.App.Metadata == nil {
		c.App.Metadata = map[string]any{}
	}
	outs, _ := c.App.Metadata[sideOutputsKey].([]*pipeline.Output)
	c.App.Metadata[sideOutputsKey] = append(outs, o)
}

// SideOutput creates the side file the flag name names (nil when it is
// not given), before the run starts: written like -o and put in place
// with it.
func SideOutput(c *cli.Context, name string) (*pipeline.Output, error) {
	path := c.String(name)
	if path == "" {
		return nil, nil
	}
	o, err := pipeline.Create(path, c.App.Writer)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flagName(name), err)
	}
	AddSideOutput(c, o)
	return o, nil
}

func sideOutputs(c *cli.Context) []*pipeline.Output {
	outs, _ := c.App.Metadata[sideOutputsKey].([]*pipeline.Output)
	return outs
}

// heldKey holds, in the app's Metadata, what the run keeps until it ends
// (a run directory's lock).
const heldKey = "grind.held"

// Hold keeps r until the program's run ends, then closes it (after the
// side files of a failed run are removed).
func Hold(c *cli.Context, r io.Closer) {
	if c.App.Metadata == nil {
		c.App.Metadata = map[string]any{}
	}
	held, _ := c.App.Metadata[heldKey].([]io.Closer)
	c.App.Metadata[heldKey] = append(held, r)
}

// release ends a run: the outputs it did not commit (it failed before
// writing -o) are removed, and what it held is closed.
func release(app *cli.App) {
	outs, _ := app.Metadata[sideOutputsKey].([]*pipeline.Output)
	if o, ok := app.Metadata[outputKey].(*pipeline.Output); ok {
		outs = append(outs, o)
	}
	for _, o := range outs {
		o.Abort()
	}
	held, _ := app.Metadata[heldKey].([]io.Closer)
	for i := len(held) - 1; i >= 0; i-- {
		held[i].Close()
	}
}

// Version is what name --version prints: grind's version, the commit and
// the Go release, then the kernels of the DMV's and the CCM's E-steps
// (the same lanes, internal/vec8) and of the HMM's in this binary on
// this machine (README, "Install").
func Version(name string) string {
	return fmt.Sprintf("%s version %s %s\nDMV and CCM E-step kernel: %s\nHMM E-step kernel: %s\n", name, buildinfo.Read(), buildinfo.GoVersion(), dmv.Kernel(), hmm.Kernel())
}
