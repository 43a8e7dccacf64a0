package estep

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/conll2deps"
	"github.com/grind-nlp/grind/stages/dmv"
)

// sentenceLines are count sentence records over tags tags (their first
// sight in a random order), each with its id and words, gold heads (a
// random tree) on most, and the line endings a reader must take: CRLF,
// blank lines, white space around a record.
func sentenceLines(rng *rand.Rand, count, tags int) []string {
	names := make([]string, tags)
	for i, k := range rng.Perm(tags) {
		names[i] = fmt.Sprintf("T%d", k)
	}
	var out []string
	for i := range count {
		n := 1 + rng.IntN(12)
		s := &format.Sentence{ID: fmt.Sprintf("s%d", i+1)}
		for range n {
			// Skewed: late tags are first seen late in the file.
			t := names[rng.IntN(1+min(tags-1, i*tags/count+rng.IntN(3)))]
			s.Tags = append(s.Tags, t)
			s.Words = append(s.Words, strings.ToLower(t))
		}
		if rng.IntN(7) != 0 {
			order := rng.Perm(n) // each token's head comes earlier in order, or is the root
			s.Heads = make([]int, n)
			for k := 1; k < n; k++ {
				s.Heads[order[k]] = order[rng.IntN(k)] + 1
			}
		}
		b, err := format.Marshal(s)
		if err != nil {
			panic(err)
		}
		line := string(b)
		switch i % 13 {
		case 5:
			line += "\r"
		case 8:
			line = "  " + line + "\t"
		case 11:
			line += "\n"
		}
		out = append(out, line)
	}
	return out
}

func writeLines(t *testing.T, dir, name string, lines []string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// summary is everything Run takes from readInput, written out.
func summary(t *testing.T, in *input, err error, bad *pipeline.BadRecords) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "err %v; skipped %d, first %v\n", err, bad.Count, bad.First)
	if err != nil {
		return b.String()
	}
	fmt.Fprintf(&b, "no gold %d %q; add %v; lattices %d\n", in.noGold, in.noGoldID, in.addErr, len(in.lattices))
	if in.lattices != nil {
		for _, l := range in.lattices {
			fmt.Fprintf(&b, "%+v\n", *l)
		}
		return b.String()
	}
	if in.addErr != nil {
		return b.String() // Run reports it: the corpus is not used
	}
	fmt.Fprintf(&b, "hash %x; names %v\n", in.hash, in.corpus.Names())
	c, ferr := in.corpus.Finish(nil)
	if ferr != nil {
		t.Fatal(ferr)
	}
	fmt.Fprintf(&b, "%d sentences, %d tokens, longest %d, gold %v\n", c.Len(), c.Tokens, c.MaxLen, c.HasGold())
	for i := range c.Len() {
		fmt.Fprintf(&b, "%v %v %v\n", c.Sent(i, nil), c.Gold(i, nil), c.Gold(i, nil) == nil)
	}
	return b.String()
}

