package program

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// --help lists a program's flags in groups: its own flags without a
// category first, then its categories (an estimator's flags, the start,
// posterior regularization …) in the order they first appear, then the
// groups of the flags many programs share, then help and version.

// Categories of the flags many programs share, given by name (a flag's
// own Category comes first).
const (
	InputOutput  = "Input and output"
	RunDirectory = "Run directory"
	Resources    = "Resources"
	HelpVersion  = "Help"
)

// Categories of flags that several programs take, each from one
// constructor (PRFlags, DepthFlags): the programs put them there.
const (
	PRCategory    = "Posterior regularization (--rules, --sparsity)"
	DepthCategory = "Left-corner depth bound"
)

// sharedOrder is the order of the shared groups, after the program's own.
var sharedOrder = []string{InputOutput, RunDirectory, Resources, HelpVersion}

var sharedCategory = map[string]string{
	"output": InputOutput, "skip-bad": InputOutput, "quiet": InputOutput, "log": InputOutput,
	"save-model": InputOutput, "save-every": InputOutput, "save-dir": InputOutput, "stream": InputOutput,
	"run-dir": RunDirectory, "resume": RunDirectory,
	"workers": Resources, "max-memory": Resources,
	"help": HelpVersion, "version": HelpVersion,
}

// InCategory puts flags in the help's category name and returns them.
func InCategory(name string, flags ...cli.Flag) []cli.Flag {
	for _, f := range flags {
		switch f := f.(type) {
		case *cli.BoolFlag:
			f.Category = name
		case *cli.IntFlag:
			f.Category = name
		case *cli.Float64Flag:
			f.Category = name
		case *cli.StringFlag:
			f.Category = name
		case *cli.StringSliceFlag:
			f.Category = name
		case *cli.Uint64Flag:
			f.Category = name
		default:
			panic("program: InCategory: a flag of an unknown type")
		}
	}
	return flags
}

// FlagGroup is one group of the help's flags; Name "" for a program's
// own flags without a category.
type FlagGroup struct {
	Name  string
	Flags []cli.Flag
}

// FlagGroups are app's visible flags in the groups --help shows.
func FlagGroups(app *cli.App) []FlagGroup {
	var own, shared []FlagGroup
	add := func(groups []FlagGroup, name string, f cli.Flag) []FlagGroup {
		for i := range groups {
			if groups[i].Name == name {
				groups[i].Flags = append(groups[i].Flags, f)
				return groups
			}
		}
		return append(groups, FlagGroup{name, []cli.Flag{f}})
	}
	own = append(own, FlagGroup{})
	for _, f := range app.VisibleFlags() {
		cat := ""
		if c, ok := Unwrap(f).(cli.CategorizableFlag); ok {
			cat = c.GetCategory()
		}
		if s, ok := sharedCategory[f.Names()[0]]; ok && cat == "" {
			shared = add(shared, s, f)
		} else {
			own = add(own, cat, f)
		}
	}
	slices.SortStableFunc(shared, func(a, b FlagGroup) int {
		return slices.Index(sharedOrder, a.Name) - slices.Index(sharedOrder, b.Name)
	})
	if len(own[0].Flags) == 0 {
		own = own[1:]
	}
	return append(own, shared...)
}

// flagGroupsKey holds, in the app's Metadata, the function the help
// template calls for FlagGroups: made only when the help is shown, not at
// every start of a program that a shell loop starts at every iteration.
const flagGroupsKey = "grind.flagGroups"

// helpTemplate is urfave/cli's, its options in FlagGroups (TestHelpGroups
// fails if a new urfave/cli's template no longer has the part replaced).
var helpTemplate = strings.Replace(cli.AppHelpTemplate,
	`{{if .VisibleFlagCategories}}

GLOBAL OPTIONS:{{template "visibleFlagCategoryTemplate" .}}{{else if .VisibleFlags}}

GLOBAL OPTIONS:{{template "visibleFlagTemplate" .}}{{end}}`,
	`{{with call (index .Metadata "`+flagGroupsKey+`")}}

OPTIONS:{{range $i, $g := .}}{{if $i}}
{{end}}{{if $g.Name}}
   {{$g.Name}}:{{end}}{{range $g.Flags}}
   {{wrap .String 6}}{{end}}{{end}}{{end}}`, 1)

// groupFlagsInHelp makes app's --help show its flags in FlagGroups.
func groupFlagsInHelp(app *cli.App) {
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	app.Metadata[flagGroupsKey] = func() []FlagGroup { return FlagGroups(app) }
	app.CustomAppHelpTemplate = helpTemplate
}

// Prepared is the named program's app with the flags Run gives every
// program (--help, --version), for its documentation (internal/gendocs:
// man pages and shell completions); nil when there is no such program.
func Prepared(name string) *cli.App {
	app := App(name)
	if app != nil {
		app.Name = name
		addHelpAndVersion(app)
	}
	return app
}
