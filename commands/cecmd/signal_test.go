package cecmd

import (
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/internal/clitest"
)

// TestSignalChild is the program TestSignalLeavesNoTemporaryFile
// interrupts, run as its main function runs it.
func TestSignalChild(t *testing.T) { clitest.RunChild(t, clitest.MainRunner(program.Main)) }

// SIGINT and SIGTERM while train-ce reads its corpus leave neither its
// -o nor its --log, both made before the run starts.
func TestSignalLeavesNoTemporaryFile(t *testing.T) {
	clitest.Signals(t, "TestSignalChild", []byte(`{"tags":["DT","NN"]}`+"\n"), 2, "train-ce", "--log", "OUT/ce.log", "-o", "OUT/m.jsonl")
}
