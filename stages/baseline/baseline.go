// Package baseline adds trivial predicted trees to sentences, the reference
// points every grammar inducer must beat: every word attached to the next
// word, to the previous one, or a tree drawn uniformly at random from the
// projective trees with one root. It looks at lengths only, never at tags.
package baseline

import (
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Attach names a baseline.
type Attach string

const (
	Right  Attach = "right"  // head = next word, the last word is the root
	Left   Attach = "left"   // head = previous word, the first word is the root
	Random Attach = "random" // a uniform projective single-root tree
)

// ParseAttach reads the value of --attach.
func ParseAttach(s string) (Attach, error) {
	switch a := Attach(s); a {
	case Right, Left, Random:
		return a, nil
	}
	return "", fmt.Errorf("--attach must be %q, %q or %q, not %q", Left, Right, Random, s)
}

// Options choose the baseline: Attach writes "pred", Brackets writes
// "pred_spans" (one of the two is set); Seed drives the random ones.
type Options struct {
	Attach   Attach
	Brackets Bracketing
	Seed     uint64
}

// Predict copies the sentences of src to w with "pred" set by the baseline
// (replacing any earlier prediction; gold heads are kept).
func Predict(src pipeline.Source, w io.Writer, opts Options) error {
	if opts.Brackets != "" {
		return predictBrackets(src, w, opts)
	}
	var sampler *Sampler
	if opts.Attach == Random {
		sampler = NewSampler(opts.Seed)
	}
	return pipeline.EachSentence(src, func(s *format.Sentence) error {
		switch opts.Attach {
		case Right:
			s.Pred = AttachRight(s.Len())
		case Left:
			s.Pred = AttachLeft(s.Len())
		case Random:
			s.Pred = sampler.Tree(s.Len())
		default:
			return fmt.Errorf("unknown baseline %q", opts.Attach)
		}
		return pipeline.WriteRecord(w, s)
	})
}

// AttachRight makes every word's head the next word; the last is the root.
func AttachRight(n int) []int {
	heads := make([]int, n)
	for i := range n - 1 {
		heads[i] = i + 2
	}
	return heads // heads[n-1] = 0
}

// AttachLeft makes every word's head the previous word; the first is the
// root.
func AttachLeft(n int) []int {
	heads := make([]int, n)
	for i := 1; i < n; i++ {
		heads[i] = i
	}
	return heads
}

// Sampler draws projective single-root trees uniformly at random and
// exactly: choices are made with probabilities that are ratios of tree
// counts, in integers, so no length is too long and no tree is favoured by
// rounding. The same seed gives the same sequence of trees.
//
// The counts come from the split-head decomposition (Eisner): a word's
// dependents on one side form a "complete" half-span, and the number of
// such half-spans depends only on their width m (words beyond the head):
//
//	complete[0] = 1
//	complete[m] = Σ_{d=1..m} incomplete[d] · complete[m−d]    (d: the outermost dependent)
//	incomplete[d] = Σ_{k=0..d−1} complete[k] · complete[d−1−k] (head's side up to k, dependent's other side)
//	trees(n) = Σ_{r=1..n} complete[r−1] · complete[n−r]       (r: the root's child) = incomplete[n]
//
// These have closed forms, the ternary numbers complete[m] = C(3m, m)/(2m+1)
// and incomplete[d] = C(3d−2, d−1)/d, which the sampler computes in O(n)
// big-integer steps (the recurrences would take O(n²) products and their
// running sums O(n²) memory: a 2,000-word sentence took half a minute and
// gigabytes). A choice walks its terms from the first, multiplying two
// counts per term, until a uniform draw falls below the running sum.
type Sampler struct {
	rng        *rand.Rand
	complete   []*big.Int
	incomplete []*big.Int // incomplete[0] is unused
}

// NewSampler starts a sampler whose draws depend only on seed.
func NewSampler(seed uint64) *Sampler {
	return &Sampler{
		rng:        rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)),
		complete:   []*big.Int{big.NewInt(1)},
		incomplete: []*big.Int{nil, big.NewInt(1)},
	}
}

