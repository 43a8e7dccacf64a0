package modelu

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/nbhd"
	"github.com/grind-nlp/grind/stages/train"
)

// hyphens is a sentence whose words' affixes hold hyphens of their own:
// "--" is the suffix of "re-" and the prefix of "-x", "-x-" both a
// suffix and a prefix.
var hyphens = &format.Sentence{Words: []string{"re-", "--", "-x-", "dog"}, Tags: []string{"JJ", ":", "NN", "NN"}}

// written is a spelling model trained a little on corpus() and hyphens,
// and its file.
func written(t *testing.T) (*Model, []byte) {
	t.Helper()
	m := New([]string{":", "CD", "DT", "JJ", "NN", "NNS", "RB", "VBD", "VBP", "VBZ"}, true)
	m.Nbhd = nbhd.Trans1
	p, err := NewProblem(m, append(corpus(), hyphens), nbhd.Trans1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Train(p, Options{MaxIter: 3, Sigma2: 1}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	return m, b.Bytes()
}

// A model written is read back the same, its affixes' names with
// hyphens of the words' own too.
func TestWriteReadRoundTrip(t *testing.T) {
	sents := append(corpus(), hyphens)
	m, b := written(t)
	path := filepath.Join(t.TempDir(), "u.jsonl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Hash() != m.Hash() || len(r.Theta) != len(m.Theta) {
		t.Fatalf("read back a different model")
	}
	for _, s := range sents {
		x, _ := Symbols(m, s, false)
		y, _ := Symbols(r, s, false)
		a, c := m.Parse(m.Theta, x), r.Parse(r.Theta, y)
		for i := range a {
			if a[i] != c[i] {
				t.Errorf("sentence %v: parse %v before writing, %v after", s.Tags, a, c)
			}
		}
	}
}

func TestTrainingRaisesTheObjective(t *testing.T) {
	m := New([]string{"CD", "DT", "NN", "NNS", "RB", "VBD", "VBP", "VBZ"}, false)
	p, err := NewProblem(m, corpus(), nbhd.Del1OrTrans1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	start := p.Objective(m.Theta, 1, 1, nil)
	res, err := Train(p, Options{MaxIter: 20, Sigma2: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !(res.Objective > start) {
		t.Errorf("objective %v after training, %v at the start", res.Objective, start)
	}
}

// Read's short road (a feature's line as Write writes it) must read what
// its long road (the codec) reads: the same model, or the same error at
// the same line, whatever the lines.
func TestReadRoads(t *testing.T) {
	m, b := written(t)
	file := strings.SplitAfter(string(b), "\n")
	file = file[:len(file)-1]
	path := filepath.Join(t.TempDir(), "u.jsonl")
	r := roads{t: t, read: func(lines []string) (string, error) {
		writeFile(t, path, lines)
		r, err := Read(path)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%q %v %q %v %v", r.Tags, r.Spelling, r.Affixes, r.Keys, r.Theta), nil
	}}
	r.check("as written", file)
	if _, err := r.read(file); err != nil || len(m.Affixes) == 0 {
		t.Fatalf("the model as written: %v, %d affixes", err, len(m.Affixes))
	}
	// Every line the short road takes, and then some it leaves.
	edge, spell := r.edit(file, "w", nil)
	twice := slices.Clone(file)
	twice[spell+1] = file[spell]
	r.check("a line twice", twice)
	r.check("a line left out", slices.Delete(slices.Clone(file), edge, edge+1))
	r.check("spelling false", append([]string{strings.Replace(file[0], `"spelling":true`, `"spelling":false`, 1)}, file[1:]...))
	r.randomBytes(file, rand.New(rand.NewPCG(3, 4)))
}

// Count files are read by the short road as by the long one: the same
// counts or the same error at the same line, for two shards as written
// and for deliberate edits and random byte changes of their lines.
func TestReadCountsRoads(t *testing.T) {
	m, _ := written(t)
	rng := rand.New(rand.NewPCG(5, 6))
	var b bytes.Buffer
	for shard := range 2 {
		n := make([]float64, len(m.Keys))
		for i := range n {
			n[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
		}
		stats := &format.Stats{Sentences: 3 + shard, Tokens: 20 + shard, Loglik: -12.5}
		if err := m.WriteCounts(&b, n, "00000000000000aa", fmt.Sprintf("%016x", shard+1), stats); err != nil {
			t.Fatal(err)
		}
	}
	file := strings.SplitAfter(b.String(), "\n")
	file = file[:len(file)-1]
	path := filepath.Join(t.TempDir(), "counts.jsonl")
	r := roads{t: t, read: func(lines []string) (string, error) {
		writeFile(t, path, lines)
		c, err := ReadCounts(pipeline.Source{Names: []string{path}})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%q %v %s %s %d %+v %q %v", c.Tags, c.Spelling, c.Model, c.Corpus, c.Shards, c.Stats, c.Names, c.N), nil
	}}
	r.check("as written", file)
	second := len(file)/2 + 3 // a line of the second shard
	edge, spell := r.edit(file, "n", []int{second})
	twice := slices.Clone(file)
	twice[spell+1] = file[spell]
	r.check("a line twice in a shard", twice)
	leftOut := slices.Delete(slices.Clone(file), edge, edge+1)
	r.check("a line left out", leftOut)
	r.check("a line more", slices.Insert(slices.Clone(file), edge, file[second]))
	r.check("the stats left out", file[:len(file)-1])
	events := fmt.Sprintf(`"events":%d`, len(m.Keys))
	for _, e := range []int{len(m.Keys) - 1, len(m.Keys) + 1} {
		lines := slices.Clone(file)
		lines[0] = strings.Replace(lines[0], events, fmt.Sprintf(`"events":%d`, e), 1)
		r.check(fmt.Sprintf("a header of %d events", e), lines)
	}
	// What must be an error is one, by either road.
	for what, lines := range map[string][]string{"a line twice in a shard": twice, "the stats left out": file[:len(file)-1], "a line left out": leftOut} {
		if _, err := r.read(lines); err == nil {
			t.Errorf("%s: read without error", what)
		}
	}
	r.randomBytes(file, rng)
}

// roads checks a reader's short road against its long one: read, which
// reads a file of the lines given, gives the same result or the same
// error with shortRoad on and off.
type roads struct {
	t     *testing.T
	read  func(lines []string) (string, error)
	taken int // the files both roads read without error
}

func (r *roads) check(what string, lines []string) {
	r.t.Helper()
	short, shortErr := r.read(lines)
	shortRoad = false
	long, longErr := r.read(lines)
	shortRoad = true
	switch {
	case fmt.Sprint(shortErr) != fmt.Sprint(longErr):
		r.t.Errorf("%s: the short road: %v; the long road: %v", what, shortErr, longErr)
	case short != long:
		r.t.Errorf("%s: the short road reads\n%s\nthe long road\n%s", what, short, long)
	case shortErr == nil:
		r.taken++
	}
}

// edit checks the file with each of a list of edits made to its first
// uedge line, its first uspell line and the lines more, whose number is
// the field num; it returns where the two first lines are.
func (r *roads) edit(file []string, num string, more []int) (edge, spell int) {
	r.t.Helper()
	edge = slices.IndexFunc(file, func(l string) bool { return strings.Contains(l, `"uedge"`) })
	spell = slices.IndexFunc(file, func(l string) bool { return strings.Contains(l, `"uspell"`) })
	n := `"` + num + `":`
	edits := []struct{ old, new string }{
		{n, n + ` `}, {`"left":"`, `"left": "`}, {`{"ev"`, `{ "ev"`}, {`"NN"`, `"\u004eN"`},
		{`"NN"`, `"XX"`}, {n, `"weight":`}, {`"right"`, `"rite"`}, {`"affix":"right"`, `"affix":"up"`},
		{`"affix":"right"`, `"affix":"left"`}, {`"uspell"`, `"uedge"`}, {`"uedge"`, `"uspell"`},
		{`"uedge"`, `"header"`}, {`"uedge"`, `"stats"`}, {`"-`, `"`}, {`}`, `,"x":1}`}, {`}`, ``},
		{n, n + `-`}, {n, n + `1e400`}, {n, n + `0`}, {n, n + `"`}, {`"ev":"uspell",`, ``},
		{`,"affix":"right"`, ``},
	}
	for _, e := range edits {
		for _, at := range append([]int{edge, spell}, more...) {
			lines := slices.Clone(file)
			lines[at] = strings.Replace(lines[at], e.old, e.new, 1)
			r.check(fmt.Sprintf("line %d with %s for %s", at+1, e.new, e.old), lines)
		}
	}
	return edge, spell
}

// randomBytes checks the file with 300 bytes changed at random, one at a
// time, each to a character of JSON's; and that enough of them were read
// without error for the checks to say something.
func (r *roads) randomBytes(file []string, rng *rand.Rand) {
	r.t.Helper()
	for range 300 {
		lines := slices.Clone(file)
		at := 1 + rng.IntN(len(lines)-1)
		l := []byte(lines[at])
		l[rng.IntN(len(l)-1)] = `"{}:,-.e0123456789 \aux`[rng.IntN(23)]
		lines[at] = string(l)
		r.check(fmt.Sprintf("line %d as %s", at+1, l), lines)
	}
	if r.taken < 20 {
		r.t.Errorf("only %d of the files were read without error: the test reads too few", r.taken)
	}
}

func writeFile(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// RunGrid's models, one a σ² over neighbourhoods built once, are Run's
// for each σ² alone, byte for byte, with and without spelling.
func TestRunGridIsRunForEach(t *testing.T) {
	var b bytes.Buffer
	for _, s := range append(corpus(), hyphens) {
		if err := pipeline.WriteRecord(&b, s); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src := pipeline.Source{Names: []string{path}}
	job := func() train.Job {
		return train.Job{Workers: 2, Progress: progress.New(io.Discard, "train-ce", progress.Plan{}, true)}
	}
	for _, spelling := range []bool{false, true} {
		sigma2s := []float64{2, math.Inf(1), 0.5}
		opts := RunOptions{Kind: nbhd.Trans1, Spelling: spelling, MaxIter: 20, Tol: 1e-5}
		grid := make([]string, len(sigma2s))
		err := RunGrid(src, job(), opts, sigma2s, func(i int, m *Model) error {
			var w bytes.Buffer
			err := m.Write(&w)
			grid[i] = w.String()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, sigma2 := range sigma2s {
			var alone bytes.Buffer
			o := opts
			o.Sigma2 = sigma2
			if err := Run(src, &alone, job(), o); err != nil {
				t.Fatal(err)
			}
			if grid[i] != alone.String() {
				t.Errorf("spelling %v, σ² = %g: the grid's model differs from a run of its own", spelling, sigma2)
			}
		}
		if grid[0] == grid[1] {
			t.Errorf("spelling %v: σ² = 2 and ∞ give one model: the test cannot tell the runs apart", spelling)
		}
	}
}
