package baseline

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/bintree"
	"github.com/grind-nlp/grind/stages/ptbstrip"
)

// Bracketing names a bracket baseline (Klein §2.3.1), written to
// "pred_spans" as binary bracketings: every span of two or more tokens,
// the whole sentence included.
type Bracketing string

const (
	LeftBranching  Bracketing = "left"   // (0,2), (0,3), …, (0,n)
	RightBranching Bracketing = "right"  // (n−2,n), …, (0,n)
	RandomTree     Bracketing = "random" // a binary tree drawn uniformly
	UpperBound     Bracketing = "ubound" // the gold tree, binarised: the best binary bracketing
)

// ParseBracketing reads the value of --brackets.
func ParseBracketing(s string) (Bracketing, error) {
	switch b := Bracketing(s); b {
	case LeftBranching, RightBranching, RandomTree, UpperBound:
		return b, nil
	}
	return "", fmt.Errorf("--brackets must be %q, %q, %q or %q, not %q", LeftBranching, RightBranching, RandomTree, UpperBound, s)
}

// LeftSpans is the left-branching bracketing of n tokens.
func LeftSpans(n int) [][2]int {
	var spans [][2]int
	for j := 2; j <= n; j++ {
		spans = append(spans, [2]int{0, j})
	}
	return spans
}

// RightSpans is the right-branching bracketing of n tokens.
func RightSpans(n int) [][2]int {
	var spans [][2]int
	for i := n - 2; i >= 0; i-- {
		spans = append(spans, [2]int{i, n})
	}
	return spans
}

// TreeSampler draws binary trees uniformly over n leaves: the split of a
// span of m leaves falls after k leaves with probability
// Cat(k−1)·Cat(m−k−1)/Cat(m−1), computed from log-Catalan numbers in
// floating point (uniform up to rounding, at any length).
type TreeSampler struct {
	rng *rand.Rand
}

// NewTreeSampler starts a sampler whose draws depend only on seed.
func NewTreeSampler(seed uint64) *TreeSampler {
	return &TreeSampler{rng: rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))}
}

// Spans draws the bracketing of one tree over n leaves.
func (s *TreeSampler) Spans(n int) [][2]int {
	var spans [][2]int
	var build func(i, j int)
	build = func(i, j int) {
		m := j - i
		if m < 2 {
			return
		}
		spans = append(spans, [2]int{i, j})
		x := s.rng.Float64()
		k := 1
		for ; k < m-1; k++ {
			x -= math.Exp(bintree.LogCatalan(k-1) + bintree.LogCatalan(m-k-1) - bintree.LogCatalan(m-1))
			if x < 0 {
				break
			}
		}
		build(i, i+k)
		build(i+k, j)
	}
	build(0, n)
	return spans
}

// UpperBoundSpans binarises a one-line PTB tree (empty elements removed,
// punctuation kept, as the scorer reads it) and returns its brackets: every
// gold bracket plus, in each node of three or more children, the
// right-branching brackets over its children. Any binarisation scores the
// same (all gold brackets, n − 1 brackets in all). n is the tree's length.
func UpperBoundSpans(tree string) (spans [][2]int, n int, err error) {
	t, err := format.ParseTree(tree)
	if err != nil {
		return nil, 0, err
	}
	if t = ptbstrip.StripTree(t, true); t == nil {
		return nil, 0, errors.New("tree has no tokens")
	}
	seen := map[[2]int]bool{}
	addSpan := func(i, j int) {
		if j-i >= 2 && !seen[[2]int{i, j}] {
			seen[[2]int{i, j}] = true
			spans = append(spans, [2]int{i, j})
		}
	}
	n = t.EachPhrase(func(ends []int) {
		j := ends[len(ends)-1]
		addSpan(ends[0], j)
		for k := 1; k < len(ends)-2; k++ {
			addSpan(ends[k], j)
		}
	})
	return spans, n, nil
}