// The parts read side by side give readSequence's input, whatever the
// number of parts and wherever they are cut: corpus, tag numbering, hash,
// gold heads, errors at their lines, first error in file order, and
// skipped records.
func TestReadPartsAsInSequence(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	base := sentenceLines(rng, 400, 30)
	long := &format.Sentence{ID: "long", Tags: slices.Repeat([]string{"T0"}, dmv.MaxSentenceLen+1)}
	longLine, _ := format.Marshal(long)
	with := func(at map[int]string) []string {
		lines := slices.Clone(base)
		for i, l := range at {
			lines[i] = l
		}
		return lines
	}
	lattice := `{"id":"l","tags":["T1","T2"],"nbhd":"trans1","states":4,"start":0,"final":[3],"arcs":[[0,2,"T1"],[0,1,"T2"],[1,3,"T1"],[2,3,"T2"]]}`
	cycle := `{"id":"cyc","tags":["T1","T2"],"heads":[2,1]}`
	cases := map[string][]string{
		"plain":                base,
		"wide":                 sentenceLines(rng, 300, 400), // more than 256 tags: two bytes a token
		"bad in part 2":        with(map[int]string{330: `{"id":"x","tags":["A"],"heads":[2]}`}),
		"bad in parts 1 and 2": with(map[int]string{120: cycle, 300: "{oops"}),
		"bad everywhere":       with(map[int]string{0: "[1]", 101: cycle, 102: "{", 250: `{"ev":"root","arg":"A","p":1}`, 399: "nope"}),
		"empty tag":            with(map[int]string{222: `{"tags":["T1",""]}`}),
		"too long late":        with(map[int]string{350: string(longLine), 380: `{"id":"ng","tags":["T3"]}`}),
		"too long early":       with(map[int]string{20: string(longLine)}),
		"lattice late":         with(map[int]string{390: lattice}),
		"lattices":             {lattice, lattice, "", lattice, lattice, lattice},
		"lattices then bad":    {lattice, lattice, lattice, cycle, lattice},
		"blank":                {"", "  ", "\r", ""},
		"invalid utf-8":        with(map[int]string{260: "{\"id\":\"\xfe\"}"}),
	}
	defer func(m int64) { minPart = m }(minPart)
	for name, lines := range cases {
		path := writeLines(t, dir, strings.ReplaceAll(name, " ", "-"), lines)
		for _, gold := range []bool{false, true} {
			for _, skip := range []bool{false, true} {
				src := pipeline.Source{Names: []string{path}, Bad: &pipeline.BadRecords{Skip: skip}}
				in, err := readSequence(src, gold)
				want := summary(t, in, err, src.Bad)
				for _, workers := range []int{1, 2, 3, 50} {
					minPart = 1
					src.Bad = &pipeline.BadRecords{Skip: skip}
					in, err := readInput(src, gold, workers, nil)
					if got := summary(t, in, err, src.Bad); got != want {
						t.Errorf("%s, gold %v, skip %v, %d workers:\n got %.600s\nwant %.600s", name, gold, skip, workers, got, want)
					}
				}
			}
		}
	}
}

// The test above must have read its corpora in parts: cut where it cuts,
// the lines of the plain corpus fall in several.
func TestReadPartsCuts(t *testing.T) {
	path := writeLines(t, t.TempDir(), "c.jsonl", sentenceLines(rand.New(rand.NewPCG(1, 2)), 400, 30))
	parts, ok := pipeline.Source{Names: []string{path}}.SplitFile(2*partsPerWorker, 1)
	if !ok || parts.Len() != 2*partsPerWorker {
		t.Fatalf("cut %v into %d parts", ok, parts.Len())
	}
	parts.Close()
}