// grow extends the tables to sentences of n words, by the exact ratios of
// consecutive closed forms:
//
//	complete[m]   = complete[m−1]   · 3(3m−1)(3m−2) / (2m(2m+1))
//	incomplete[d] = incomplete[d−1] · 3(3d−2)(3d−4) / (2(2d−1)d)
func (s *Sampler) grow(n int) {
	for m := len(s.complete); m <= n; m++ {
		num := big.NewInt(int64(3 * (3*m - 1) * (3*m - 2)))
		c := new(big.Int).Mul(s.complete[m-1], num)
		s.complete = append(s.complete, c.Quo(c, big.NewInt(int64(2*m*(2*m+1)))))
	}
	for d := len(s.incomplete); d <= n; d++ {
		num := big.NewInt(int64(3 * (3*d - 2) * (3*d - 4)))
		c := new(big.Int).Mul(s.incomplete[d-1], num)
		s.incomplete = append(s.incomplete, c.Quo(c, big.NewInt(int64(2*(2*d-1)*d))))
	}
}

// Count is the number of projective trees with one root over n words.
func (s *Sampler) Count(n int) *big.Int {
	if n == 0 {
		return big.NewInt(1)
	}
	s.grow(n)
	return s.incomplete[n]
}

// choose returns j in 0..k−1 with probability term(j)/total, where total
// is the sum of the k terms.
func (s *Sampler) choose(total *big.Int, k int, term func(j int, into *big.Int)) int {
	x := s.uniform(total)
	sum, t := new(big.Int), new(big.Int)
	for j := range k - 1 {
		term(j, t)
		if sum.Add(sum, t); x.Cmp(sum) < 0 {
			return j
		}
	}
	return k - 1
}

// uniform draws an integer uniformly from [0, n) by rejection: random bits
// of n's length until the number falls below n.
func (s *Sampler) uniform(n *big.Int) *big.Int {
	if n.IsUint64() {
		return new(big.Int).SetUint64(s.rng.Uint64N(n.Uint64()))
	}
	bits := n.BitLen()
	words := make([]big.Word, (bits+63)/64)
	x := new(big.Int)
	for {
		for i := range words {
			words[i] = big.Word(s.rng.Uint64())
		}
		if extra := len(words)*64 - bits; extra > 0 {
			words[len(words)-1] >>= extra
		}
		x.SetBits(words)
		if x.Cmp(n) < 0 {
			return x
		}
	}
}

// Tree draws a head array (1-based, 0 = root) for n words.
func (s *Sampler) Tree(n int) []int {
	heads := make([]int, n)
	if n == 0 {
		return heads
	}
	s.grow(n)
	r := s.choose(s.incomplete[n], n, func(j int, t *big.Int) {
		t.Mul(s.complete[j], s.complete[n-1-j]) // root r = j+1
	}) + 1
	heads[r-1] = 0
	s.halfSpan(heads, r, r-1, -1)
	s.halfSpan(heads, r, n-r, +1)
	return heads
}

// halfSpan attaches the width words on side dir of head (1-based),
// uniformly among the ways they can hang from it.
func (s *Sampler) halfSpan(heads []int, head, width, dir int) {
	for width > 0 {
		// d: the distance of the outermost dependent.
		d := s.choose(s.complete[width], width, func(j int, t *big.Int) {
			t.Mul(s.incomplete[j+1], s.complete[width-j-1])
		}) + 1
		dep := head + dir*d
		heads[dep-1] = head
		// Between head and dep: k words on head's side, d−1−k on dep's.
		k := s.choose(s.incomplete[d], d, func(j int, t *big.Int) {
			t.Mul(s.complete[j], s.complete[d-1-j])
		})
		s.halfSpan(heads, head, k, dir)
		s.halfSpan(heads, dep, d-1-k, -dir)
		// dep's dependents beyond it, then nothing more for head.
		head, width = dep, width-d
	}
}

// predictBrackets is Predict for Options.Brackets.
func predictBrackets(src pipeline.Source, w io.Writer, opts Options) error {
	trees := NewTreeSampler(opts.Seed)
	return pipeline.EachSentence(src, func(s *format.Sentence) error {
		n := s.Len()
		switch opts.Brackets {
		case LeftBranching:
			s.PredSpans = LeftSpans(n)
		case RightBranching:
			s.PredSpans = RightSpans(n)
		case RandomTree:
			s.PredSpans = trees.Spans(n)
		case UpperBound:
			if s.Tree == "" {
				return pipeline.BadRecord(fmt.Errorf(`--brackets %s needs the gold "tree"`, UpperBound))
			}
			spans, m, err := UpperBoundSpans(s.Tree)
			if err != nil {
				return pipeline.BadRecord(fmt.Errorf("tree: %w", err))
			}
			if m != n {
				return pipeline.BadRecord(fmt.Errorf("tree has %d tokens but the sentence %d", m, n))
			}
			s.PredSpans = spans
		default:
			return fmt.Errorf("unknown bracket baseline %q", opts.Brackets)
		}
		return pipeline.WriteRecord(w, s)
	})
}
