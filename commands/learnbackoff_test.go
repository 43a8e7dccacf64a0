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

// The learned back-off's shell loop — dmv-init --learn-backoff, then
// "estep -m M | mstep --backoff-prior P" — equals train-em with the same
// flags byte for byte, for the plain DMV and EVG; jq-style readers find
// the backoff events in the counts.
func TestLearnedBackoffShellLoopEqualsTrainEM(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	for _, flags := range [][]string{
		{"--learn-backoff"},
		{"--child-valence", "2", "--learn-backoff", "--backoff-prior", "2,5", "--lambda", "0.1"},
		{"--stop-valence", "3", "--child-valence", "3", "--learn-backoff", "--backoff-forget", "valence", "--lambda", "1"},
	} {
		model := run(t, nil, append(append([]string{"dmv-init"}, flags...), corpus)...)
		mflags := []string{}
		for i, f := range flags {
			if f == "--backoff-prior" || f == "--backoff-forget" || f == "--lambda" {
				mflags = append(mflags, f, flags[i+1])
			}
		}
		for i := 0; i < 4; i++ {
			if code, _, stderr := runCode(t, nil, "train-em", "--learn-backoff", "--backoff-forget", "valence", corpus); code == 0 || !strings.Contains(stderr, "--child-valence 2") {
				t.Errorf("forgetting the valence of a model with one: exit %d, %q", code, stderr)
			}
			counts := run(t, nil, "estep", "-m", writeTemp(t, dir, "model.jsonl", model), corpus)
			if !bytes.Contains(counts, []byte(`{"ev":"backoff",`)) {
				t.Fatalf("%v: the counts have no backoff events", flags)
			}
			model = run(t, counts, append([]string{"mstep"}, mflags...)...)
		}
		trained := run(t, nil, append(append([]string{"train-em", "--max-iter", "4", "--tol", "0", "-q"}, flags...), corpus)...)
		if !bytes.Equal(model, trained) {
			t.Fatalf("%v: 4 iterations of estep | mstep differ from train-em --max-iter 4", flags)
		}
	}
}

// Counts of shards of a model that learns its back-off, merged by
// sumcounts, equal the whole's within 1e-9, backoff events included.
func TestLearnedBackoffShards(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 400)
	model := writeTemp(t, dir, "m.jsonl", run(t, nil, "train-em", "--child-valence", "2", "--learn-backoff", "--max-iter", "3", "-q", corpus))
	whole := run(t, nil, "estep", "-m", model, corpus)
	data, _ := os.ReadFile(corpus)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	var shards []string
	for k, size := 0, 0; k < len(lines); k += size {
		size = 90 + 40*len(shards)
		in := writeTemp(t, dir, fmt.Sprintf("in%d.jsonl", len(shards)), []byte(strings.Join(lines[k:min(len(lines), k+size)], "")))
		shards = append(shards, writeTemp(t, dir, fmt.Sprintf("c%d.jsonl", len(shards)), run(t, nil, "estep", "-m", model, in)))
	}
	a, b := readTable(t, whole), readTable(t, run(t, nil, append([]string{"sumcounts"}, shards...)...))
	if a.Params.Backoff == nil || b.Params.Backoff == nil {
		t.Fatal("counts without their back-off choices")
	}
	ta, tb := a.Params.Tables(), b.Params.Tables()
	at, bt := append(ta[:], a.Params.Backoff), append(tb[:], b.Params.Backoff)
	for k := range at {
		for i := range at[k] {
			if math.Abs(at[k][i]-bt[k][i]) > 1e-9*math.Max(1, math.Abs(at[k][i])) {
				t.Fatalf("table %d entry %d: whole %v, merged %v", k, i, at[k][i], bt[k][i])
			}
		}
	}
}

// Annealing takes a model that learns its back-off: train-da's stages
// equal their shell loop of estep --beta --skew | mstep.
func TestLearnedBackoffShellLoopEqualsTrainDA(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 200)
	init := run(t, nil, "dmv-init", "--init", "km", "--child-valence", "2", "--learn-backoff", "--lambda", "0.1", corpus)
	skew := writeTemp(t, dir, "init.jsonl", init)
	model := init
	for _, beta := range []string{"0.5", "1"} {
		model = shellLoop(t, dir, corpus, model, 2, []string{"--beta", beta, "--skew", skew}, []string{"--lambda", "0.1"})
	}
	trained := run(t, nil, "train-da", "--init", "km", "--child-valence", "2", "--learn-backoff", "--skew", "--beta0", "0.5", "--gamma", "2",
		"--lambda", "0.1", "--max-iter", "2", "--tol", "1e-300", "-q", corpus)
	if !bytes.Equal(model, trained) {
		t.Fatal("stages of estep --beta --skew | mstep differ from train-da --learn-backoff")
	}
}

// runCode runs a program in memory and returns its exit code and stderr.
func runCode(t *testing.T, stdin []byte, args ...string) (int, []byte, string) {
	t.Helper()
	var out, errs bytes.Buffer
	code := program.Run(args[0], args, bytes.NewReader(stdin), &out, &errs)
	return code, out.Bytes(), errs.String()
}

// The flags' refusals: exit 2 with a message naming the flag.
func TestLearnedBackoffRefusals(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 20)
	for _, args := range [][]string{
		{"train-em", "--learn-backoff", "--child-backoff", "0.3", corpus},
		{"train-em", "--backoff-prior", "1,2", corpus},
		{"train-em", "--learn-backoff", "--backoff-prior", "1", corpus},
		{"train-em", "--learn-backoff", "--backoff-prior", "-1,2", corpus},
		{"train-em", "--learn-backoff", "--backoff-forget", "tag", corpus},
		{"train-em", "--learn-backoff", "--estimator", "vb", corpus},
		{"dmv-init", "--learn-backoff", "--vb", corpus},
	} {
		code, _, stderr := runCode(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, "backoff") {
			t.Errorf("%v: exit %d, %q; want 2 and a message about the back-off", args, code, stderr)
		}
	}
	counts := run(t, nil, "estep", "-m", writeTemp(t, dir, "m.jsonl", run(t, nil, "dmv-init", corpus)), corpus)
	if code, _, stderr := runCode(t, counts, "mstep", "--backoff-prior", "1,2"); code == 0 || !strings.Contains(stderr, "no") {
		t.Errorf("mstep --backoff-prior on counts without backoff events: exit %d, %q", code, stderr)
	}
}

// train-sa's Model L takes a model that learns its back-off: its epochs
// equal their shell loop of estep --delta | mstep, byte for byte.
func TestLearnedBackoffShellLoopEqualsTrainSA(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 200)
	v := []string{"--child-valence", "2", "--learn-backoff", "--backoff-forget", "valence"}
	model := run(t, nil, append(append([]string{"dmv-init", "--init", "km", "--lambda", "1"}, v...), corpus)...)
	for _, delta := range []string{"-0.4", "0"} {
		model = shellLoop(t, dir, corpus, model, 2, []string{"--delta", delta}, []string{"--lambda", "1", "--backoff-forget", "valence"})
	}
	trained := run(t, nil, append(append([]string{"train-sa", "--init", "km", "--lambda", "1", "--delta0", "-0.4", "--delta-step", "0.4",
		"--delta-final", "0", "--max-iter", "2", "--tol", "1e-300", "-q"}, v...), corpus)...)
	if !bytes.Equal(model, trained) {
		t.Fatal("epochs of estep --delta | mstep differ from train-sa --learn-backoff")
	}
}
