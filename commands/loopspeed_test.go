package commands

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/internal/testenv"
)

// loopFiles writes UD English ≤10 (XPOS), its K&M start model and that
// model's counts into a temporary directory: the files one step of the
// shell loop reads.
func loopFiles(b *testing.B) (corpus, model, counts string) {
	b.Helper()
	src := testenv.SharedData(b, "ud-nopunct", "en-ud-train-nopunct-len15.conllu")
	dir := b.TempDir()
	corpus, model, counts = filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "n.jsonl")
	var conv bytes.Buffer
	runOK(b, []string{"conll2deps", "--tag", "xpos", src}, nil, &conv)
	var c bytes.Buffer
	runOK(b, []string{"filterlen", "10"}, &conv, &c)
	write(b, corpus, c.Bytes())
	var m bytes.Buffer
	runOK(b, []string{"dmv-init", "--init", "km", corpus}, nil, &m)
	write(b, model, m.Bytes())
	var n bytes.Buffer
	runOK(b, []string{"estep", "-m", model, corpus}, nil, &n)
	write(b, counts, n.Bytes())
	return corpus, model, counts
}

func runOK(b *testing.B, args []string, stdin io.Reader, stdout io.Writer) {
	b.Helper()
	if stdin == nil {
		stdin = bytes.NewReader(nil)
	}
	var stderr bytes.Buffer
	if code := program.Run(args[0], args, stdin, stdout, &stderr); code != 0 {
		b.Fatalf("%v: exit %d: %s", args, code, stderr.String())
	}
}

func write(b *testing.B, path string, data []byte) {
	b.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkEStepProgram is estep as the shell loop runs it, in process
// (no process start): read the model and UD English ≤10, one E-step,
// write the counts.
func BenchmarkEStepProgram(b *testing.B) {
	corpus, model, _ := loopFiles(b)
	b.ResetTimer()
	for b.Loop() {
		runOK(b, []string{"estep", "-q", "-m", model, corpus}, nil, io.Discard)
	}
}

// BenchmarkMStepProgram is mstep as the shell loop runs it, in process:
// read one E-step's counts, write the next model.
func BenchmarkMStepProgram(b *testing.B) {
	_, _, counts := loopFiles(b)
	b.ResetTimer()
	for b.Loop() {
		runOK(b, []string{"mstep", "-q", counts}, nil, io.Discard)
	}
}
