package plotcmd

import (
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/internal/clitest"
)

// TestCLI runs plotcurve's command-line cases.
func TestCLI(t *testing.T) { clitest.Cases(t, "testdata/cli/*.txt", program.Run) }
