package commands

import (
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/internal/clitest"
)

// TestCLI runs the command-line cases in testdata/cli (see clitest.Cases
// for their format).
func TestCLI(t *testing.T) { clitest.Cases(t, "testdata/cli/*.txt", program.Run) }

// internal-panic is a program that panics, to test that a panic reaches
// no user as a Go stack dump.
func init() {
	program.Register("internal-panic", func() *cli.App {
		return &cli.App{Action: func(*cli.Context) error { panic("boom") }}
	})
}
