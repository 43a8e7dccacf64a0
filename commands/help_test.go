package commands

import (
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/urfave/cli/v2"
)

// Every flag that takes a value names what it takes in the help (a
// `PLACEHOLDER` in its usage), instead of urfave/cli's "value".
func TestFlagPlaceholders(t *testing.T) {
	for _, name := range program.Names() {
		for _, f := range program.App(name).Flags {
			d, ok := f.(cli.DocGenerationFlag)
			if !ok || !d.TakesValue() {
				continue
			}
			if u := f.(interface{ GetUsage() string }).GetUsage(); strings.Count(u, "`") < 2 {
				t.Errorf("%s --%s: no placeholder in %q", name, f.Names()[0], u)
			}
		}
	}
}

// Every flag that names a file is known to the check of a run's files
// (program.CheckFiles): an output by its name, an input by TakesFile.
func TestFileFlagsChecked(t *testing.T) {
	for _, name := range program.Names() {
		for _, f := range program.App(name).Flags {
			var usage string
			var takesFile bool
			switch f := f.(type) {
			case *cli.StringFlag:
				usage, takesFile = f.Usage, f.TakesFile
			case *cli.StringSliceFlag:
				usage, takesFile = f.Usage, f.TakesFile
			default:
				continue
			}
			_, rest, _ := strings.Cut(usage, "`")
			placeholder, _, _ := strings.Cut(rest, "`")
			switch placeholder {
			case "FILE", "CORPUS", "MODEL":
				if flag := f.Names()[0]; !takesFile && !program.IsOutputFlag(flag) {
					t.Errorf("%s --%s names a file, but is neither an input (TakesFile) nor an output", name, flag)
				}
			}
		}
	}
}
