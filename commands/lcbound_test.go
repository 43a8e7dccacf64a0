package commands

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/commands/program"
)

// Under the left-corner depth bound the shell loops equal the trainers
// byte for byte: train-em (and --hard), train-da --skew and train-sa's
// Model L, each with --max-depth and --max-chunk on every estep.
func TestShellLoopEqualsTrainersBounded(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	bound := []string{"--max-depth", "1", "--max-chunk", "2"}
	init := run(t, nil, "dmv-init", "--init", "km", corpus)
	model := shellLoop(t, dir, corpus, init, 5, bound, nil)
	trained := run(t, nil, append(append([]string{"train-em", "--init", "km", "--max-iter", "5", "-q"}, bound...), corpus)...)
	if !bytes.Equal(model, trained) {
		t.Fatal("estep --max-depth 1 --max-chunk 2 | mstep differs from train-em with the same bound")
	}
	plain := run(t, nil, "train-em", "--init", "km", "--max-iter", "5", "-q", corpus)
	if bytes.Equal(plain, trained) {
		t.Fatal("the bound changed nothing")
	}

	uniform := run(t, nil, "dmv-init", "--init", "uniform", corpus)
	hard := shellLoop(t, dir, corpus, uniform, 3, []string{"--hard", "--max-depth", "2"}, []string{"--lambda", "1"})
	trained = run(t, nil, "train-em", "--init", "uniform", "--hard", "--lambda", "1", "--max-iter", "3", "--max-depth", "2", "-q", corpus)
	if !bytes.Equal(hard, trained) {
		t.Fatal("estep --hard --max-depth 2 | mstep --lambda 1 differs from train-em --hard --max-depth 2")
	}

	skew := writeTemp(t, dir, "init.jsonl", init)
	model = init
	for _, beta := range []string{"0.5", "1"} {
		model = shellLoop(t, dir, corpus, model, 2, append([]string{"--beta", beta, "--skew", skew}, bound...), nil)
	}
	trained = run(t, nil, append(append([]string{"train-da", "--init", "km", "--skew", "--beta0", "0.5", "--gamma", "2",
		"--max-iter", "2", "--tol", "1e-300", "-q"}, bound...), corpus)...)
	if !bytes.Equal(model, trained) {
		t.Fatal("stages of estep --beta --skew --max-depth | mstep differ from train-da --max-depth")
	}

	model = init
	for _, delta := range []string{"-0.4", "0"} {
		model = shellLoop(t, dir, corpus, model, 2, append([]string{"--delta", delta}, bound...), nil)
	}
	trained = run(t, nil, append(append([]string{"train-sa", "--init", "km", "--delta0", "-0.4", "--delta-step", "0.4",
		"--delta-final", "0", "--max-iter", "2", "--tol", "1e-300", "-q"}, bound...), corpus)...)
	if !bytes.Equal(model, trained) {
		t.Fatal("epochs of estep --delta --max-depth | mstep differ from train-sa --max-depth")
	}
}

// The bounded E-step and train-em give the same bytes for any --workers;
// shards of a bounded E-step merge to the whole's counts (1e-9), and do
// not merge with shards of another bound.
func TestBoundedWorkersAndShards(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 400)
	model := writeTemp(t, dir, "model.jsonl", run(t, nil, "dmv-init", "--init", "km", corpus))
	one := run(t, nil, "estep", "--max-depth", "2", "--workers", "1", "-m", model, corpus)
	for _, w := range []string{"2", "5"} {
		if !bytes.Equal(one, run(t, nil, "estep", "--max-depth", "2", "--workers", w, "-m", model, corpus)) {
			t.Fatalf("estep --max-depth 2 --workers %s differs from --workers 1", w)
		}
	}
	a := run(t, nil, "train-em", "--max-depth", "1", "--max-chunk", "3", "--max-iter", "4", "--workers", "1", "-q", corpus)
	b := run(t, nil, "train-em", "--max-depth", "1", "--max-chunk", "3", "--max-iter", "4", "--workers", "3", "-q", corpus)
	if !bytes.Equal(a, b) {
		t.Fatal("train-em --max-depth 1 --max-chunk 3: --workers 3 differs from --workers 1")
	}

	data, _ := os.ReadFile(corpus)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	var shards []string
	for k := 0; k < len(lines); k += 150 {
		in := writeTemp(t, dir, fmt.Sprintf("in%d.jsonl", k), []byte(strings.Join(lines[k:min(len(lines), k+150)], "")))
		shards = append(shards, writeTemp(t, dir, fmt.Sprintf("c%d.jsonl", k), run(t, nil, "estep", "--max-depth", "2", "-m", model, in)))
	}
	whole, merged := readTable(t, one), readTable(t, run(t, nil, append([]string{"sumcounts"}, shards...)...))
	if whole.Stats.Sentences != merged.Stats.Sentences || rel(whole.Stats.Loglik, merged.Stats.Loglik) > 1e-9 {
		t.Fatalf("stats: whole %+v, merged %+v", whole.Stats, merged.Stats)
	}
	wt, mt := whole.Params.Tables(), merged.Params.Tables()
	for k := range wt {
		for i := range wt[k] {
			if math.Abs(wt[k][i]-mt[k][i]) > 1e-9*math.Max(1, math.Abs(wt[k][i])) {
				t.Fatalf("table %d entry %d: whole %v, merged %v", k, i, wt[k][i], mt[k][i])
			}
		}
	}
	other := writeTemp(t, dir, "other.jsonl", run(t, nil, "estep", "--max-depth", "1", "-m", model, corpus))
	plain := writeTemp(t, dir, "plain.jsonl", run(t, nil, "estep", "-m", model, corpus))
	for _, mixed := range [][]string{{shards[0], other}, {shards[0], plain}} {
		var out, errs bytes.Buffer
		args := append([]string{"sumcounts"}, mixed...)
		if program.Run(args[0], args, nil, &out, &errs) == 0 {
			t.Fatalf("sumcounts merged shards of different depth bounds: %s", strings.Join(mixed, " "))
		}
	}
}

// decode --max-depth parses within the bound: a bound no sentence
// reaches is plain Viterbi (and MBR) byte for byte, depth 1 changes some
// trees.
func TestDecodeBounded(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	model := writeTemp(t, dir, "model.jsonl", run(t, nil, "train-em", "--max-iter", "5", "-q", corpus))
	for _, mbr := range [][]string{nil, {"--mbr"}} {
		plain := run(t, nil, append(append([]string{"decode", "-m", model}, mbr...), corpus)...)
		far := run(t, nil, append(append([]string{"decode", "--max-depth", "40", "-m", model}, mbr...), corpus)...)
		if !bytes.Equal(plain, far) {
			t.Fatalf("decode %v --max-depth 40 differs from the plain decoder", mbr)
		}
		if near := run(t, nil, append(append([]string{"decode", "--max-depth", "1", "-m", model}, mbr...), corpus)...); bytes.Equal(plain, near) {
			t.Fatalf("decode %v --max-depth 1 changed no tree", mbr)
		}
	}
}
