package showtree

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/golden"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/memory"
)

// Each testdata/*.jsonl drawn in both styles matches its golden file.
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/*.jsonl")
	if len(inputs) == 0 {
		t.Fatal("no inputs in testdata")
	}
	for _, in := range inputs {
		for _, style := range []struct {
			name string
			opts Options
		}{{"box", Options{}}, {"ascii", Options{ASCII: true}}} {
			var out bytes.Buffer
			src := pipeline.Source{Names: []string{in}}
			if err := Show(src, &out, style.opts); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, strings.TrimSuffix(in, ".jsonl")+"."+style.name+".golden", out.Bytes())
		}
	}
}

// randomProjective draws a projective tree with one root by attaching
// spans recursively.
func randomProjective(rng *rand.Rand, heads []int, lo, hi, head int) {
	if lo > hi {
		return
	}
	r := lo + rng.IntN(hi-lo+1)
	heads[r-1] = head
	randomProjective(rng, heads, lo, r-1, r)
	randomProjective(rng, heads, r+1, hi, r)
}

// In projective trees no line crosses another, and there is one arrow per
// word on each side.
func TestProjectiveDrawingsDoNotCross(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		n := 1 + rng.IntN(15)
		gold, pred := make([]int, n), make([]int, n)
		randomProjective(rng, gold, 1, n, 0)
		randomProjective(rng, pred, 1, n, 0)
		s := &format.Sentence{Tags: make([]string, n), Heads: gold, Pred: pred}
		for i := range s.Tags {
			s.Tags[i] = "T"
		}
		drawn, err := Render(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, text, _ := strings.Cut(drawn, "\n") // without the header
		if strings.ContainsRune(text, '┼') {
			t.Fatalf("%v / %v: lines cross:\n%s", gold, pred, text)
		}
		down := strings.Count(text, "▼")
		up := strings.Count(text, "▲") + strings.Count(text, "×")
		if down != n || up != n {
			t.Fatalf("%v / %v: %d arrows down, %d up, want %d:\n%s", gold, pred, down, up, n, text)
		}
		if wrong := strings.Count(text, "×"); wrong != n-countEqual(gold, pred) {
			t.Fatalf("%d wrong marks for %v / %v", wrong, gold, pred)
		}
	}
}

func countEqual(a, b []int) int {
	k := 0
	for i := range a {
		if a[i] == b[i] {
			k++
		}
	}
	return k
}

// Each arrow sits in the column of its word's cell.
func TestArrowsUnderWords(t *testing.T) {
	s := &format.Sentence{Words: []string{"aaaa", "b", "cccccc"}, Tags: []string{"X", "Y", "Z"}, Heads: []int{2, 0, 2}}
	drawn, err := Render(s, Options{ASCII: true})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(drawn, "\n")
	var arrows, words string
	for i, l := range lines {
		if strings.HasPrefix(l, "aaaa") {
			arrows, words = lines[i-1], l
		}
	}
	for _, w := range []string{"aaaa", "b", "cccccc"} {
		start := strings.Index(words, w)
		if a := strings.Index(arrows[start:], "v"); a < 0 || a >= len(w) {
			t.Errorf("no arrow over %q:\n%s\n%s", w, arrows, words)
		}
		arrows = arrows[:start] + strings.Repeat(" ", len(w)) + arrows[min(len(arrows), start+len(w)):]
	}
}

func TestDisplayWidth(t *testing.T) {
	for s, w := range map[string]int{"cat": 3, "好き": 4, "é": 1, "e\u0301": 1, "ｘ": 2, "": 0} {
		if got := displayWidth(s); got != w {
			t.Errorf("displayWidth(%q) = %d, want %d", s, got, w)
		}
	}
}

// A sentence whose arcs all share one head is drawn as many rows deep as
// it is long: over MaxMemory it is not drawn, and says why; what Render
// allocates to draw it is within the estimate it weighed.
func TestRenderMemory(t *testing.T) {
	const n = 400
	s := &format.Sentence{ID: "fan", Tags: make([]string, n), Heads: make([]int, n), Pred: make([]int, n)}
	for i := range n {
		s.Tags[i], s.Heads[i], s.Pred[i] = "NN", 1, 1
	}
	s.Heads[0], s.Pred[0], s.Pred[n-1] = 0, 0, 2
	_, err := Render(s, Options{MaxMemory: 1 << 20})
	var big *memory.Error
	if !errors.As(err, &big) || !strings.HasPrefix(err.Error(), "its drawing of 804 rows by 1997 columns needs about") {
		t.Fatalf("under 1 MiB: %v", err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Render(s, Options{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := int64(after.TotalAlloc - before.TotalAlloc)
	t.Logf("%d bytes allocated, %d estimated", alloc, big.Need)
	if alloc > big.Need || big.Need > 2*alloc {
		t.Errorf("allocated %d bytes, estimated %d", alloc, big.Need)
	}
}
