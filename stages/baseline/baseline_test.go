package baseline

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

func TestAttachLeftRight(t *testing.T) {
	if got := AttachRight(4); !slices.Equal(got, []int{2, 3, 4, 0}) {
		t.Errorf("right: %v", got)
	}
	if got := AttachLeft(4); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("left: %v", got)
	}
	if got := AttachRight(1); !slices.Equal(got, []int{0}) {
		t.Errorf("right, one word: %v", got)
	}
	if got := AttachLeft(1); !slices.Equal(got, []int{0}) {
		t.Errorf("left, one word: %v", got)
	}
}

// projectiveSingleRoot reports whether heads is a tree with one root in
// which every word between a head and its dependent descends from the head.
func projectiveSingleRoot(heads []int) bool {
	n := len(heads)
	if format.ValidateHeads(heads, n) != nil {
		return false
	}
	roots := 0
	for _, h := range heads {
		if h == 0 {
			roots++
		}
	}
	if roots != 1 {
		return false
	}
	descends := func(w, h int) bool { // w, h 1-based
		for w != 0 {
			if w == h {
				return true
			}
			w = heads[w-1]
		}
		return false
	}
	for d := 1; d <= n; d++ {
		h := heads[d-1]
		if h == 0 {
			continue
		}
		for w := min(h, d) + 1; w < max(h, d); w++ {
			if !descends(w, h) {
				return false
			}
		}
	}
	return true
}

// allTrees enumerates every head array of n words by brute force and
// keeps the projective single-root trees.
func allTrees(n int) map[string]bool {
	trees := map[string]bool{}
	heads := make([]int, n)
	var fill func(i int)
	fill = func(i int) {
		if i == n {
			if projectiveSingleRoot(heads) {
				trees[fmt.Sprint(heads)] = true
			}
			return
		}
		for h := 0; h <= n; h++ {
			heads[i] = h
			fill(i + 1)
		}
	}
	fill(0)
	return trees
}

// The counts are the known sequence, and agree with brute force.
func TestCount(t *testing.T) {
	want := []int64{1, 1, 2, 7, 30, 143, 728, 3876, 21318, 120175}
	s := NewSampler(1)
	for n, w := range want {
		if got := s.Count(n); got.Int64() != w {
			t.Errorf("Count(%d) = %v, want %d", n, got, w)
		}
	}
	for n := 1; n <= 5; n++ {
		if got := len(allTrees(n)); int64(got) != want[n] {
			t.Errorf("brute force finds %d trees of %d words, want %d", got, n, want[n])
		}
	}
	// Long sentences go past 64 bits, exactly: 6.75^n grows fast.
	if c := s.Count(200); c.BitLen() < 500 {
		t.Errorf("Count(200) has only %d bits", c.BitLen())
	}
}

// Every sample is a projective single-root tree, and over the 30 trees of
// four words the frequencies pass a chi-square test of uniformity.
func TestRandomIsUniform(t *testing.T) {
	for _, n := range []int{4, 5} {
		trees := allTrees(n)
		k := len(trees)
		const perTree = 400
		samples := perTree * k
		s := NewSampler(uint64(n))
		seen := map[string]int{}
		for range samples {
			heads := s.Tree(n)
			key := fmt.Sprint(heads)
			if !trees[key] {
				t.Fatalf("sampled %v: not a projective single-root tree", heads)
			}
			seen[key]++
		}
		if len(seen) != k {
			t.Fatalf("n=%d: %d of %d trees sampled", n, len(seen), k)
		}
		chi2 := 0.0
		for key := range trees {
			d := float64(seen[key]) - perTree
			chi2 += d * d / perTree
		}
		// 0.1% critical values of chi-square with k−1 degrees of freedom:
		// 58.30 (29), 191.5 (142). The seed is fixed, so this cannot flake.
		limit := map[int]float64{4: 58.30, 5: 191.5}[n]
		if chi2 > limit {
			t.Errorf("n=%d: chi-square %.1f over %d trees exceeds %.1f", n, chi2, k, limit)
		}
		t.Logf("n=%d: %d samples over %d trees, chi-square %.1f (limit %.1f)", n, samples, k, chi2, limit)
	}
}

