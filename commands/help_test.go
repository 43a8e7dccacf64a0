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
