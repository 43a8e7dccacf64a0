package commands

import (
	"bytes"
	"regexp"
	"slices"
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

// --help shows every flag once, in groups: the program's own flags
// without a category, its categories, then the groups many programs
// share (input and output, run directory, resources) and help last.
// train-em's flags are grouped by estimator.
func TestHelpGroups(t *testing.T) {
	shared := []string{program.InputOutput, program.RunDirectory, program.Resources, program.HelpVersion}
	for _, name := range program.Names() {
		var help bytes.Buffer
		if code := program.Run(name, []string{name, "--help"}, nil, &help, &bytes.Buffer{}); code != 0 {
			t.Fatalf("%s --help: exit %d", name, code)
		}
		app := program.App(name)
		groups := program.FlagGroups(app)
		seen := map[string]int{}
		last := -1
		for i, g := range groups {
			for _, f := range g.Flags {
				seen[f.Names()[0]]++
			}
			if g.Name == "" && i > 0 {
				t.Errorf("%s: the flags without a category are group %d, not the first", name, i+1)
			}
			if at := slices.Index(shared, g.Name); at >= 0 {
				if at < last {
					t.Errorf("%s: %q after %q", name, g.Name, shared[last])
				}
				last = at
			} else if last >= 0 {
				t.Errorf("%s: the program's own group %q after the shared %q", name, g.Name, shared[last])
			}
			if g.Name != "" && !strings.Contains(help.String(), "\n   "+g.Name+":\n") {
				t.Errorf("%s --help: no heading %q", name, g.Name)
			}
		}
		for _, f := range app.VisibleFlags() {
			if seen[f.Names()[0]] != 1 {
				t.Errorf("%s --%s: in %d groups", name, f.Names()[0], seen[f.Names()[0]])
			}
		}
	}
	var help bytes.Buffer
	program.Run("train-em", []string{"train-em", "--help"}, nil, &help, &bytes.Buffer{})
	for _, group := range []string{
		"   EM, MAP/EM, Viterbi EM (--estimator em):\n   --lambda λ ",
		"   Variational Bayes (--estimator vb):\n   --alpha α ",
		"   Posterior regularization (--rules, --sparsity):\n   --rules NAME ",
	} {
		if !strings.Contains(help.String(), group) {
			t.Errorf("train-em --help has no group %q", group)
		}
	}
}

// The default --help shows is the one the program uses: a flag whose
// usage speaks of its default says it in its DefaultText, which the help
// shows, instead of urfave/cli's "(default: 0)" for a placeholder.
func TestHelpDefaults(t *testing.T) {
	speaks := regexp.MustCompile(`\(default[ :]|; default |\bdefault \d`)
	for _, name := range program.Names() {
		for _, f := range program.App(name).Flags {
			d, ok := f.(cli.DocGenerationFlag)
			if !ok {
				continue
			}
			if u := f.(interface{ GetUsage() string }).GetUsage(); speaks.MatchString(u) {
				t.Errorf("%s --%s: the usage says its default (%q); say it in DefaultText, which --help shows as (default: …) (now %s)", name, f.Names()[0], u, d.GetDefaultText())
			}
		}
	}
	var help bytes.Buffer
	program.Run("train-em", []string{"train-em", "--help"}, nil, &help, &bytes.Buffer{})
	if !strings.Contains(help.String(), "(default: 1e-5; 2^-20 with --hard or --stop bits)") {
		t.Error("train-em --help does not show --tol's real default")
	}
}