// Long sentences come out as valid trees too.
func TestRandomLong(t *testing.T) {
	s := NewSampler(7)
	for _, n := range []int{1, 2, 40, 171, 400} {
		if heads := s.Tree(n); !projectiveSingleRoot(heads) {
			t.Errorf("n=%d: %v is not a projective single-root tree", n, heads)
		}
	}
}

// Predict: same seed, same bytes; gold heads kept; pred replaced.
func TestPredict(t *testing.T) {
	input := `{"id":"a","tags":["DT","NN","VBD"],"heads":[2,3,0]}
{"id":"b","tags":["NN","VBD","RB","JJ","NN"],"pred":[0,1,1,1,1]}
`
	run := func(opts Options) string {
		var out bytes.Buffer
		if err := Predict(pipeline.Source{Stdin: strings.NewReader(input)}, &out, opts); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	want := `{"id":"a","tags":["DT","NN","VBD"],"heads":[2,3,0],"pred":[2,3,0]}
{"id":"b","tags":["NN","VBD","RB","JJ","NN"],"pred":[2,3,4,5,0]}
`
	if got := run(Options{Attach: Right}); got != want {
		t.Errorf("right:\n%s\nwant:\n%s", got, want)
	}
	a, b, c := run(Options{Attach: Random, Seed: 3}), run(Options{Attach: Random, Seed: 3}), run(Options{Attach: Random, Seed: 4})
	if a != b {
		t.Errorf("same seed, different output:\n%s\n%s", a, b)
	}
	if a == c {
		t.Logf("seeds 3 and 4 agree on this small input (possible, unlikely)")
	}
	if !strings.Contains(a, `"heads":[2,3,0]`) {
		t.Errorf("gold heads lost: %s", a)
	}
}

// The trees drawn for a prefix of the input do not depend on what follows.
func TestRandomPrefixStable(t *testing.T) {
	s1, s2 := NewSampler(11), NewSampler(11)
	for i := range 50 {
		a := s1.Tree(3 + i%9)
		if i < 20 {
			if b := s2.Tree(3 + i%9); !slices.Equal(a, b) {
				t.Fatalf("tree %d differs: %v %v", i, a, b)
			}
		}
	}
}

func BenchmarkRandomTree_len40(b *testing.B) {
	s := NewSampler(1)
	for b.Loop() {
		s.Tree(40)
	}
}

// TestClosedFormsMatchRecurrences checks the sampler's closed-form counts
// against the split-head recurrences they replace.
func TestClosedFormsMatchRecurrences(t *testing.T) {
	s := NewSampler(1)
	const n = 80
	s.grow(n)
	complete := []*big.Int{big.NewInt(1)}
	incomplete := []*big.Int{nil}
	for m := 1; m <= n; m++ {
		inc := new(big.Int)
		for k := 0; k < m; k++ {
			inc.Add(inc, new(big.Int).Mul(complete[k], complete[m-1-k]))
		}
		incomplete = append(incomplete, inc)
		comp := new(big.Int)
		for d := 1; d <= m; d++ {
			comp.Add(comp, new(big.Int).Mul(incomplete[d], complete[m-d]))
		}
		complete = append(complete, comp)
		if s.complete[m].Cmp(comp) != 0 || s.incomplete[m].Cmp(inc) != 0 {
			t.Fatalf("m=%d: closed forms %v, %v; recurrences %v, %v", m, s.complete[m], s.incomplete[m], comp, inc)
		}
	}
}

// TestRandomTreeLongSentence draws a tree over 3,000 words: the old
// tables took O(n²) big integers (gigabytes and half a minute at 2,000).
func TestRandomTreeLongSentence(t *testing.T) {
	heads := NewSampler(5).Tree(3000)
	if err := format.ValidateHeads(heads, 3000); err != nil {
		t.Fatal(err)
	}
	roots := 0
	for i, h := range heads {
		if h == 0 {
			roots++
			continue
		}
		lo, hi := min(i+1, h), max(i+1, h)
		for k := lo + 1; k < hi; k++ { // projective: every word between is h's descendant
			a := k
			for a != 0 && a != h {
				a = heads[a-1]
			}
			if a != h {
				t.Fatalf("arc %d→%d is not projective over word %d", h, i+1, k)
			}
		}
	}
	if roots != 1 {
		t.Errorf("%d roots", roots)
	}
}
