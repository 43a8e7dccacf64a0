package commands

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// The EVG shell loop — dmv-init with valence settings, then "estep -m M |
// mstep --child-backoff W" — and train-em with the same flags give the
// same model, byte for byte; the valences travel in the files' headers.
func TestValenceShellLoopEqualsTrainEM(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 300)
	for _, flags := range [][]string{
		{"--stop-valence", "3", "--child-valence", "2"},
		{"--stop-valence", "1", "--child-valence", "3", "--child-backoff", "0.3", "--lambda", "0.1"},
	} {
		model := run(t, nil, append(append([]string{"dmv-init"}, flags...), corpus)...)
		if !bytes.Contains(model[:bytes.IndexByte(model, '\n')], []byte(`"stop_valence"`)) {
			t.Fatalf("%v: the header names no valences: %s", flags, model[:bytes.IndexByte(model, '\n')])
		}
		var mflags []string
		for i := 0; i < len(flags); i += 2 {
			if flags[i] == "--child-backoff" || flags[i] == "--lambda" {
				mflags = append(mflags, flags[i], flags[i+1])
			}
		}
		for i := 0; i < 4; i++ {
			counts := run(t, nil, "estep", "-m", writeTemp(t, dir, "model.jsonl", model), corpus)
			model = run(t, counts, append([]string{"mstep"}, mflags...)...)
		}
		trained := run(t, nil, append(append([]string{"train-em", "--max-iter", "4", "--tol", "0", "-q"}, flags...), corpus)...)
		if !bytes.Equal(model, trained) {
			t.Fatalf("%v: 4 iterations of estep | mstep differ from train-em --max-iter 4", flags)
		}
		// Viterbi and MBR decoding read the model's valences too.
		for _, mode := range [][]string{{}, {"--mbr"}} {
			out := run(t, nil, append(append([]string{"decode", "-m", writeTemp(t, dir, "model.jsonl", model)}, mode...), corpus)...)
			if n := bytes.Count(out, []byte(`"pred"`)); n != 300 {
				t.Fatalf("%v %v: %d parses of 300 sentences", flags, mode, n)
			}
		}
	}
}

// EVG counts of shards, merged by sumcounts, equal the whole's within
// 1e-9; the E-step's bytes do not depend on --workers.
func TestValenceShardsAndWorkers(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 400)
	model := writeTemp(t, dir, "evg.jsonl", run(t, nil, "dmv-init", "--stop-valence", "3", "--child-valence", "3", corpus))
	whole := run(t, nil, "estep", "-m", model, "--workers", "1", corpus)
	if two := run(t, nil, "estep", "-m", model, "--workers", "2", corpus); !bytes.Equal(whole, two) {
		t.Fatal("estep --workers 2 differs from --workers 1")
	}
	data, _ := os.ReadFile(corpus)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	var shards []string
	for k, size := 0, 0; k < len(lines); k += size {
		size = 90 + 40*len(shards)
		end := min(len(lines), k+size)
		in := writeTemp(t, dir, fmt.Sprintf("in%d.jsonl", len(shards)), []byte(strings.Join(lines[k:end], "")))
		shards = append(shards, writeTemp(t, dir, fmt.Sprintf("c%d.jsonl", len(shards)), run(t, nil, "estep", "-m", model, in)))
	}
	merged := run(t, nil, append([]string{"sumcounts"}, shards...)...)
	a, b := readTable(t, whole), readTable(t, merged)
	if a.Params.V != b.Params.V || a.Params.V.Stop != 3 || a.Params.V.Child != 3 {
		t.Fatalf("valences: whole %v, merged %v", a.Params.V, b.Params.V)
	}
	if rel(a.Stats.Loglik, b.Stats.Loglik) > 1e-9 || a.Stats.Sentences != b.Stats.Sentences {
		t.Fatalf("stats: whole %+v, merged %+v", a.Stats, b.Stats)
	}
	at, bt := a.Params.Tables(), b.Params.Tables()
	for k := range at {
		for i := range at[k] {
			if math.Abs(at[k][i]-bt[k][i]) > 1e-9*math.Max(1, math.Abs(at[k][i])) {
				t.Fatalf("table %d entry %d: whole %v, merged %v", k, i, at[k][i], bt[k][i])
			}
		}
	}
}

// The plain DMV's files are as they were: no valence in the header and
// "adj" on every decision, whatever the valence code around them.
func TestPlainDMVFilesKeepTheirForm(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 50)
	model := run(t, nil, "dmv-init", corpus)
	explicit := run(t, nil, "dmv-init", "--stop-valence", "2", "--child-valence", "1", corpus)
	if !bytes.Equal(model, explicit) {
		t.Fatal("dmv-init --stop-valence 2 --child-valence 1 differs from dmv-init")
	}
	if bytes.Contains(model, []byte("valence")) || bytes.Contains(model, []byte(`"val"`)) {
		t.Fatal("a plain DMV model mentions valences")
	}
}

// Annealing takes the valence settings as they are: train-da --skew and
// train-sa's Model L with them equal their shell loops of estep --beta
// --skew (--delta) | mstep --child-backoff, byte for byte.
func TestValenceShellLoopEqualsAnnealers(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 200)
	v := []string{"--stop-valence", "3", "--child-valence", "2", "--child-backoff", "0.2"}
	init := run(t, nil, append(append([]string{"dmv-init", "--init", "km", "--lambda", "0.1"}, v...), corpus)...)
	skew := writeTemp(t, dir, "init.jsonl", init)
	model := init
	for _, beta := range []string{"0.25", "0.5", "1"} {
		model = shellLoop(t, dir, corpus, model, 2, []string{"--beta", beta, "--skew", skew}, []string{"--lambda", "0.1", "--child-backoff", "0.2"})
	}
	trained := run(t, nil, append(append([]string{"train-da", "--init", "km", "--skew", "--beta0", "0.25", "--gamma", "2",
		"--lambda", "0.1", "--max-iter", "2", "--tol", "1e-300", "-q"}, v...), corpus)...)
	if !bytes.Equal(model, trained) {
		t.Fatal("stages of estep --beta --skew | mstep --child-backoff differ from train-da with valences")
	}
	model = zeroWeights(run(t, nil, append(append([]string{"dmv-init", "--init", "zero"}, v...), corpus)...))
	for _, delta := range []string{"-0.4", "0"} {
		model = shellLoop(t, dir, corpus, model, 2, []string{"--delta", delta}, []string{"--lambda", "1", "--child-backoff", "0.2"})
	}
	trained = run(t, nil, append(append([]string{"train-sa", "--init", "zero", "--lambda", "1", "--delta0", "-0.4", "--delta-step", "0.4",
		"--delta-final", "0", "--max-iter", "2", "--tol", "1e-300", "-q"}, v...), corpus)...)
	if !bytes.Equal(model, trained) {
		t.Fatal("epochs of estep --delta | mstep --child-backoff differ from train-sa with valences")
	}
}
