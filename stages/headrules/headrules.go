// Package headrules turns Penn Treebank constituency trees into dependency
// trees with head rules: Collins (1999), the gold standard of Klein &
// Manning, Smith & Eisner and Spitkovsky et al., or Yamada & Matsumoto
// (2003, Penn2Malt), the conversion behind NLTK's dependency treebank. It
// is the stage of ptb2deps. Trees are stripped first (package ptbstrip);
// labels are not learnt here, and no dependency labels are produced.
package headrules

import (
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ptbstrip"
)

// Rule tables.
const (
	Collins = "collins"
	YM      = "ym"
)

// Coordination choices for Collins' rules: when the head child follows a
// CC that is not the first child, the head moves to the child before the
// CC (skipping punctuation) — everywhere but in base NPs (CoordCollins),
// everywhere (CoordAlways), or never (CoordNever). Yamada & Matsumoto's
// rules have no coordination rule.
const (
	CoordCollins = "collins"
	CoordAlways  = "always"
	CoordNever   = "never"
)

// Options of a conversion.
type Options struct {
	Rules     string // Collins or YM
	Coord     string // CoordCollins, CoordAlways or CoordNever; "" is CoordCollins
	KeepPunct bool   // keep punctuation tokens (ptbstrip.IsPunct)
	Tree      bool   // add the stripped bracketing as "tree"
	DTHeads   bool   // an NP with a DT child is headed by it (Converter.DTHeads)
}

// Convert writes one sentence record ("id", "words", "tags", "heads", and
// "tree" with opts.Tree) per tree of src, read as ptbstrip.EachTree reads
// them.
func Convert(src pipeline.Source, w io.Writer, opts Options) (ptbstrip.Summary, error) {
	conv, err := New(opts.Rules, opts.Coord)
	if err != nil {
		return ptbstrip.Summary{}, err
	}
	conv.DTHeads = opts.DTHeads
	return ptbstrip.EachTree(src, opts.KeepPunct, func(id string, t *format.Tree) error {
		s := conv.Sentence(t)
		s.ID = id
		if opts.Tree {
			s.Tree = t.String()
		}
		return pipeline.WriteRecord(w, s)
	})
}

// Converter finds the heads of stripped trees with one table. It keeps
// scratch space, so one Converter serves one goroutine.
type Converter struct {
	table *table
	coord string
	// DTHeads makes the determiner the head of its noun phrase: an NP
	// with a DT among its children is headed by the leftmost one, whatever
	// the table and the coordination rule say — the "gold headship rule
	// … changed to percolate determiners when present" of Klein (2005
	// §6.2), against which the DMV's determiner-headed NPs score. Only DT
	// counts (not PDT, PRP$, WDT or a possessor), and only as a child of
	// the NP itself: an NP above it takes it through its head child.
	DTHeads    bool
	childHeads []int
}

// New makes a converter for a rule table and a coordination choice.
func New(rules, coord string) (*Converter, error) {
	c := &Converter{coord: coord}
	switch rules {
	case Collins:
		c.table = collinsTable
	case YM:
		c.table = ymTable
	default:
		return nil, fmt.Errorf("unknown head rules %q (want %q or %q)", rules, Collins, YM)
	}
	switch coord {
	case "":
		c.coord = CoordCollins
	case CoordCollins, CoordAlways, CoordNever:
	default:
		return nil, fmt.Errorf("unknown coordination rule %q (want %q, %q or %q)", coord, CoordCollins, CoordAlways, CoordNever)
	}
	if rules == YM {
		c.coord = CoordNever
	}
	return c, nil
}

// Sentence is the dependency tree of a stripped tree (ptbstrip.StripTree):
// its words, tags and heads (1-based, 0 for the root).
func (c *Converter) Sentence(t *format.Tree) *format.Sentence {
	n := countTokens(t)
	s := &format.Sentence{Words: make([]string, n), Tags: make([]string, n), Heads: make([]int, n)}
	next := 0
	root, _ := c.head(t, s, &next)
	s.Heads[root] = 0
	return s
}

func countTokens(t *format.Tree) int {
	n := 0
	stack := []*format.Tree{t}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if t.IsPreterminal() {
			n++
		}
		stack = append(stack, t.Children...)
	}
	return n
}

