package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// shellLoop runs "estep FLAGS -m M | mstep MSTEP" iters times from model.
func shellLoop(t *testing.T, dir, corpus string, model []byte, iters int, estepFlags, mstepFlags []string) []byte {
	t.Helper()
	for i := 0; i < iters; i++ {
		args := append([]string{"estep", "-m", writeTemp(t, dir, "model.jsonl", model)}, estepFlags...)
		counts := run(t, nil, append(args, corpus)...)
		model = run(t, counts, append([]string{"mstep"}, mstepFlags...)...)
	}
	return model
}

// train-da equals its stages written as shell loops of estep --beta
// [--skew] | mstep, byte for byte.
func TestShellLoopEqualsTrainDA(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	// The initializer's M-step smooths with the run's λ.
	init := run(t, nil, "dmv-init", "--init", "km", "--lambda", "0.1", corpus)
	skew := writeTemp(t, dir, "init.jsonl", init)
	model := init
	for _, beta := range []string{"0.25", "0.5", "1"} {
		model = shellLoop(t, dir, corpus, model, 3, []string{"--beta", beta, "--skew", skew}, []string{"--lambda", "0.1"})
	}
	trained := run(t, nil, "train-da", "--init", "km", "--skew", "--beta0", "0.25", "--gamma", "2",
		"--lambda", "0.1", "--max-iter", "3", "--tol", "1e-300", "-q", corpus)
	if !bytes.Equal(model, trained) {
		t.Fatal("stages of estep --beta --skew | mstep differ from train-da")
	}
}

// train-da --below-one is the full run without its β = 1 stage: the
// model of the stage before it, and the shell loop of its stages.
func TestTrainDABelowOne(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	saves := filepath.Join(dir, "stages")
	args := []string{"--init", "km", "--skew", "--beta0", "0.3", "--gamma", "2", "--max-iter", "3", "--tol", "1e-300", "-q"}
	run(t, nil, append(append([]string{"train-da", "--save-dir", saves}, args...), corpus)...)
	below := run(t, nil, append(append([]string{"train-da", "--below-one"}, args...), corpus)...)
	saved, err := os.ReadFile(filepath.Join(saves, "stage-02-beta0.6.jsonl"))
	if err != nil || !bytes.Equal(saved, below) {
		t.Fatalf("train-da --below-one differs from the full run's stage β = 0.6 (%v)", err)
	}
	init := run(t, nil, "dmv-init", "--init", "km", corpus)
	skew := writeTemp(t, dir, "init.jsonl", init)
	model := init
	for _, beta := range []string{"0.3", "0.6"} {
		model = shellLoop(t, dir, corpus, model, 3, []string{"--beta", beta, "--skew", skew}, nil)
	}
	if !bytes.Equal(model, below) {
		t.Fatal("train-da --below-one differs from the shell loop of stages β = 0.3, 0.6")
	}
}

// zeroWeights is θ⁽⁰⁾ of zero as a file: the log-linear model whose
// weights are all 0 (potentials 1), over the events of model.
func zeroWeights(model []byte) []byte {
	w := regexp.MustCompile(`"p":[^,}]*`).ReplaceAll(model, []byte(`"w":0`))
	return bytes.Replace(w, []byte(`"unit":"p"`), []byte(`"unit":"w"`), 1)
}

// train-sa equals its epochs written as shell loops of estep --delta (or
// --seg-beta) | mstep, and saves each epoch's model under a name that
// says its value. From zero, the first E-step runs on θ⁽⁰⁾ = all weights
// 1 under the bias.
func TestShellLoopEqualsTrainSA(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	init := zeroWeights(run(t, nil, "dmv-init", "--init", "zero", corpus))
	model := init
	saves := filepath.Join(dir, "epochs")
	for _, delta := range []string{"-0.4", "-0.2", "0"} {
		model = shellLoop(t, dir, corpus, model, 2, []string{"--delta", delta}, []string{"--lambda", "10"})
		name := "epoch-0" + map[string]string{"-0.4": "1-delta-0.400", "-0.2": "2-delta-0.200", "0": "3-delta+0.000"}[delta] + ".jsonl"
		want := model
		defer func() {
			saved, err := os.ReadFile(filepath.Join(saves, name))
			if err != nil || !bytes.Equal(saved, want) {
				t.Errorf("%s: saved model differs from the shell loop's (%v)", name, err)
			}
		}()
	}
	trained := run(t, nil, "train-sa", "--init", "zero", "--lambda", "10", "--delta0", "-0.4", "--delta-step", "0.2",
		"--delta-final", "0", "--max-iter", "2", "--tol", "1e-300", "--save-dir", saves, "-q", corpus)
	if !bytes.Equal(model, trained) {
		t.Fatal("epochs of estep --delta | mstep differ from train-sa")
	}

	model = init
	for _, beta := range []string{"0.5", "0", "-0.5"} {
		model = shellLoop(t, dir, corpus, model, 2, []string{"--seg-beta", beta}, nil)
	}
	trained = run(t, nil, "train-sa", "--init", "zero", "--seg-beta0", "0.5", "--seg-beta-step", "-0.5",
		"--seg-beta-final", "-0.5", "--max-iter", "2", "--tol", "1e-300", "-q", corpus)
	if !bytes.Equal(model, trained) {
		t.Fatal("epochs of estep --seg-beta | mstep differ from train-sa")
	}
}

// Zero is θ⁽⁰⁾ = all weights 1 (DESIGN.md §5.2), and the skew of SDA is
// θ⁽⁰⁾: SDA from zero is DA from zero, byte for byte.
func TestSDAFromZeroIsDA(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	args := []string{"--init", "zero", "--beta0", "0.1", "--gamma", "2", "--lambda", "0.5", "--max-iter", "4", "-q", corpus}
	da := run(t, nil, append([]string{"train-da"}, args...)...)
	sda := run(t, nil, append([]string{"train-da", "--skew"}, args...)...)
	if !bytes.Equal(da, sda) {
		t.Fatal("train-da --init zero --skew differs from train-da --init zero")
	}
	// Not so from km, whose θ⁽⁰⁾ is a model of its own.
	args[1] = "km"
	if bytes.Equal(run(t, nil, append([]string{"train-da"}, args...)...), run(t, nil, append([]string{"train-da", "--skew"}, args...)...)) {
		t.Fatal("SDA from km equals DA from km: the skew is not used")
	}
}

// Model L's first E-step from zero is the biased E-step over all-ones
// weights — not over the model of an unbiased first E-step (what dmv-init
// --init zero writes).
func TestModelLFirstEStepFromZero(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	zero := run(t, nil, "dmv-init", "--init", "zero", corpus)
	ones := writeTemp(t, dir, "ones.jsonl", zeroWeights(zero))
	want := run(t, run(t, nil, "estep", "--delta", "-0.4", "-m", ones, corpus), "mstep", "--lambda", "1")
	got := run(t, nil, "train-sa", "--init", "zero", "--lambda", "1", "--delta0", "-0.4", "--delta-final", "-0.4",
		"--max-iter", "1", "-q", corpus)
	if !bytes.Equal(got, want) {
		t.Fatal("train-sa --init zero, one iteration, differs from the biased E-step over all-ones weights")
	}
	unbiased := writeTemp(t, dir, "zero.jsonl", zero)
	if bytes.Equal(got, run(t, run(t, nil, "estep", "--delta", "-0.4", "-m", unbiased, corpus), "mstep", "--lambda", "1")) {
		t.Fatal("the biased first E-step equals one from the unbiased zero model")
	}
}
