package program

import "github.com/urfave/cli/v2"

// A flag's Names, as urfave/cli computes them, run a regular expression
// over each name (FlagNames), and urfave/cli asks for them again and
// again: Context.IsSet looks an unset flag up by going through every
// flag's names, and every run asks IsSet of every flag (runFlagActions),
// so a program of 40 flags runs the expression a thousand times before
// its action starts (0.2–0.5 ms, on the path of every estep and mstep of
// a shell loop). cacheNames gives each flag of app its names once, for
// the run: a wrapper that embeds the flag, so that every method but
// Names (and GetCategory, below) is the flag's own and every interface urfave/cli asks of a flag
// is still met. Code that asks for a flag's concrete type or its category
// during the run goes through Unwrap.
//
// The wrappers have no category: urfave/cli sorts a run's flags into
// their categories when it sets the app up (App.Setup), writing out
// each flag's help line as it goes (a tenth of estep's start), only for
// its own help template; grind's (helpTemplate) groups the flags itself,
// when the help is shown (FlagGroups), from the flags unwrapped.

type (
	namedBool struct {
		*cli.BoolFlag
		names []string
	}
	namedString struct {
		*cli.StringFlag
		names []string
	}
	namedInt struct {
		*cli.IntFlag
		names []string
	}
	namedFloat64 struct {
		*cli.Float64Flag
		names []string
	}
	namedUint64 struct {
		*cli.Uint64Flag
		names []string
	}
	namedSlice struct {
		*cli.StringSliceFlag
		names []string
	}
)

func (f *namedBool) Names() []string    { return f.names }
func (f *namedString) Names() []string  { return f.names }
func (f *namedInt) Names() []string     { return f.names }
func (f *namedFloat64) Names() []string { return f.names }
func (f *namedUint64) Names() []string  { return f.names }
func (f *namedSlice) Names() []string   { return f.names }

func (*namedBool) GetCategory() string    { return "" }
func (*namedString) GetCategory() string  { return "" }
func (*namedInt) GetCategory() string     { return "" }
func (*namedFloat64) GetCategory() string { return "" }
func (*namedUint64) GetCategory() string  { return "" }
func (*namedSlice) GetCategory() string   { return "" }

// cacheNames wraps each flag of app whose kind it knows.
func cacheNames(app *cli.App) {
	flags := make([]cli.Flag, len(app.Flags))
	for i, f := range app.Flags {
		switch g := f.(type) {
		case *cli.BoolFlag:
			f = &namedBool{g, g.Names()}
		case *cli.StringFlag:
			f = &namedString{g, g.Names()}
		case *cli.IntFlag:
			f = &namedInt{g, g.Names()}
		case *cli.Float64Flag:
			f = &namedFloat64{g, g.Names()}
		case *cli.Uint64Flag:
			f = &namedUint64{g, g.Names()}
		case *cli.StringSliceFlag:
			f = &namedSlice{g, g.Names()}
		}
		flags[i] = f
	}
	app.Flags = flags
}

// Unwrap is the flag urfave/cli was given: f itself, or the flag a run
// wrapped to give it its names once.
func Unwrap(f cli.Flag) cli.Flag {
	switch g := f.(type) {
	case *namedBool:
		return g.BoolFlag
	case *namedString:
		return g.StringFlag
	case *namedInt:
		return g.IntFlag
	case *namedFloat64:
		return g.Float64Flag
	case *namedUint64:
		return g.Uint64Flag
	case *namedSlice:
		return g.StringSliceFlag
	}
	return f
}
