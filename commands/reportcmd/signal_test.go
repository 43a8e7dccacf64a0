package reportcmd

import (
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/internal/clitest"
)

// TestSignalChild is the program TestSignalLeavesNoTemporaryFile
// interrupts, run as its main function runs it.
func TestSignalChild(t *testing.T) { clitest.RunChild(t, clitest.MainRunner(program.Main)) }

// SIGINT and SIGTERM while report reads a run leave no page: it is made
// before the runs are read.
func TestSignalLeavesNoTemporaryFile(t *testing.T) {
	clitest.Signals(t, "TestSignalChild", []byte(`{"tags":["DT","NN"],"heads":[2,0],"pred":[2,0]}`+"\n"), 1, "report", "--run", "a=-", "-o", "OUT/page.html")
}
