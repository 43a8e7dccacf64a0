package commands

import (
	"testing"

	"github.com/grind-nlp/grind/internal/clitest"
)

// TestCLI runs the command-line cases in testdata/cli (see clitest.Cases
// for their format).
func TestCLI(t *testing.T) { clitest.Cases(t, "testdata/cli/*.txt", Run) }
