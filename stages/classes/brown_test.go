package classes

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
)

// classCorpus generates sentences from a class bigram model: words of
// class c are "c<c>w<i>", so the classes are obvious from the names.
func classCorpus(seed uint64, sentences, classes, perClass int) []*format.Sentence {
	r := rand.New(rand.NewPCG(seed, 1))
	var out []*format.Sentence
	for i := 0; i < sentences; i++ {
		n := 2 + r.IntN(8)
		c := r.IntN(classes)
		s := &format.Sentence{ID: fmt.Sprintf("s%d", i)}
		for j := 0; j < n; j++ {
			// Zipfian choice of the word within its class.
			w := int(float64(perClass) * math.Pow(r.Float64(), 2))
			s.Words = append(s.Words, fmt.Sprintf("c%dw%d", c, w))
			s.Tags = append(s.Tags, fmt.Sprintf("C%d", c))
			c = (c + 1 + r.IntN(2)) % classes // a few successors per class
		}
		out = append(out, s)
	}
	return out
}

// bruteAMI is the AMI (nats) of a partition of the added words, the
// boundary a cluster of its own, computed from the bigrams directly:
// bigrams count when both words were added; the marginals are the whole
// text's unigram probabilities.
func bruteAMI(c *Corpus, clusters [][]int32) float64 {
	v := len(c.Types)
	of := make([]int, v+1)
	for i := range of {
		of[i] = -1
	}
	of[v] = 0 // the boundary
	for i, cl := range clusters {
		for _, w := range cl {
			of[w] = i + 1
		}
	}
	k := len(clusters) + 1
	joint := make([]float64, k*k)
	p1 := make([]float64, k)
	total := float64(c.Tokens + len(c.Sents))
	p1[0] = float64(len(c.Sents)) / total
	for i, cl := range clusters {
		for _, w := range cl {
			p1[i+1] += float64(c.Counts[w]) / total
		}
	}
	for _, s := range c.Sents {
		prev := int32(v)
		for _, w := range append(append([]int32{}, s...), int32(v)) {
			if of[prev] >= 0 && of[w] >= 0 {
				joint[of[prev]*k+of[w]]++
			}
			prev = w
		}
	}
	var ami float64
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			if n := joint[a*k+b]; n > 0 {
				p := n / total
				ami += p * math.Log(p/(p1[a]*p1[b]))
			}
		}
	}
	return ami
}

func mergedAt(clusters [][]int32, a, b int) [][]int32 {
	var out [][]int32
	for i, cl := range clusters {
		switch i {
		case a:
			out = append(out, append(append([]int32{}, cl...), clusters[b]...))
		case b:
		default:
			out = append(out, cl)
		}
	}
	return out
}

// Every merge is the best one by the objective: no other pair of the
// clusters of that moment keeps more AMI, computed by brute force; and the
// loss the updates kept equals the brute-force difference.
func TestBrownMergesAreBest(t *testing.T) {
	for _, tc := range []struct {
		seed             uint64
		classes, window  int
		sentences, words int
	}{{1, 4, 3, 60, 5}, {2, 5, 6, 120, 6}, {3, 3, 2, 40, 4}} {
		sents := classCorpus(tc.seed, tc.sentences, tc.classes, tc.words)
		c := NewCorpus(sents, false)
		merges := 0
		_, err := Brown(c, BrownOptions{Classes: tc.window, Workers: 3, Trace: func(m Merge) {
			merges++
			before := bruteAMI(c, m.Clusters)
			got := bruteAMI(c, mergedAt(m.Clusters, m.A, m.B))
			if math.Abs((before-got)-m.Loss) > 1e-9 {
				t.Errorf("seed %d merge %d: kept loss %.12g, brute force %.12g", tc.seed, merges, m.Loss, before-got)
			}
			for a := range m.Clusters {
				for b := a + 1; b < len(m.Clusters); b++ {
					if alt := bruteAMI(c, mergedAt(m.Clusters, a, b)); alt > got+1e-12 {
						t.Errorf("seed %d merge %d: merged %v and %v (AMI %.12g), but %v and %v keep %.12g", tc.seed, merges,
							m.Clusters[m.A], m.Clusters[m.B], got, m.Clusters[a], m.Clusters[b], alt)
					}
				}
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if want := len(c.Types) - 1; merges != want {
			t.Errorf("seed %d: %d merges for %d word types", tc.seed, merges, len(c.Types))
		}
	}
}

// The paths: K distinct bit strings, a prefix-free code (no class's path
// is a prefix of another's), and the AMI reported is that of the K
// classes, by brute force.
func TestBrownPaths(t *testing.T) {
	sents := classCorpus(7, 300, 4, 8)
	c := NewCorpus(sents, false)
	res, err := Brown(c, BrownOptions{Classes: 6})
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string][]int32{}
	for w, p := range res.Paths {
		if p == "" || strings.Trim(p, "01") != "" {
			t.Fatalf("word %s: path %q", c.Types[w], p)
		}
		byPath[p] = append(byPath[p], int32(w))
	}
	if len(byPath) != 6 {
		t.Fatalf("%d classes, want 6", len(byPath))
	}
	var clusters [][]int32
	for p, ws := range byPath {
		for q := range byPath {
			if p != q && strings.HasPrefix(q, p) {
				t.Errorf("path %q is a prefix of %q", p, q)
			}
		}
		clusters = append(clusters, ws)
	}
	if want := bruteAMI(c, clusters); math.Abs(res.AMI-want) > 1e-9 {
		t.Errorf("AMI %.12g, brute force %.12g", res.AMI, want)
	}
}

// The same paths for any number of workers.
func TestBrownWorkers(t *testing.T) {
	sents := classCorpus(11, 400, 6, 12)
	var first []string
	for _, w := range []int{1, 2, 5} {
		res, err := Brown(NewCorpus(sents, false), BrownOptions{Classes: 10, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res.Paths
			continue
		}
		for i := range first {
			if first[i] != res.Paths[i] {
				t.Fatalf("workers %d: word %d path %q, with 1 worker %q", w, i, res.Paths[i], first[i])
			}
		}
	}
}

// Over many merges the kept losses do not drift from the brute-force
// ones (they are updated in place, step after step), and each merge is
// still the best.
func TestBrownLongRun(t *testing.T) {
	if testing.Short() {
		t.Skip("brute force over 300 merges")
	}
	sents := classCorpus(13, 1500, 8, 60)
	c := NewCorpus(sents, false)
	merges := 0
	_, err := Brown(c, BrownOptions{Classes: 8, Workers: 2, Trace: func(m Merge) {
		merges++
		before := bruteAMI(c, m.Clusters)
		got := bruteAMI(c, mergedAt(m.Clusters, m.A, m.B))
		if d := math.Abs((before - got) - m.Loss); d > 1e-10 {
			t.Errorf("merge %d: kept loss %.12g, brute force %.12g", merges, m.Loss, before-got)
		}
		if merges%25 != 0 {
			return
		}
		for a := range m.Clusters {
			for b := a + 1; b < len(m.Clusters); b++ {
				if alt := bruteAMI(c, mergedAt(m.Clusters, a, b)); alt > got+1e-12 {
					t.Errorf("merge %d: a better pair keeps %.12g > %.12g", merges, alt, got)
				}
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if merges < 300 {
		t.Fatalf("only %d merges", merges)
	}
}
