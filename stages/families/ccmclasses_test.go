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
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/mstep"
)

// classStart is the M-step of the multi-class start counts of sents's
// corpus (ccm.NewLoop's start for Classes: classes) as a model file made
// by the stages: the start's counts written and given to mstep.
func classStart(t *testing.T, dir string, classes int, seed uint64, path string) string {
	t.Helper()
	sents := readCorpus(t, path)
	cor, err := ccm.NewCorpus(tagsOf(sents), nil)
	if err != nil {
		t.Fatal(err)
	}
	start, err := ccm.ClassStartCounts(cor, ccm.SplitUniform, classes-1, seed)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ccm.WriteCounts(&b, start, cor.Sym, ccm.Model1, eventio.ModelNone, eventio.CorpusHash(sents, false)); err != nil {
		t.Fatal(err)
	}
	return write(t, filepath.Join(dir, fmt.Sprintf("start-%d.jsonl", classes)), mstepOf(t, b.Bytes()))
}

func readCorpus(t *testing.T, path string) []*format.Sentence {
	t.Helper()
	sents, err := pipeline.ReadSentences(pipeline.Source{Names: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	return sents
}

func modelBytes(t *testing.T, m *ccm.Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := ccm.WriteModel(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The multi-class CCM's shell loop `estep -m M corpus | mstep > next`,
// from the start written by the stages, is ccm.Train with those classes
// byte for byte: the model files are the same after k iterations, for K
// = 3 and 4 (and 2, the CCM's own ccm file).
func TestCCMClassesShellLoopIsTrain(t *testing.T) {
	dir := t.TempDir()
	path, sents := corpus(t, dir, "train.jsonl", 60, 11)
	for _, classes := range []int{2, 3, 4} {
		t.Run(fmt.Sprint(classes), func(t *testing.T) {
			model := classStart(t, dir, classes, 9, path)
			const k = 4
			for i := 1; i <= k; i++ {
				opts := family.EStepOptions{Model: model, Workers: 1 + i%3}
				model = write(t, filepath.Join(dir, fmt.Sprintf("m%d-%d.jsonl", classes, i)), mstepOf(t, estepOf(t, path, opts)))
			}
			cor, _ := ccm.NewCorpus(tagsOf(sents), nil)
			want, iters, err := ccm.Train(cor, ccm.Options{Classes: classes, Seed: 9, MaxIter: k, Tol: 1e-300, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if iters != k {
				t.Fatalf("Train ran %d E-steps, want %d", iters, k)
			}
			got := readFile(t, model)
			if !bytes.Equal(got, modelBytes(t, want)) {
				t.Errorf("%d classes: the shell loop's model differs from Train's", classes)
			}
			family := ccm.FamilyClasses
			if classes == 2 {
				family = ccm.Family
			}
			if !bytes.HasPrefix(got, []byte(`{"ev":"header","family":"`+family+`"`)) {
				t.Errorf("%d classes: header %s", classes, got[:bytes.IndexByte(got, '\n')])
			}
		})
	}
}

// Two classes are the CCM in every file: the model and counts of the
// multi-class code with one constituent class are the CCM's, byte for
// byte, and so is their hash.
func TestCCMTwoClassesFilesAreTheCCM(t *testing.T) {
	dir := t.TempDir()
	path, sents := corpus(t, dir, "train.jsonl", 40, 5)
	cor, _ := ccm.NewCorpus(tagsOf(sents), nil)
	plain, _, err := ccm.Train(cor, ccm.Options{MaxIter: 3, Tol: 1e-300})
	if err != nil {
		t.Fatal(err)
	}
	cor2, _ := ccm.NewCorpus(tagsOf(sents), nil)
	two, _, err := ccm.Train(cor2, ccm.Options{Classes: 2, MaxIter: 3, Tol: 1e-300})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(modelBytes(t, plain), modelBytes(t, two)) || plain.Hash() != two.Hash() {
		t.Error("the one-class model's file or hash differs from the CCM's")
	}
	m1 := write(t, filepath.Join(dir, "plain.jsonl"), modelBytes(t, plain))
	m2 := write(t, filepath.Join(dir, "two.jsonl"), modelBytes(t, two))
	if !bytes.Equal(estepOf(t, path, family.EStepOptions{Model: m1}), estepOf(t, path, family.EStepOptions{Model: m2})) {
		t.Error("estep's counts differ")
	}
	var a, b bytes.Buffer
	ccm.WriteCounts(&a, plain.EStep(cor, 1), cor.Sym, ccm.Model1, "m", "c")
	ccm.WriteCounts(&b, two.EStep(cor2, 1), cor2.Sym, ccm.Model1, "m", "c")
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the one-class E-step's counts file differs from the CCM's")
	}
}

// A multi-class model and its counts read back as they were written:
// the same files again, the same hash; the hash tells the classes apart
// (two models whose classes are swapped differ).
func TestCCMClassesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	_, sents := corpus(t, dir, "train.jsonl", 30, 2)
	cor, _ := ccm.NewCorpus(tagsOf(sents), nil)
	m, _, err := ccm.Train(cor, ccm.Options{Classes: 4, Seed: 3, MaxIter: 2, Tol: 1e-300})
	if err != nil {
		t.Fatal(err)
	}
	file := modelBytes(t, m)
	path := write(t, filepath.Join(dir, "m.jsonl"), file)
	back, err := ccm.ReadModel(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Classes) != 3 || back.Family() != ccm.FamilyClasses {
		t.Fatalf("read %d classes, family %s", len(back.Classes), back.Family())
	}
	if !bytes.Equal(modelBytes(t, back), file) || back.Hash() != m.Hash() {
		t.Error("the model read back writes another file or hash")
	}
	swapped := strings.NewReplacer(`"class":1,`, `"class":2,`, `"class":2,`, `"class":1,`).Replace(string(file))
	sw, err := ccm.ReadModel(write(t, filepath.Join(dir, "swapped.jsonl"), []byte(swapped)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sw.Hash() == m.Hash() {
		t.Error("swapping two classes left the hash unchanged")
	}

	var cb bytes.Buffer
	if err := ccm.WriteCounts(&cb, m.EStep(cor, 2), cor.Sym, ccm.Model1, m.Hash(), eventio.CorpusHash(sents, false)); err != nil {
		t.Fatal(err)
	}
	ct, err := ccm.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(cb.Bytes())})
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := ccm.WriteCounts(&again, ct.Counts, ct.Sym, ct.Variant, ct.Shards.Model, ct.Shards.Corpus); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), cb.Bytes()) {
		t.Error("the counts read back write another file")
	}
}

// The E-step of a multi-class model over two shards, added by sumcounts'
// reader, gives the counts of one E-step over the whole corpus to 1e-12
// (relative).
func TestCCMClassesShardsAddUp(t *testing.T) {
	dir := t.TempDir()
	path, _ := corpus(t, dir, "all.jsonl", 50, 8)
	sents := readCorpus(t, path)
	var a, b bytes.Buffer
	for i, s := range sents {
		out := &a
		if i%2 == 1 {
			out = &b
		}
		pipeline.WriteRecord(out, s)
	}
	pa, pb := write(t, filepath.Join(dir, "a.jsonl"), a.Bytes()), write(t, filepath.Join(dir, "b.jsonl"), b.Bytes())
	model := classStart(t, dir, 3, 4, path)
	model = write(t, filepath.Join(dir, "m1.jsonl"), mstepOf(t, estepOf(t, path, family.EStepOptions{Model: model})))
	one, err := ccm.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(estepOf(t, path, family.EStepOptions{Model: model}))})
	if err != nil {
		t.Fatal(err)
	}
	shards := append(estepOf(t, pb, family.EStepOptions{Model: model}), estepOf(t, pa, family.EStepOptions{Model: model})...)
	sum, err := ccm.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(shards)})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Shards.Shards != 2 || len(sum.Counts.Classes) != 2 {
		t.Fatalf("%d shards, %d classes", sum.Shards.Shards, len(sum.Counts.Classes))
	}
	worst := 0.0
	each := func(c *ccm.CountTable) map[string]float64 {
		out := map[string]float64{}
		ccm.EachCount(c.Counts, c.Sym, func(e *format.Event) error {
			out[fmt.Sprintf("%s %q %s %s %v %d", e.Ev, e.Yield, e.Left, e.Right, e.Constituent, e.Class)] = e.Value
			return nil
		})
		return out
	}
	want, got := each(one), each(sum)
	if len(want) != len(got) {
		t.Fatalf("%d counts, want %d", len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Fatalf("%s missing from the shards' sum", k)
		}
		if d := math.Abs(g-w) / math.Max(math.Abs(w), 1e-300); d > worst && !(g == 0 && w == 0) {
			worst = d
		}
	}
	if worst > 1e-12 {
		t.Errorf("largest relative difference %g > 1e-12", worst)
	}
	if d := math.Abs(sum.Counts.LogLik - one.Counts.LogLik); d > 1e-12*math.Abs(one.Counts.LogLik) {
		t.Errorf("loglik %v, want %v", sum.Counts.LogLik, one.Counts.LogLik)
	}
	t.Logf("two shards vs one E-step: largest relative difference %g over %d counts", worst, len(want))
}

