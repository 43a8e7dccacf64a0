package commands

import (
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/internal/clitest"
)

// TestSignalChild is the program TestSignalLeavesNoTemporaryFile
// interrupts, run as its main function runs it.
func TestSignalChild(t *testing.T) { clitest.RunChild(t, clitest.MainRunner(program.Main)) }

// signalInput is what an interrupted program reads before it waits for
// more: a sentence every program here takes.
const signalInput = `{"tags":["DT","NN"],"words":["the","dog"],"heads":[2,0],"pred":[2,0]}` + "\n"

// SIGINT and SIGTERM in the middle of a run leave none of its outputs
// behind — -o, --log, --save-model, --best, each still a temporary file —
// and the program exits with the shell's codes for them. Each program
// waits on its stdin, which stays open, once it has made its outputs:
// they are all made before the run starts.
func TestSignalLeavesNoTemporaryFile(t *testing.T) {
	in := t.TempDir() // the inputs; the outputs go to a folder of their own
	corpus := sampledCorpus(t, in, 40)
	dmvModel := writeTemp(t, in, "dmv.jsonl", run(t, nil, "train-em", "-q", "--max-iter", "2", corpus))
	treebank, _ := filepath.Glob("../examples/treebank/*.mrg")
	words := writeTemp(t, in, "words.jsonl", run(t, nil, append([]string{"ptb2deps", "--keep-punct"}, treebank...)...))
	hmmModel := filepath.Join(in, "hmm.jsonl")
	run(t, nil, "train-hmm", "-q", "--states", "3", "--max-iter", "2", "--save-model", hmmModel, words, "-o", "/dev/null")
	for _, tc := range []struct {
		made int // outputs made before it reads stdin
		args []string
	}{
		{1, []string{"filterlen", "10", "-o", "OUT/f.jsonl"}},
		{1, []string{"estep", "-m", dmvModel, "-o", "OUT/c.jsonl"}},
		{2, []string{"train-em", "--log", "OUT/em.log", "-o", "OUT/m.jsonl"}},
		{2, []string{"train-sa", "--delta0", "-0.5", "--log", "OUT/sa.log", "-o", "OUT/m.jsonl"}},
		{3, []string{"train-ccm", "--log", "OUT/ccm.log", "--save-model", "OUT/ccm.jsonl", "-o", "OUT/s.jsonl"}},
		{3, []string{"train-ccm", "--model", "dmvccm", "--log", "OUT/dc.log", "--save-model", "OUT/dc.jsonl", "-o", "OUT/s.jsonl"}},
		{3, []string{"train-hmm", "--log", "OUT/hmm.log", "--save-model", "OUT/hmm.jsonl", "-o", "OUT/s.jsonl"}},
		{3, []string{"train-hmm", "--trigram", "--log", "OUT/hmm.log", "--save-model", "OUT/hmm.jsonl", "-o", "OUT/s.jsonl"}},
		{2, []string{"select-model", "--dev", "-", dmvModel, "--best", "OUT/best.jsonl", "-o", "OUT/table.txt"}},
		{1, []string{"tag", "-m", hmmModel, "-o", "OUT/t.jsonl"}},
	} {
		clitest.Signals(t, "TestSignalChild", []byte(signalInput), tc.made, tc.args...)
	}
}
