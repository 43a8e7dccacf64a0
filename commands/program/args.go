package program

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// A program's command line, before urfave/cli parses it: kept as typed
// (Argv), rewritten by the program when it asks (ExpandArgs: a trainer's
// --resume DIR alone takes the rest from the run's record), and ordered
// flags first (flagsFirst).

// argvKey and expandKey hold, in the app's Metadata, the command line as
// typed and the app's ExpandArgs.
const (
	argvKey   = "grind.argv"
	expandKey = "grind.expandArgs"
)

// Argv is the command line the program was run with (args[0] its name),
// as typed.
func Argv(c *cli.Context) []string {
	argv, _ := c.App.Metadata[argvKey].([]string)
	return argv
}

// ExpandArgs rewrites a command line (args[0] the program's name) before
// it is parsed; its error is the program's.
type ExpandArgs func(args []string) ([]string, error)

// SetExpandArgs makes app's command line go through expand before it is
// parsed.
func SetExpandArgs(app *cli.App, expand ExpandArgs) {
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	app.Metadata[expandKey] = expand
}

// prepareArgs is the command line app parses: args kept as typed,
// expanded when the app asks, flags first.
func prepareArgs(app *cli.App, args []string) ([]string, error) {
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	app.Metadata[argvKey] = args
	if expand, ok := app.Metadata[expandKey].(ExpandArgs); ok {
		var err error
		if args, err = expand(args); err != nil {
			return nil, err
		}
	}
	return flagsFirst(app, args)
}

// An ArgFlag is one flag of a command line: its name (the flag's first,
// whatever alias was typed; as typed for a flag app does not have) and
// the tokens that give it ("--tol", "0" or "--tol=0").
type ArgFlag struct {
	Name   string
	Tokens []string
}

// SplitArgs splits a command line of app (args[0] its name) into its
// flags and its file arguments, wherever each stands: "--" ends the
// flags. A flag that takes a value and ends the line is a usage error
// (else it would take the first file argument).
func SplitArgs(app *cli.App, args []string) (flags []ArgFlag, positional []string, err error) {
	type known struct {
		name       string
		takesValue bool
	}
	names := map[string]known{}
	for _, f := range app.Flags {
		_, isBool := Unwrap(f).(*cli.BoolFlag)
		fn := f.Names()
		for _, n := range fn {
			names[n] = known{fn[0], !isBool}
		}
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, append(positional, args[i+1:]...), nil
		case len(a) > 1 && a[0] == '-':
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			f, ok := names[name]
			if !ok {
				f.name = name
			}
			flag := ArgFlag{Name: f.name, Tokens: []string{a}}
			if !hasValue && f.takesValue {
				if i+1 == len(args) {
					return nil, nil, Usagef("%s needs a value", a)
				}
				i++
				flag.Tokens = append(flag.Tokens, args[i])
			}
			flags = append(flags, flag)
		default:
			positional = append(positional, a)
		}
	}
	return flags, positional, nil
}

// flagsFirst moves flags before positional arguments, so that
// "filterlen 10 -o out.jsonl" works as users expect (urfave/cli stops
// parsing flags at the first argument).
func flagsFirst(app *cli.App, args []string) ([]string, error) {
	flags, positional, err := SplitArgs(app, args)
	if err != nil {
		return nil, err
	}
	out := []string{args[0]}
	for _, f := range flags {
		out = append(out, f.Tokens...)
	}
	for _, p := range positional {
		if len(p) > 1 && p[0] == '-' {
			out = append(out, "--") // a file name that looks like a flag
			break
		}
	}
	return append(out, positional...), nil
}
