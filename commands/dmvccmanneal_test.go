package commands

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// train-ccm --model dmvccm --estimator da|sda is the shell loop of
// estep --beta β [--skew M₀] | mstep, stage by stage, byte for byte: its
// E-step is the family's tempered one (both halves' probabilities raised
// to β, times the start pair's to 1 − β under SDA), its M-steps each
// half's own (footnote 8's decisions tempered as the DMV's). Under every
// order. Two iterations at β = 0.5, two at β = 1.
func TestDMVCCMAnnealingIsTheShellLoop(t *testing.T) {
	dir := t.TempDir()
	treebank, _ := filepath.Glob("../examples/treebank/*.mrg")
	corpus := writeTemp(t, dir, "c.jsonl", run(t, nil, "filterlen", "10", writeTemp(t, dir, "all.jsonl", run(t, nil, append([]string{"ptb2deps"}, treebank...)...))))
	for _, tc := range []struct {
		est   string
		extra []string
	}{{"da", nil}, {"sda", nil}, {"sda", []string{"--right-first"}},
		{"da", []string{"--order", "mixture"}}, {"sda", []string{"--order", "mixture"}},
		{"da", []string{"--order", "footnote8"}}, {"sda", []string{"--order", "footnote8"}}} {
		name := tc.est + strings.Join(tc.extra, "")
		args := append([]string{"train-ccm", "-q", "--model", "dmvccm"}, tc.extra...)
		start := filepath.Join(dir, name+"-0.jsonl")
		run(t, nil, append(append([]string{}, args...), "--max-iter", "0", "--save-model", start, corpus)...)
		trained := filepath.Join(dir, name+"-trained.jsonl")
		run(t, nil, append(append([]string{}, args...), "--estimator", tc.est, "--beta0", "0.5", "--gamma", "2", "--tol", "1e-300",
			"--max-iter", "2", "--save-model", trained, corpus)...)
		m := start
		for i, beta := range []string{"0.5", "0.5", "1", "1"} {
			e := []string{"estep", "-m", m, "--beta", beta}
			if tc.est == "sda" {
				e = append(e, "--skew", start)
			}
			m = writeTemp(t, dir, fmt.Sprintf("%s-%d.jsonl", name, i+1), run(t, run(t, nil, append(e, corpus)...), "mstep"))
		}
		if !bytes.Equal(readFile(t, m), readFile(t, trained)) {
			t.Errorf("%s %v: train-ccm's model differs from the shell loop's", tc.est, tc.extra)
		}
	}
}

// train-ccm --estimator sda is the shell loop estep --beta β --split-skew
// | mstep (Smith & Eisner's random-split skew, the default) or estep --beta
// β --skew START | mstep (--skew start), stage by stage, byte for byte,
// for ccm and ccm2. Two iterations at β = 0.5, two at β = 1.
func TestCCMSkewedDAIsTheShellLoop(t *testing.T) {
	dir := t.TempDir()
	treebank, _ := filepath.Glob("../examples/treebank/*.mrg")
	corpus := writeTemp(t, dir, "c.jsonl", run(t, nil, "filterlen", "10", writeTemp(t, dir, "all.jsonl", run(t, nil, append([]string{"ptb2deps"}, treebank...)...))))
	for _, model := range []string{"ccm", "ccm2"} {
		for _, skew := range []string{"split", "start"} {
			name := model + "-" + skew
			start := filepath.Join(dir, name+"-0.jsonl")
			run(t, nil, "train-ccm", "-q", "--model", model, "--max-iter", "0", "--save-model", start, corpus)
			trained := filepath.Join(dir, name+"-trained.jsonl")
			args := []string{"train-ccm", "-q", "--model", model, "--estimator", "sda", "--beta0", "0.5", "--gamma", "2", "--tol", "1e-300",
				"--max-iter", "2", "--save-model", trained, corpus}
			if skew == "start" {
				args = append(args, "--skew", "start")
			}
			run(t, nil, args...)
			m := start
			for i, beta := range []string{"0.5", "0.5", "1", "1"} {
				e := []string{"estep", "-m", m, "--beta", beta}
				if skew == "split" {
					e = append(e, "--split-skew")
				} else {
					e = append(e, "--skew", start)
				}
				m = writeTemp(t, dir, fmt.Sprintf("%s-%d.jsonl", name, i+1), run(t, run(t, nil, append(e, corpus)...), "mstep"))
			}
			if !bytes.Equal(readFile(t, m), readFile(t, trained)) {
				t.Errorf("%s: train-ccm --estimator sda's model differs from the shell loop's", name)
			}
		}
	}
}
