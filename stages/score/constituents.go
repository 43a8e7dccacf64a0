package score

import (
	"fmt"
	"slices"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ptbstrip"
)

// Klein's (2005) constituent analyses of predicted brackets against gold
// trees: per-category recall LR(X) (§2.2.4, Fig. 5.8) and the tag
// sequences most often over-, under- and crossing-proposed (Figs. 5.7,
// 6.7, 6.8).

// Constituent is one node of a gold tree: its label (function tags and
// indices removed) and its span [I, J) in tokens.
type Constituent struct {
	Label string
	I, J  int
}

// GoldConstituents reads a one-line PTB tree and returns every phrase
// node (preterminals are not phrases) with its span, parents before
// children, and the number of tokens. Empty elements and the nodes they
// leave empty are removed first, as GoldBrackets does; a unary chain
// gives one node per label.
func GoldConstituents(tree string) ([]Constituent, int, error) {
	t, err := format.ParseTree(tree)
	if err != nil {
		return nil, 0, err
	}
	t = ptbstrip.StripTree(t, true)
	if t == nil {
		return nil, 0, fmt.Errorf("tree has no tokens")
	}
	if t.IsPreterminal() {
		return nil, 1, nil
	}
	// Spans need the tokens under each node, known only once its children
	// are walked: nodes are numbered on the way down and closed on the way
	// up, with a stack of our own.
	type open struct {
		t    *format.Tree
		at   int // index in out
		next int
	}
	out := []Constituent{{Label: ptbstrip.StripLabel(t.Label)}}
	stack := []open{{t: t}}
	pos := 0
	for len(stack) > 0 {
		o := &stack[len(stack)-1]
		if o.next < len(o.t.Children) {
			c := o.t.Children[o.next]
			o.next++
			if c.IsPreterminal() {
				pos++
				continue
			}
			out = append(out, Constituent{Label: ptbstrip.StripLabel(c.Label), I: pos})
			stack = append(stack, open{t: c, at: len(out) - 1})
			continue
		}
		out[o.at].J = pos
		stack = stack[:len(stack)-1]
	}
	return out, pos, nil
}

// LabelRow is LR(X) of one gold label X: its gold nodes over two or more
// tokens that are not the whole sentence, and how many of them are
// predicted brackets.
type LabelRow struct {
	Label   string  `json:"label"`
	Gold    int     `json:"gold"`
	Correct int     `json:"correct"`
	Recall  float64 `json:"recall"`
}

// SequenceRow is one yield (the tags of a span) and its brackets:
// predicted, gold and both; predicted and not gold (Over), gold and not
// predicted (Under), and over-proposed brackets that cross a gold one
// (Crossing).
type SequenceRow struct {
	Tags      []string `json:"tags"`
	Predicted int      `json:"predicted"`
	Gold      int      `json:"gold"`
	Correct   int      `json:"correct"`
	Over      int      `json:"over"`
	Under     int      `json:"under"`
	Crossing  int      `json:"crossing"`
}

// constituentAnalyzer accumulates Klein's analyses.
type constituentAnalyzer struct {
	labels    map[string]*LabelRow
	sequences map[string]*SequenceRow
	sentences int
}

func newConstituentAnalyzer() *constituentAnalyzer {
	return &constituentAnalyzer{labels: map[string]*LabelRow{}, sequences: map[string]*SequenceRow{}}
}

// addLabels counts LR(X) of one sentence of n ≥ 2 tokens: its gold nodes
// and its predicted brackets.
func (c *constituentAnalyzer) addLabels(nodes []Constituent, pred [][2]int, n int) {
	predicted := make(map[[2]int]bool, len(pred))
	for _, p := range pred {
		predicted[p] = true
	}
	for _, x := range nodes {
		// Klein ignores trivial constituents: one token, or the whole
		// sentence (always proposed).
		if x.J-x.I < 2 || x.I == 0 && x.J == n {
			continue
		}
		r := c.labels[x.Label]
		if r == nil {
			r = &LabelRow{Label: x.Label}
			c.labels[x.Label] = r
		}
		r.Gold++
		if predicted[[2]int{x.I, x.J}] {
			r.Correct++
		}
	}
}

// addSequences counts the yields of one sentence's gold and predicted
// bracket sets.
func (c *constituentAnalyzer) addSequences(tags []string, gold, pred [][2]int) {
	c.sentences++
	gold, pred = normalize(slices.Clone(gold)), normalize(slices.Clone(pred))
	row := func(b [2]int) *SequenceRow {
		y := tags[b[0]:b[1]]
		k := strings.Join(y, " ")
		r := c.sequences[k]
		if r == nil {
			r = &SequenceRow{Tags: slices.Clone(y)}
			c.sequences[k] = r
		}
		return r
	}
	inGold := make(map[[2]int]bool, len(gold))
	for _, g := range gold {
		inGold[g] = true
		row(g).Gold++
	}
	inPred := make(map[[2]int]bool, len(pred))
	for _, p := range pred {
		inPred[p] = true
		r := row(p)
		r.Predicted++
		if inGold[p] {
			r.Correct++
			continue
		}
		r.Over++
		for _, g := range gold {
			if crosses(p, g) {
				r.Crossing++
				break
			}
		}
	}
	for _, g := range gold {
		if !inPred[g] {
			row(g).Under++
		}
	}
}

// byLabel is LR(X) for every label, most gold nodes first, then by label.
func (c *constituentAnalyzer) byLabel(minCount int) []LabelRow {
	rows := []LabelRow{}
	for _, r := range c.labels {
		if r.Gold < max(minCount, 1) {
			continue
		}
		r.Recall = ratio(r.Correct, r.Gold)
		rows = append(rows, *r)
	}
	slices.SortFunc(rows, func(a, b LabelRow) int {
		if a.Gold != b.Gold {
			return b.Gold - a.Gold
		}
		return strings.Compare(a.Label, b.Label)
	})
	return rows
}

// sequenceRows are the yields with an error (over- or under-proposed at
// least minCount times, and at least once), most errors first, then by
// tags.
func (c *constituentAnalyzer) sequenceRows(minCount int) []SequenceRow {
	rows := []SequenceRow{}
	for _, r := range c.sequences {
		if max(r.Over, r.Under) < max(minCount, 1) {
			continue
		}
		rows = append(rows, *r)
	}
	slices.SortFunc(rows, func(a, b SequenceRow) int {
		if ea, eb := a.Over+a.Under, b.Over+b.Under; ea != eb {
			return eb - ea
		}
		return strings.Compare(strings.Join(a.Tags, " "), strings.Join(b.Tags, " "))
	})
	return rows
}