// writeModel writes dmv-init's K&M model of the sentences to path.
func writeModel(t *testing.T, path string, lines []string) {
	t.Helper()
	var sents []*format.Sentence
	for _, l := range lines {
		s := new(format.Sentence)
		if err := format.Unmarshal([]byte(strings.TrimSpace(l)), s); err != nil {
			t.Fatal(err)
		}
		sents = append(sents, s)
	}
	c, err := dmv.NewCorpus(sents, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := dmv.InitialModel(c, "km", dmv.InitOptions{Lambda: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := dmv.WriteTable(&b, c.Tags, p, format.Prob, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Run's counts, errors and warnings are the same with the corpus read in
// parts as in sequence, for every kind of E-step.
func TestRunSameInParts(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	lines := sentenceLines(rng, 300, 25)
	model, partial := filepath.Join(dir, "model.jsonl"), filepath.Join(dir, "partial.jsonl")
	writeModel(t, model, lines)
	writeModel(t, partial, lines[:40]) // tags first seen later are unknown to it
	corpus := writeLines(t, dir, "c.jsonl", lines)
	var golds []string // every sentence with its gold tree
	for _, l := range lines {
		if strings.Contains(l, `"heads"`) {
			golds = append(golds, l)
		}
	}
	goldCorpus := writeLines(t, dir, "gold.jsonl", golds)
	bad := slices.Clone(lines)
	bad[250] = `{"tags":["T1","T2"],"heads":[0,9]}`
	badCorpus := writeLines(t, dir, "bad.jsonl", bad)
	badModel := filepath.Join(dir, "badmodel.jsonl")
	if err := os.WriteFile(badModel, []byte("{\"ev\":\"header\",\"family\":\"dmv\",\"unit\":\"p\"}\n{oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lattice := `{"id":"l","tags":["T1","T2"],"nbhd":"trans1","states":4,"start":0,"final":[3],"arcs":[[0,2,"T1"],[0,1,"T2"],[1,3,"T1"],[2,3,"T2"]]}`
	lattices := writeLines(t, dir, "lat.jsonl", slices.Repeat([]string{lattice}, 200))
	reweight := func(beta, delta float64, seg bool) *dmv.Reweighting {
		return &dmv.Reweighting{Beta: beta, Delta: delta, Segmented: seg, SegBeta: -1}
	}
	for _, tc := range []struct {
		name   string
		corpus string
		opts   Options
		skip   bool
		fails  bool
	}{
		{"plain", corpus, Options{Model: model}, false, false},
		{"unseen tags", corpus, Options{Model: partial}, false, false},
		{"hard", corpus, Options{Model: partial, Hard: true}, false, false},
		{"gold", goldCorpus, Options{Model: model, Gold: true}, false, false},
		{"gold without model", goldCorpus, Options{Gold: true}, false, false},
		{"gold, some without heads", corpus, Options{Gold: true}, false, true},
		{"beta skew", corpus, Options{Model: model, Reweight: reweight(0.3, 0, false), Skew: model}, false, false},
		{"delta seg", corpus, Options{Model: partial, Reweight: reweight(1, -0.4, true)}, false, false},
		{"bad", badCorpus, Options{Model: model}, false, true},
		{"bad skipped", badCorpus, Options{Model: model}, true, false},
		{"lattices", lattices, Options{Model: model, Reweight: reweight(1, -0.2, false)}, false, false},
		{"bad model", corpus, Options{Model: badModel}, false, true},
		{"bad model, bad corpus", badCorpus, Options{Model: badModel}, false, true},
		{"bad model, lattices", lattices, Options{Model: badModel}, false, true},
	} {
		run := func(min int64, workers int) string {
			minPart = min
			var out, warn bytes.Buffer
			opts := tc.opts
			opts.Workers, opts.Warn = workers, &warn
			bad := &pipeline.BadRecords{Skip: tc.skip}
			err := Run(pipeline.Source{Names: []string{tc.corpus}, Bad: bad}, &out, opts)
			return fmt.Sprintf("err %v\nskipped %d %v\n%s%s", err, bad.Count, bad.First, warn.String(), out.String())
		}
		saved := minPart
		want := run(1<<62, 1)
		for _, workers := range []int{1, 2, 5} {
			if got := run(1, workers); got != want {
				t.Errorf("%s, %d workers:\n got %.800s\nwant %.800s", tc.name, workers, got, want)
			}
		}
		minPart = saved
		if strings.HasPrefix(tc.name, "bad model") && !strings.Contains(want, "badmodel.jsonl:1: invalid JSON") {
			t.Errorf("%s: the model's error is not the one reported: %.300s", tc.name, want)
		}
		if strings.Contains(want, `"ev":"stats"`) == tc.fails {
			t.Errorf("%s: %.300s", tc.name, want)
		}
	}
}

// BenchmarkReadCorpus reads a corpus the size of UD English ≤10 (5,400
// sentences, about 800 KB) in sequence and in parts.
func BenchmarkReadCorpus(b *testing.B) {
	lines := sentenceLines(rand.New(rand.NewPCG(5, 6)), 5400, 45)
	path := filepath.Join(b.TempDir(), "c.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	src := pipeline.Source{Names: []string{path}}
	b.Run("sequence", func(b *testing.B) {
		for b.Loop() {
			if _, err := readSequence(src, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parts", func(b *testing.B) {
		for b.Loop() {
			if _, err := readInput(src, false, 0, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReadUDEnglish reads UD English ≤10 (train, XPOS) in sequence,
// as conll2deps and filterlen write it — with the upos and no_space_after
// that a reader without words skips —, the corpus of the shell loop's
// figures (docs/results.md; ../shared/data, skipped without it).
func BenchmarkReadUDEnglish(b *testing.B) {
	conllu := testenv.SharedData(b, "ud-nopunct", "en-ud-train-nopunct-len15.conllu")
	sents := corpora.Converted(b, 10, func(w io.Writer) error {
		_, err := conll2deps.Convert(pipeline.Source{Names: []string{conllu}}, w, conll2deps.Options{Tag: conll2deps.XPOS})
		return err
	})
	var data []byte
	for _, s := range sents {
		line, err := format.Marshal(s)
		if err != nil {
			b.Fatal(err)
		}
		data = append(append(data, line...), '\n')
	}
	path := filepath.Join(b.TempDir(), "c.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	src := pipeline.Source{Names: []string{path}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readSequence(src, false); err != nil {
			b.Fatal(err)
		}
	}
}

// Small corpora with bad records, blank lines, lattices and overlong
// sentences drawn at random, cut everywhere: the parts give
// readSequence's input every time.
func TestReadPartsRandomCorpora(t *testing.T) {
	defer func(m int64) { minPart = m }(minPart)
	minPart = 1
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	long, _ := format.Marshal(&format.Sentence{Tags: slices.Repeat([]string{"T1"}, dmv.MaxSentenceLen+1)})
	odd := []string{
		"", "   ", "\r", "{oops", `{"tags":[]}`, `{"tags":["T1"],"heads":[1]}`, `{"id":"x","tags":["T1","T2"],"heads":[2,1]}`,
		`{"id":"e","tags":["T9","T1"],"heads":[0,1],"ev":"x"}`, `{"tags":["T1"],"words":["a","b"]}`, "{\"id\":\"\xc3\"}", string(long),
		`{"id":"l","tags":["T1"],"states":2,"start":0,"final":[1],"arcs":[[0,1,"T1"]]}`,
		`{"id":"esc\"aped","tags":["T\u00e9"]}`, `{"tags":["T1"]}`,
	}
	for round := range 150 {
		lines := sentenceLines(rng, 5+rng.IntN(40), 2+rng.IntN(8))
		for range rng.IntN(4) {
			lines[rng.IntN(len(lines))] = odd[rng.IntN(len(odd))]
		}
		path := writeLines(t, dir, fmt.Sprintf("r%d.jsonl", round), lines)
		gold, skip := rng.IntN(2) == 0, rng.IntN(2) == 0
		src := pipeline.Source{Names: []string{path}, Bad: &pipeline.BadRecords{Skip: skip}}
		in, err := readSequence(src, gold)
		want := summary(t, in, err, src.Bad)
		for _, workers := range []int{2, 3, 7} {
			src.Bad = &pipeline.BadRecords{Skip: skip}
			in, err := readInput(src, gold, workers, nil)
			if got := summary(t, in, err, src.Bad); got != want {
				t.Fatalf("round %d, gold %v, skip %v, %d workers:\n got %.600s\nwant %.600s\nlines %.2000q", round, gold, skip, workers, got, want, lines)
			}
		}
	}
}

// The side work (the model's reading) runs once, whichever way the
// corpus is read: in parts, in sequence, or in parts and then again in
// sequence (lattices).
func TestReadInputRunsSideOnce(t *testing.T) {
	defer func(m int64) { minPart = m }(minPart)
	dir := t.TempDir()
	lines := sentenceLines(rand.New(rand.NewPCG(9, 9)), 100, 10)
	lattice := `{"id":"l","tags":["T1"],"states":2,"start":0,"final":[1],"arcs":[[0,1,"T1"]]}`
	for name, path := range map[string]string{
		"sentences": writeLines(t, dir, "s.jsonl", lines),
		"lattices":  writeLines(t, dir, "l.jsonl", slices.Repeat([]string{lattice}, 100)),
	} {
		for _, min := range []int64{1, 1 << 40} {
			for _, workers := range []int{1, 2, 4} {
				minPart = min
				var runs atomic.Int32
				if _, err := readInput(pipeline.Source{Names: []string{path}}, false, workers, func() { runs.Add(1) }); err != nil {
					t.Fatal(err)
				}
				if runs.Load() != 1 {
					t.Errorf("%s, parts of %d bytes, %d workers: side ran %d times", name, min, workers, runs.Load())
				}
			}
		}
	}
}