// head finds the lexical head of root (a 0-based token index), attaching
// the lexical heads of each phrase's other children to the phrase's head
// in s.Heads; next numbers the tokens, whose words and tags go to s. It
// also tells whether root is or holds an NP, for the base-NP test. The
// walk is post-order with a stack of its own, so that no depth overflows
// Go's.
func (c *Converter) head(root *format.Tree, s *format.Sentence, next *int) (head int, hasNP bool) {
	type frame struct {
		n     *format.Tree
		next  int  // the next child to visit
		base  int  // where the children's heads start in c.childHeads
		below bool // a child is or holds an NP
	}
	var stack []frame
	n := root
	for {
		for !n.IsPreterminal() {
			stack = append(stack, frame{n: n, next: 1, base: len(c.childHeads)})
			n = n.Children[0]
		}
		i := *next
		*next++
		s.Words[i], s.Tags[i] = n.Word, n.Label
		head, hasNP = i, false
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			isNP := f.n.Label == "NP"
			if len(f.n.Children) == 1 {
				hasNP = hasNP || isNP
				stack = stack[:len(stack)-1]
				continue
			}
			c.childHeads = append(c.childHeads, head)
			f.below = f.below || hasNP
			if f.next < len(f.n.Children) {
				n = f.n.Children[f.next]
				f.next++
				break
			}
			hs := c.childHeads[f.base:]
			k := c.table.pick(f.n.Label, f.n.Children)
			if c.coord == CoordAlways || c.coord == CoordCollins && !(isNP && !f.below) {
				k = coordinate(f.n.Children, k)
			}
			if c.DTHeads && isNP {
				k = determiner(f.n.Children, k)
			}
			for j, h := range hs {
				if j != k {
					s.Heads[h] = hs[k] + 1
				}
			}
			head, hasNP = hs[k], f.below || isNP
			c.childHeads = c.childHeads[:f.base]
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return head, hasNP
		}
	}
}

// coordinate applies Collins' coordination rule: a head child right after
// a CC that is not the first child gives way to the child before the CC,
// punctuation skipped.
func coordinate(kids []*format.Tree, k int) int {
	if k < 2 || kids[k-1].Label != "CC" {
		return k
	}
	for j := k - 2; j >= 0; j-- {
		if !isPunctChild(kids[j]) {
			return j
		}
	}
	return k
}

// determiner is the leftmost DT child of kids, or k when there is none.
func determiner(kids []*format.Tree, k int) int {
	for i, kid := range kids {
		if kid.IsPreterminal() && kid.Label == "DT" {
			return i
		}
	}
	return k
}

// isPunctChild tells the punctuation that head rules pass over, seven of
// the nine punctuation tags (not # and $, which head quantities):
//
//	`` '' , . : -LRB- -RRB-
func isPunctChild(t *format.Tree) bool {
	if !t.IsPreterminal() {
		return false
	}
	switch t.Label {
	case "``", "''", ",", ".", ":", "-LRB-", "-RRB-":
		return true
	}
	return false
}

// table is one set of head rules.
type table struct {
	name  string
	rules map[string][]rule
	// skipPunct: when no rule matches, take the first child that is not
	// punctuation (Yamada & Matsumoto) rather than the first child.
	skipPunct bool
}

// rule is one line of a label's rules. With anyOf false (L, R), each
// category in priority order is looked for among all children; with anyOf
// true (LD, RD), the first child that is any of them wins. fromRight scans
// the children right to left.
type rule struct {
	fromRight, anyOf bool
	cats             []string
}

// pick chooses the head child of a node with two children or more.
func (t *table) pick(label string, kids []*format.Tree) int {
	rules, ok := t.rules[label]
	fromRight := false // labels missing from the table: leftmost
	if ok {
		for _, r := range rules {
			if k := r.find(kids); k >= 0 {
				return k
			}
		}
		fromRight = rules[len(rules)-1].fromRight
	}
	if t.skipPunct {
		for i := range kids {
			k := i
			if fromRight {
				k = len(kids) - 1 - i
			}
			if !isPunctChild(kids[k]) {
				return k
			}
		}
	}
	if fromRight {
		return len(kids) - 1
	}
	return 0
}

// find returns the child the rule picks, or -1.
func (r rule) find(kids []*format.Tree) int {
	at := func(i int) int {
		if r.fromRight {
			return len(kids) - 1 - i
		}
		return i
	}
	if r.anyOf {
		for i := range kids {
			k := at(i)
			for _, cat := range r.cats {
				if kids[k].Label == cat {
					return k
				}
			}
		}
		return -1
	}
	for _, cat := range r.cats {
		for i := range kids {
			if k := at(i); kids[k].Label == cat {
				return k
			}
		}
	}
	return -1
}
