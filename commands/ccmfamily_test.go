package commands

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ccm"
)

// A CCM model file is a model like the DMV's: train-ccm --save-model
// writes it, `estep -m | mstep` iterates it exactly as train-ccm does
// (byte for byte), the E-step sharded and merged by sumcounts gives the
// same model to 1e-12, and decode -m writes train-ccm's brackets.
func TestCCMModelFile(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	lines := []string{
		`{"id":"1","tags":["DT","NN","VBD"]}`,
		`{"id":"2","tags":["DT","JJ","NN","VBD","RB"]}`,
		`{"id":"3","tags":["PRP","VBD","DT","NN"]}`,
		`{"id":"4","tags":["NN"]}`,
		`{"id":"5","tags":["DT","NN","VBD","DT","NN"]}`,
		`{"id":"6","tags":["PRP","VBD","RB","IN","DT","NN"]}`,
	}
	write := func(name string, data []byte) {
		if err := os.WriteFile(path(name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("all.jsonl", []byte(strings.Join(lines, "\n")+"\n"))
	write("a.jsonl", []byte(strings.Join(lines[:4], "\n")+"\n"))
	write("b.jsonl", []byte(strings.Join(lines[4:], "\n")+"\n"))
	for _, model := range []string{"ccm", "ccm2"} {
		trained := run(t, nil, "train-ccm", "--quiet", "--model", model, "--max-iter", "3", "--save-model", path(model+"-3.jsonl"), path("all.jsonl"))
		run(t, nil, "train-ccm", "--quiet", "--model", model, "--max-iter", "2", "--save-model", path(model+"-2.jsonl"), path("all.jsonl"))
		m3, _ := os.ReadFile(path(model + "-3.jsonl"))
		if !bytes.HasPrefix(m3, []byte(`{"ev":"header","family":"`+model+`","unit":"p"`)) {
			t.Fatalf("%s model begins %.80s", model, m3)
		}
		counts := run(t, nil, "estep", "-m", path(model+"-2.jsonl"), path("all.jsonl"))
		if !bytes.HasPrefix(counts, []byte(`{"ev":"header","family":"`+model+`","unit":"n"`)) {
			t.Fatalf("%s counts begin %.80s", model, counts)
		}
		next := run(t, counts, "mstep", "--expect-corpus", path("all.jsonl"))
		if !bytes.Equal(next, m3) {
			t.Errorf("%s: estep | mstep on train-ccm's model after 2 iterations differs from its model after 3", model)
		}
		write("a.counts", run(t, nil, "estep", "-m", path(model+"-2.jsonl"), path("a.jsonl")))
		write("b.counts", run(t, nil, "estep", "-m", path(model+"-2.jsonl"), "--workers", "3", path("b.jsonl")))
		merged := run(t, nil, "sumcounts", "--expect-corpus", path("all.jsonl"), path("b.counts"), path("a.counts"))
		write("merged.jsonl", run(t, merged, "mstep"))
		write("next.jsonl", next)
		got, err := ccm.ReadModel(path("merged.jsonl"), nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ccm.ReadModel(path("next.jsonl"), nil)
		if err != nil {
			t.Fatal(err)
		}
		sameCCM(t, model+" sharded", got, want, 1e-12)
		decoded := run(t, nil, "decode", "-m", path(model+"-3.jsonl"), path("all.jsonl"))
		if !bytes.Equal(decoded, trained) {
			t.Errorf("%s: decode -m gives\n%s\ntrain-ccm gave\n%s", model, decoded, trained)
		}
	}
}

func sameCCM(t *testing.T, what string, got, want *ccm.Model, tol float64) {
	t.Helper()
	key := func(e format.Event) string {
		line, _ := format.Marshal(format.Event{Ev: e.Ev, Yield: e.Yield, Left: e.Left, Right: e.Right, Constituent: e.Constituent, Length: e.Length, Unit: format.Prob})
		return string(line)
	}
	w := map[string]float64{}
	want.EachEvent(func(e *format.Event) error {
		w[key(*e)] = e.Value
		return nil
	})
	var g []format.Event
	got.EachEvent(func(e *format.Event) error {
		g = append(g, format.Event{Ev: e.Ev, Yield: slices.Clone(e.Yield), Left: e.Left, Right: e.Right, Constituent: e.Constituent, Length: e.Length, Value: e.Value})
		return nil
	})
	if len(g) != len(w) {
		t.Fatalf("%s: %d parameters, want %d", what, len(g), len(w))
	}
	for _, e := range g {
		v, ok := w[key(e)]
		if !ok {
			t.Fatalf("%s: %s missing", what, key(e))
		}
		if d := math.Abs(e.Value - v); d > tol*math.Max(math.Abs(v), 1e-300) {
			t.Errorf("%s: %s is %v, want %v", what, key(e), e.Value, v)
		}
	}
}
