package families_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/dmvccm"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/mstep"
	"github.com/grind-nlp/grind/stages/sumcounts"
)

func dmvccmBytes(t *testing.T, m *dmvccm.Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := dmvccm.WriteModel(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The shell loop `estep -m M corpus | mstep > next` on a DMV+CCM model is
// the library's EM: k iterations of the stages from the start model give
// dmvccm.Train's model after k E-steps, byte for byte (every family:
// dmvccm, dmvccm-right-first, dmvccm-mixture, dmvccm-footnote8).
func TestDMVCCMShellLoopIsTrain(t *testing.T) {
	for o := range dmvccm.OrderNames {
		order := dmvccm.Order(o)
		t.Run(dmvccm.FamilyOfOrder(order), func(t *testing.T) { dmvccmShellLoop(t, order) })
	}
}

func dmvccmShellLoop(t *testing.T, order dmvccm.Order) {
	dir := t.TempDir()
	path, sents := corpus(t, dir, "train.jsonl", 60, 7)
	rightFirst := order == dmvccm.RightFirstOrder
	opts := dmvccm.Options{Tol: 1e-300, Workers: 2, Order: order}
	start, err := dmvccm.Start(sents, opts)
	if err != nil {
		t.Fatal(err)
	}
	model := write(t, filepath.Join(dir, "m0.jsonl"), dmvccmBytes(t, start))
	const k = 4
	for i := 1; i <= k; i++ {
		eopts := family.EStepOptions{Model: model, Workers: 1 + i%3}
		model = write(t, filepath.Join(dir, fmt.Sprintf("m%d.jsonl", i)), mstepOf(t, estepOf(t, path, eopts)))
	}
	opts.MaxIter = k
	want, iters, err := dmvccm.Train(sents, opts)
	if err != nil {
		t.Fatal(err)
	}
	if iters != k {
		t.Fatalf("Train ran %d E-steps, want %d", iters, k)
	}
	got, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, dmvccmBytes(t, want)) {
		t.Errorf("the shell loop's model after %d iterations differs from Train's", k)
	}
	// The file reads back to the same model (and hash).
	back, err := dmvccm.ReadModel(model, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dmvccmBytes(t, back), got) || back.Hash() != want.Hash() {
		t.Error("a model read back writes other bytes or hashes differently")
	}
	if back.RightFirst() != rightFirst || back.Order() != order || !bytes.Contains(got, []byte(`"family":"`+dmvccm.FamilyOfOrder(order)+`"`)) {
		t.Errorf("the model file does not say its family %s", dmvccm.FamilyOfOrder(order))
	}
	if has := bytes.Contains(got, []byte(`{"ev":"halt",`)); has != (order == dmvccm.Footnote8) {
		t.Errorf("%s: footnote 8's records %v", order, has)
	}
}

// Count shards of a DMV+CCM E-step add up: two shards merged by sumcounts
// are one E-step's counts (to 1e-9, relative), the stats record included,
// and their corpus hash is the whole corpus's; under every order (footnote
// 8's halt and go counts among them).
func TestDMVCCMShardsAddUp(t *testing.T) {
	for o := range dmvccm.OrderNames {
		order := dmvccm.Order(o)
		t.Run(dmvccm.FamilyOfOrder(order), func(t *testing.T) { dmvccmShardsAddUp(t, order) })
	}
}

func dmvccmShardsAddUp(t *testing.T, order dmvccm.Order) {
	dir := t.TempDir()
	_, sents := corpus(t, dir, "train.jsonl", 50, 5)
	m, _, err := dmvccm.Train(sents, dmvccm.Options{MaxIter: 3, Tol: 1e-300, Order: order})
	if err != nil {
		t.Fatal(err)
	}
	model := write(t, filepath.Join(dir, "m.jsonl"), dmvccmBytes(t, m))
	// Held-out sentences, with a tag the model never saw in each shard
	// (backed off to the DMV's average tag alike in every shard).
	held, _ := corpus(t, dir, "held.jsonl", 30, 9)
	lines := strings.SplitAfter(strings.TrimSpace(string(must(os.ReadFile(held)))), "\n")
	lines[0] = strings.Replace(lines[0], `"tags":["`, `"tags":["XX","`, 1)
	lines[20] = strings.Replace(lines[20], `"tags":["`, `"tags":["YY","`, 1)
	whole := write(t, filepath.Join(dir, "whole.jsonl"), []byte(strings.Join(lines, "")+"\n"))
	a := write(t, filepath.Join(dir, "a.jsonl"), []byte(strings.Join(lines[:11], "")))
	b := write(t, filepath.Join(dir, "b.jsonl"), []byte(strings.Join(lines[11:], "")+"\n"))
	one := estepOf(t, whole, family.EStepOptions{Model: model, Workers: 2})
	shards := append(estepOf(t, b, family.EStepOptions{Model: model}), estepOf(t, a, family.EStepOptions{Model: model})...)
	var merged bytes.Buffer
	if err := sumcounts.Run(families.All, pipeline.Source{Stdin: bytes.NewReader(shards)}, &merged, whole, 0); err != nil {
		t.Fatal(err)
	}
	read := func(data []byte) *dmvccm.CountTable {
		c, err := dmvccm.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(data)}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	x, y := read(one), read(merged.Bytes())
	if x.CCM.Shards.Corpus != y.CCM.Shards.Corpus {
		t.Errorf("corpus hash %s, one E-step's %s", y.CCM.Shards.Corpus, x.CCM.Shards.Corpus)
	}
	if !(x.CCM.Counts.LogLik > math.Inf(-1)) {
		t.Fatalf("loglik %v", x.CCM.Counts.LogLik)
	}
	rel := func(p, q float64) float64 {
		if p == q {
			return 0
		}
		return math.Abs(p-q) / math.Max(math.Abs(p), math.Abs(q))
	}
	worst := rel(x.CCM.Counts.LogLik, y.CCM.Counts.LogLik)
	// The DMV's counts, by event (the shards' tag sets differ: XX, YY).
	key := func(c *dmvccm.CountTable) map[string]float64 {
		out := map[string]float64{}
		for _, e := range dmv.Events(c.Tags, c.DMV, format.Count) {
			out[fmt.Sprintf("%s %s %s %s %v", e.Ev, e.Head, e.Dir, e.Arg, e.Adj)] = e.Value
		}
		return out
	}
	kx, ky := key(x), key(y)
	if len(kx) != len(ky) {
		t.Fatalf("%d DMV events merged, %d in one E-step", len(ky), len(kx))
	}
	for k, v := range kx {
		worst = max(worst, rel(v, ky[k]))
	}
	if (x.Fn8 != nil) != (order == dmvccm.Footnote8) || (y.Fn8 != nil) != (order == dmvccm.Footnote8) {
		t.Fatalf("%s: footnote 8's counts %v and %v", order, x.Fn8 != nil, y.Fn8 != nil)
	}
	if x.Fn8 != nil {
		// Footnote 8's counts by tag name (the tag sets are the DMV's).
		fx, fy := map[string]float64{}, map[string]float64{}
		for _, c := range []struct {
			t   *dmvccm.CountTable
			out map[string]float64
		}{{x, fx}, {y, fy}} {
			for i, name := range c.t.Tags.Names() {
				for s := range 4 {
					c.out[fmt.Sprint(name, s, "halt")] = c.t.Fn8.Halt[4*i+s]
					c.out[fmt.Sprint(name, s, "left")] = c.t.Fn8.Go[2*(4*i+s)]
					c.out[fmt.Sprint(name, s, "right")] = c.t.Fn8.Go[2*(4*i+s)+1]
				}
			}
		}
		if len(fx) != len(fy) || len(fx) == 0 {
			t.Fatalf("%d footnote-8 counts merged, %d in one E-step", len(fy), len(fx))
		}
		total := 0.0
		for k, v := range fx {
			worst = max(worst, rel(v, fy[k]))
			total += v
		}
		if !(total > 0) {
			t.Error("footnote 8's counts are all 0")
		}
	}
	if worst > 1e-9 {
		t.Errorf("merged shards differ from one E-step by %g (relative)", worst)
	}
	// And the M-steps of both agree: mstep reads them as a DMV+CCM.
	mx, my := mstepOf(t, one), mstepOf(t, merged.Bytes())
	if !strings.HasPrefix(string(mx), `{"ev":"header","family":"`+dmvccm.FamilyOfOrder(order)+`","unit":"p"`) || len(mx) == 0 || len(my) == 0 {
		t.Errorf("mstep wrote %.60q", mx)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// decode -m on a DMV+CCM model writes train-ccm's predictions: heads and
// brackets of Model.ParseAll, held-out tags backed off alike; --mbr and
// mstep --lambda are refused; under every order.
func TestDMVCCMDecode(t *testing.T) {
	for o := range dmvccm.OrderNames {
		order := dmvccm.Order(o)
		t.Run(dmvccm.FamilyOfOrder(order), func(t *testing.T) { dmvccmDecode(t, order) })
	}
}

func dmvccmDecode(t *testing.T, order dmvccm.Order) {
	dir := t.TempDir()
	_, sents := corpus(t, dir, "train.jsonl", 40, 3)
	m, _, err := dmvccm.Train(sents, dmvccm.Options{MaxIter: 5, Order: order})
	if err != nil {
		t.Fatal(err)
	}
	model := write(t, filepath.Join(dir, "m.jsonl"), dmvccmBytes(t, m))
	held, heldSents := corpus(t, dir, "held.jsonl", 25, 11)
	heldSents[0].Tags = append(heldSents[0].Tags, "XX")
	var b bytes.Buffer
	for _, s := range heldSents {
		if err := pipeline.WriteRecord(&b, s); err != nil {
			t.Fatal(err)
		}
	}
	held = write(t, held, b.Bytes())
	all, err := m.ParseAll(heldSents)
	if err != nil {
		t.Fatal(err)
	}
	parses := all.Parses
	if len(all.Unseen) != 1 || all.Unseen[0] != "XX" {
		t.Errorf("unseen tags %v", all.Unseen)
	}
	want := map[bool][]byte{}
	for _, batch := range []int{4096, 3} {
		got := decodeBatched(t, model, held, batch)
		want[true] = got
		recs, err := pipeline.ReadSentences(pipeline.Source{Stdin: bytes.NewReader(got)})
		if err != nil {
			t.Fatal(err)
		}
		for k, s := range recs {
			if fmt.Sprint(s.Pred, s.PredSpans) != fmt.Sprint(parses[k].Heads, spans(parses[k].Spans)) {
				t.Fatalf("batch %d sentence %d: decode %v %v, ParseAll %v %v", batch, k, s.Pred, s.PredSpans, parses[k].Heads, parses[k].Spans)
			}
		}
	}
	_, err = families.Decode(pipeline.Source{Names: []string{held}}, &b, family.DecodeOptions{Model: model, MBR: true})
	if err == nil || !strings.Contains(err.Error(), "--mbr") {
		t.Errorf("--mbr: error %v", err)
	}
	counts := estepOf(t, held, family.EStepOptions{Model: model})
	err = mstep.Run(families.All, pipeline.Source{Stdin: bytes.NewReader(counts)}, &b, mstep.Options{Lambda: 1, ExpectSentences: -1})
	if err == nil || !strings.Contains(err.Error(), "--lambda") {
		t.Errorf("--lambda: error %v", err)
	}
}

func spans(s [][2]int) [][2]int {
	if len(s) == 0 {
		return nil
	}
	return s
}

// estep --beta --skew on a DMV+CCM model counts what the library's
// tempered pair counts, under another model hash.
func TestDMVCCMReweightedEStep(t *testing.T) {
	dir := t.TempDir()
	path, sents := corpus(t, dir, "train.jsonl", 30, 4)
	skew, err := dmvccm.Start(sents, dmvccm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := dmvccm.Train(sents, dmvccm.Options{MaxIter: 2, Tol: 1e-300})
	if err != nil {
		t.Fatal(err)
	}
	skewPath := write(t, filepath.Join(dir, "skew.jsonl"), dmvccmBytes(t, skew))
	model := write(t, filepath.Join(dir, "m.jsonl"), dmvccmBytes(t, m))
	const beta = 0.3
	c, err := m.NewCorpus(sents)
	if err != nil {
		t.Fatal(err)
	}
	_, wantCCM := c.EStep(m.Tempered(beta, skew), 1)
	got, err := dmvccm.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(estepOf(t, path, family.EStepOptions{Model: model, Reweight: &dmv.Reweighting{Beta: beta}, Skew: skewPath}))}, 0)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := dmvccm.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(estepOf(t, path, family.EStepOptions{Model: model}))}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.CCM.Shards.Model == plain.CCM.Shards.Model {
		t.Error("re-weighted and plain counts carry the same model hash")
	}
	if w := wantCCM.LogLik; math.Abs(got.CCM.Counts.LogLik-w) > 1e-12*math.Abs(w) || w == plain.CCM.Counts.LogLik {
		t.Errorf("loglik %v, want %v (plain %v)", got.CCM.Counts.LogLik, w, plain.CCM.Counts.LogLik)
	}
}
