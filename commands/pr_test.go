package commands

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/stages/score"
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
	km := []string{"--init", "km"}
	evg := []string{"--init", "uniform", "--child-valence", "2"} // from km, λ 0, EVG is the DMV
	for _, c := range []struct{ start, flags []string }{
		{km, []string{"--rules", rules, "--rule-share", "0.9"}},
		{km, []string{"--rules", rules, "--rule-share", "0.9", "--dual-rule", "interleaved"}},
		{km, []string{"--sparsity", "4"}},
		{km, []string{"--sparsity", "4", "--dual-rule", "interleaved"}},
		{km, []string{"--sparsity", "4", "--dual-rule", "exact"}},
		{km, []string{"--sparsity", "4", "--dual-gap", "0.01"}},
		{km, []string{"--sparsity", "2", "--sparsity-grouped", "--sparsity-root", "--sparsity-direction"}},
		{km, []string{"--sparsity", "2", "--sparsity-grouped", "--sparsity-root", "--sparsity-direction", "--dual-rule", "interleaved"}},
		{evg, []string{"--rules", rules, "--rule-share", "0.9"}},
		{evg, []string{"--sparsity", "4"}},
	} {
		flags := c.flags
		dual := filepath.Join(dir, "dual.json")
		os.Remove(dual)
		model := run(t, nil, append(append([]string{"dmv-init"}, c.start...), corpus)...)
		for i := 0; i < 6; i++ {
			args := append([]string{"estep", "--dual", dual, "-m", writeTemp(t, dir, "model.jsonl", model)}, flags...)
			counts := run(t, nil, append(args, corpus)...)
			model = run(t, counts, "mstep")
		}
		trained := run(t, nil, append(append(append([]string{"train-em", "--max-iter", "6", "--tol", "0", "-q", "--workers", "3"}, c.start...), flags...), corpus)...)
		if !bytes.Equal(model, trained) {
			t.Errorf("%v %v: 6 iterations of estep --dual | mstep differ from train-em --max-iter 6", c.start, flags)
		}
		// Without the state file every E-step starts its dual from 0: a
		// different (colder) sequence of projections.
		cold := run(t, nil, append(append([]string{"dmv-init"}, c.start...), corpus)...)
		for i := 0; i < 6; i++ {
			args := append([]string{"estep", "-m", writeTemp(t, dir, "model.jsonl", cold)}, flags...)
			cold = run(t, run(t, nil, append(args, corpus)...), "mstep")
		}
		if bytes.Equal(cold, trained) && flags[0] == "--sparsity" {
			t.Errorf("%v: the loop without --dual equals the trainer: is the dual carried at all?", flags)
		}
	}
}

// A table train-em --print-rules writes is the table: trained with the
// file it prints, a run writes the model the table's name gives.
func TestPrintedRulesTrainAsTheirName(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 200)
	printed := writeTemp(t, dir, "ptb.rules", run(t, nil, "train-em", "--rules", "ptb", "--print-rules"))
	train := func(rules string) []byte {
		return run(t, nil, "train-em", "--rules", rules, "--max-iter", "4", "--tol", "0", "-q", corpus)
	}
	if !bytes.Equal(train("ptb"), train(printed)) {
		t.Error("train-em --rules FILE, FILE printed by --rules ptb --print-rules, differs from --rules ptb")
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
	if code != 1 || !bytes.Contains(errs.Bytes(), []byte(dual+`: the dual of "sparsity sigma=3", not of this run's "sparsity sigma=4"`)) {
		t.Errorf("exit %d, stderr %q", code, errs.String())
	}
}

// pr-toolkit's rows of issue 20 on the PTB sample's Yamada–Matsumoto
// conversion ≤ 10 (555 sentences; its K&M start, 100 iterations, Viterbi
// decoding, root counted): EM 46.5 / 63.6 and posterior sparsity at σ = 10
// 46.2 / 63.9. From km-prtoolkit grind's EM and exact-rule PR give them
// within 0.3 points (σ = 140's collapse, 23.3 / 43.7, is a knife-edge that
// rounding moves by points under --dual-tol, so it is not held here), and
// train-em's default for --sparsity (the gap rule at 3e-2) within the
// issue's 1.5.
func TestPRToolkitRowsFromItsStart(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testenv.SharedData(t, "ptb-sample-deps-ym"), "*.dp"))
	sort.Strings(files)
	corpus := runProgram(t, runProgram(t, nil, append([]string{"conll2deps", "--quiet"}, files...)...), "filterlen", "10")
	path := writeTemp(t, t.TempDir(), "c.jsonl", corpus)
	for _, row := range []struct {
		flags                 []string
		dir, undirected, with float64
	}{
		{nil, 46.5, 63.6, 0.3},
		{[]string{"--sparsity", "10", "--dual-rule", "exact"}, 46.2, 63.9, 0.3},
		{[]string{"--sparsity", "10"}, 46.2, 63.9, 1.5},
	} {
		args := append([]string{"train-em", "--init", "km-prtoolkit", "--tol", "0", "--max-iter", "100", "-q", path}, row.flags...)
		model := writeTemp(t, t.TempDir(), "m.jsonl", runProgram(t, nil, args...))
		var r score.Report
		if err := format.Unmarshal(runProgram(t, runProgram(t, corpus, "decode", "-q", "-m", model), "score", "--json"), &r); err != nil {
			t.Fatal(err)
		}
		if math.Abs(100*r.Directed-row.dir) > row.with || math.Abs(100*r.Undirected-row.undirected) > row.with {
			t.Errorf("%v: %.1f / %.1f, pr-toolkit %.1f / %.1f", row.flags, 100*r.Directed, 100*r.Undirected, row.dir, row.undirected)
		}
	}
}
