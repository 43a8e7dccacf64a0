package families_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/mstep"
)

// corpus writes n random tag sequences (lengths 1–7 over five tags) as
// sentence records to dir/name.
func corpus(t *testing.T, dir, name string, n int, seed uint64) (string, []*format.Sentence) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	var sents []*format.Sentence
	for i := range n {
		s := &format.Sentence{ID: fmt.Sprintf("%s%d", name, i)}
		for range 1 + r.IntN(7) {
			s.Tags = append(s.Tags, []string{"DT", "NN", "VBD", "IN", "JJ"}[r.IntN(5)])
		}
		sents = append(sents, s)
		if err := pipeline.WriteRecord(&b, s); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, sents
}

func tagsOf(sents []*format.Sentence) [][]string {
	var out [][]string
	for _, s := range sents {
		out = append(out, s.Tags)
	}
	return out
}

func write(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// mstepOf runs the mstep stage on counts.
func mstepOf(t *testing.T, counts []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := mstep.Run(families.All, pipeline.Source{Stdin: bytes.NewReader(counts)}, &out, mstep.Options{ExpectSentences: -1}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func estepOf(t *testing.T, corpus string, opts family.EStepOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := families.EStep(pipeline.Source{Names: []string{corpus}}, &out, opts); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// sameModel compares two CCMs parameter by parameter, to tol relative.
func sameModel(t *testing.T, what string, got, want *ccm.Model, tol float64) {
	t.Helper()
	key := func(e format.Event) string {
		return fmt.Sprintf("%s %q %s %s %v %d", e.Ev, e.Yield, e.Left, e.Right, e.Constituent, e.Length)
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
	worst := 0.0
	for _, e := range g {
		v, ok := w[key(e)]
		if !ok {
			t.Fatalf("%s: %s not in the wanted model", what, key(e))
		}
		if d := math.Abs(e.Value-v) / math.Max(math.Abs(v), 1e-300); d > worst {
			worst = d
		}
	}
	if worst > tol {
		t.Errorf("%s: largest relative difference %g > %g", what, worst, tol)
	}
}

// The shell loop `estep -m M corpus | mstep > next` on a CCM model is the
// library's EM: k iterations of the stages from the start's M-step give
// ccm.Train's model after k E-steps.
func TestCCMShellLoopIsTrain(t *testing.T) {
	dir := t.TempDir()
	path, sents := corpus(t, dir, "train.jsonl", 60, 7)
	for _, v := range []ccm.Variant{ccm.Model1, ccm.Model2} {
		name := ccm.FamilyOf(v)
		t.Run(name, func(t *testing.T) {
			cor, err := ccm.NewCorpus(tagsOf(sents), nil)
			if err != nil {
				t.Fatal(err)
			}
			start, err := ccm.StartCounts(cor, ccm.SplitUniform)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := ccm.WriteCounts(&b, start, cor.Sym, v, eventio.ModelNone, eventio.CorpusHash(sents, false)); err != nil {
				t.Fatal(err)
			}
			model := write(t, filepath.Join(dir, name+"-0.jsonl"), mstepOf(t, b.Bytes()))
			const k = 4
			for i := 1; i <= k; i++ {
				opts := family.EStepOptions{Model: model, Workers: 1 + i%3}
				model = write(t, filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", name, i)), mstepOf(t, estepOf(t, path, opts)))
			}
			got, err := ccm.ReadModel(model, nil)
			if err != nil {
				t.Fatal(err)
			}
			cor2, _ := ccm.NewCorpus(tagsOf(sents), nil)
			want, iters, err := ccm.Train(cor2, ccm.Options{Variant: v, MaxIter: k, Tol: 1e-300, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if iters != k {
				t.Fatalf("Train ran %d E-steps, want %d", iters, k)
			}
			sameModel(t, name, got, want, 1e-12)
		})
	}
}

// estep --beta --skew on a CCM model counts what the library's tempered
// model (train-ccm's SDA E-step) counts; the header's model hash tells
// re-weighted counts from plain ones.
func TestCCMReweightedEStep(t *testing.T) {
	dir := t.TempDir()
	path, sents := corpus(t, dir, "train.jsonl", 40, 3)
	cor, err := ccm.NewCorpus(tagsOf(sents), nil)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := ccm.StartCounts(cor, ccm.SplitUniform)
	skew, _ := ccm.MStep(start, cor.Sym, ccm.Model1, ccm.KleinSmoothing)
	m, _ := ccm.MStep(skew.EStep(cor, 1), cor.Sym, ccm.Model1, ccm.KleinSmoothing)
	var b bytes.Buffer
	if err := ccm.WriteModel(&b, skew); err != nil {
		t.Fatal(err)
	}
	skewPath := write(t, filepath.Join(dir, "skew.jsonl"), b.Bytes())
	b.Reset()
	if err := ccm.WriteModel(&b, m); err != nil {
		t.Fatal(err)
	}
	model := write(t, filepath.Join(dir, "m.jsonl"), b.Bytes())

	const beta = 0.3
	want := m.Tempered(beta, skew).EStep(cor, 2)
	counts := estepOf(t, path, family.EStepOptions{Model: model, Reweight: &dmv.Reweighting{Beta: beta}, Skew: skewPath})
	plain := estepOf(t, path, family.EStepOptions{Model: model})
	got, err := ccm.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(counts)})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := ccm.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(plain)})
	if got.Shards.Model == p.Shards.Model {
		t.Errorf("re-weighted and plain counts carry the same model hash %s", p.Shards.Model)
	}
	if math.Abs(got.Counts.LogLik-want.LogLik) > 1e-12*math.Abs(want.LogLik) {
		t.Errorf("loglik %v, want %v", got.Counts.LogLik, want.LogLik)
	}
	// The files' symbols are the corpus's, in the same order.
	for y := range cor.Sym.NumYields() {
		for _, br := range []int{ccm.Constituent, ccm.Distituent} {
			g, w := got.Counts.SpanCount(br, y), want.SpanCount(br, y)
			if math.Abs(g-w) > 1e-12*math.Max(w, 1) {
				t.Fatalf("yield %v bracket %d: count %v, want %v", cor.Sym.Yield(y), br, g, w)
			}
		}
	}
	for x := range cor.Sym.NumContexts() {
		for _, br := range []int{ccm.Constituent, ccm.Distituent} {
			g, w := got.Counts.ContextCount(br, x), want.ContextCount(br, x)
			if math.Abs(g-w) > 1e-12*math.Max(w, 1) {
				t.Fatalf("context %d bracket %d: count %v, want %v", x, br, g, w)
			}
		}
	}
	if plainLL := p.Counts.LogLik; plainLL == got.Counts.LogLik {
		t.Errorf("β = %v left the loglik unchanged", beta)
	}
}

// Shards of ccm and ccm2 counts do not add up: one stream, one family.
func TestCCMFamiliesNotMixed(t *testing.T) {
	dir := t.TempDir()
	_, sents := corpus(t, dir, "a.jsonl", 5, 1)
	_, sents2 := corpus(t, dir, "b.jsonl", 5, 2)
	var b bytes.Buffer
	for i, ss := range [][]*format.Sentence{sents, sents2} {
		cor, _ := ccm.NewCorpus(tagsOf(ss), nil)
		start, _ := ccm.StartCounts(cor, ccm.SplitUniform)
		if err := ccm.WriteCounts(&b, start, cor.Sym, []ccm.Variant{ccm.Model1, ccm.Model2}[i], eventio.ModelNone, eventio.CorpusHash(ss, false)); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	err := mstep.Run(families.All, pipeline.Source{Stdin: bytes.NewReader(b.Bytes())}, &out, mstep.Options{ExpectSentences: -1})
	if err == nil || !strings.Contains(err.Error(), `counts of different families mixed: this shard's "ccm2", earlier shards' "ccm"`) {
		t.Fatalf("error %v", err)
	}
	if out.Len() > 0 {
		t.Errorf("%d bytes written", out.Len())
	}
}
