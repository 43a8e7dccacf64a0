package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
)

// prCorpus is sampledCorpus's tags with universal rules over them.
const prRules = `ROOT VB
VB NN
VB RB
NN JJ
NN DT
IN NN
`

// The shell loop "estep --rules|--sparsity --dual D -m M | mstep > M" and
// train-em with the same flag give the same model, byte for byte: the
// projections carry their dual through the file as the trainer keeps it
// in memory.
func TestShellLoopEqualsTrainEMWithPR(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	rules := writeTemp(t, dir, "rules.txt", []byte(prRules))
	for _, flags := range [][]string{
		{"--rules", rules, "--rule-share", "0.9"},
		{"--rules", rules, "--rule-share", "0.9", "--dual-rule", "interleaved"},
		{"--sparsity", "4"},
		{"--sparsity", "4", "--dual-rule", "exact"},
		{"--sparsity", "2", "--sparsity-grouped", "--sparsity-root", "--sparsity-direction"},
	} {
		dual := filepath.Join(dir, "dual.json")
		os.Remove(dual)
		model := run(t, nil, "dmv-init", "--init", "km", corpus)
		for i := 0; i < 6; i++ {
			args := append([]string{"estep", "--dual", dual, "-m", writeTemp(t, dir, "model.jsonl", model)}, flags...)
			counts := run(t, nil, append(args, corpus)...)
			model = run(t, counts, "mstep")
		}
		trained := run(t, nil, append(append([]string{"train-em", "--max-iter", "6", "--tol", "0", "-q", "--workers", "3"}, flags...), corpus)...)
		if !bytes.Equal(model, trained) {
			t.Errorf("%v: 6 iterations of estep --dual | mstep differ from train-em --max-iter 6", flags)
		}
		// Without the state file every E-step starts its dual from 0: a
		// different (colder) sequence of projections.
		cold := run(t, nil, "dmv-init", "--init", "km", corpus)
		for i := 0; i < 6; i++ {
			args := append([]string{"estep", "-m", writeTemp(t, dir, "model.jsonl", cold)}, flags...)
			cold = run(t, run(t, nil, append(args, corpus)...), "mstep")
		}
		if bytes.Equal(cold, trained) && flags[0] == "--sparsity" {
			t.Errorf("%v: the loop without --dual equals the trainer: is the dual carried at all?", flags)
		}
	}
}

// A dual state file of another constraint or corpus is refused, naming
// the file.
func TestEStepRefusesAnotherDual(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 50)
	model := writeTemp(t, dir, "model.jsonl", run(t, nil, "dmv-init", corpus))
	dual := filepath.Join(dir, "dual.json")
	run(t, nil, "estep", "--sparsity", "3", "--dual", dual, "-m", model, corpus)
	var out, errs bytes.Buffer
	args := []string{"estep", "--sparsity", "4", "--dual", dual, "-m", model, corpus}
	code := program.Run(args[0], args, nil, &out, &errs)
	if code != 1 || !bytes.Contains(errs.Bytes(), []byte(dual+`: the dual of "sparsity sigma=3 interleaved", not of this run's "sparsity sigma=4 interleaved"`)) {
		t.Errorf("exit %d, stderr %q", code, errs.String())
	}
}