// Bad multi-class files are refused with the line and what is wrong, and
// nothing is written; the E-step refuses annealing's re-weightings.
func TestCCMClassesBadInput(t *testing.T) {
	dir := t.TempDir()
	path, _ := corpus(t, dir, "train.jsonl", 20, 6)
	model := classStart(t, dir, 3, 1, path)
	good := string(readFile(t, model))
	lines := strings.SplitAfter(good, "\n")
	firstClass := 1 // the first span's class 1
	for _, tc := range []struct {
		name, file, want string
	}{
		{"plain header", strings.Replace(good, `"family":"ccm-classes"`, `"family":"ccm"`, 1), `:1: a ccm header with "classes": the multi-class CCM's family is ccm-classes`},
		{"no classes", strings.Replace(good, `,"classes":3`, ``, 1), `:1: a ccm-classes header with "classes" 0: want 3 or more`},
		{"two classes", strings.Replace(good, `"classes":3`, `"classes":2`, 1), `:1: a ccm-classes header with "classes" 2: want 3 or more`},
		{"class beyond K", lines[0] + strings.Replace(lines[firstClass], `"class":1`, `"class":3`, 1) + strings.Join(lines[firstClass+1:], ""), `:2: a constituent of class 3 where the header's 3 classes have constituent classes 1 to 2`},
		{"class missing", lines[0] + strings.Replace(lines[firstClass], `,"class":1`, ``, 1) + strings.Join(lines[firstClass+1:], ""), `:2: a constituent event without its "class"`},
		{"class given twice", lines[0] + strings.Replace(lines[firstClass], `"class":1`, `"class":2`, 1) + strings.Join(lines[firstClass+1:], ""), `:3: event given twice: span [] constituent class 2`},
		{"distituent class", strings.Replace(good, `"constituent":false,`, `"constituent":false,"class":1,`, 1), `"span" event with "class" and "constituent":false: the distituents have no class`},
		{"class 0", strings.Replace(good, `"class":1,`, `"class":0,`, 1), `"span" event of class 0`},
	} {
		bad := write(t, filepath.Join(dir, "bad.jsonl"), []byte(tc.file))
		var out bytes.Buffer
		_, err := families.Decode(pipeline.Source{Names: []string{path}}, &out, family.DecodeOptions{Model: bad})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if out.Len() > 0 {
			t.Errorf("%s: %d bytes written", tc.name, out.Len())
		}
	}
	// Plain CCM events with a class.
	plainPath, _ := corpus(t, dir, "p.jsonl", 5, 1)
	cor, _ := ccm.NewCorpus(tagsOf(readCorpus(t, plainPath)), nil)
	start, _ := ccm.StartCounts(cor, ccm.SplitUniform)
	pm, _ := ccm.MStep(start, cor.Sym, ccm.Model1, ccm.KleinSmoothing)
	plain := strings.Replace(string(modelBytes(t, pm)), `"constituent":true,`, `"constituent":true,"class":1,`, 1)
	if _, err := ccm.ReadModel(write(t, filepath.Join(dir, "plain.jsonl"), []byte(plain)), nil); err == nil || !strings.Contains(err.Error(), "a constituent of class 1 in a CCM of one constituent label: the multi-class CCM's family is ccm-classes") {
		t.Errorf("a class in a ccm model: %v", err)
	}
	// Count shards of K = 3 and 4 (E-steps of two models) do not add up.
	other := classStart(t, dir, 4, 1, path)
	mixed := append(estepOf(t, path, family.EStepOptions{Model: model}), estepOf(t, path, family.EStepOptions{Model: other})...)
	var out bytes.Buffer
	err := mstep.Run(families.All, pipeline.Source{Stdin: bytes.NewReader(mixed)}, &out, mstep.Options{ExpectSentences: -1})
	if err == nil || out.Len() > 0 {
		t.Errorf("counts of 3 and 4 classes added: %v, %d bytes", err, out.Len())
	}
	// One K in a count stream even where the model hashes agree.
	three := estepOf(t, path, family.EStepOptions{Model: model})
	four := estepOf(t, path, family.EStepOptions{Model: other})
	hashOf := func(b []byte) string {
		i := bytes.Index(b, []byte(`"model":"`)) + len(`"model":"`)
		return string(b[i : i+16])
	}
	four = bytes.ReplaceAll(four, []byte(hashOf(four)), []byte(hashOf(three)))
	if _, err := ccm.ReadCounts(pipeline.Source{Stdin: bytes.NewReader(append(three, four...))}); err == nil || !strings.Contains(err.Error(), "counts of 4 classes mixed with earlier shards' 3") {
		t.Errorf("counts of 3 and 4 classes of one model hash: %v", err)
	}
	for _, opts := range []family.EStepOptions{
		{Model: model, Reweight: &dmv.Reweighting{Beta: 0.5}},
		{Model: model, Skew: model},
		{Model: model, SplitSkew: true},
	} {
		var out bytes.Buffer
		err := families.EStep(pipeline.Source{Names: []string{path}}, &out, opts)
		if err == nil || !strings.Contains(err.Error(), "a ccm-classes model takes none") || out.Len() > 0 {
			t.Errorf("%+v: %v", opts, err)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
