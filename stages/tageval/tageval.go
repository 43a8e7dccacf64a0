// Package tageval scores induced part-of-speech tags against gold ones
// with the measures of the tag-induction literature (Johnson 2007 and the
// papers citing it): many-to-1 and greedy 1-to-1 accuracy, variation of
// information and its halves, V-measure, and — only when the induced tags
// are named by the gold tag set, as with a tag dictionary — plain
// accuracy, overall and on ambiguous words. It is not for attachment scores (score).
package tageval

import (
	"math"
	"sort"
)

// Counter gathers the contingency table of (gold, induced) token pairs
// and, per word, what accuracy on ambiguous words needs.
type Counter struct {
	goldID, indID map[string]int
	gold, ind     []string
	table         map[[2]int]int // (gold, induced) → tokens
	words         map[string]*wordStats
	tokens        int
	correct       int
	// classWords counts, per induced tag, its tokens by word, for the
	// words analysis; nil unless KeepWords was called.
	classWords map[int]map[string]int
}

type wordStats struct {
	tags            map[string]bool
	tokens, correct int
}

// NewCounter is an empty table.
func NewCounter() *Counter {
	return &Counter{goldID: map[string]int{}, indID: map[string]int{}, table: map[[2]int]int{}, words: map[string]*wordStats{}}
}

func intern(ids map[string]int, names *[]string, s string) int {
	id, ok := ids[s]
	if !ok {
		id = len(*names)
		ids[s] = id
		*names = append(*names, s)
	}
	return id
}

// KeepWords makes the counter keep each induced tag's words, which the
// words analysis lists.
func (c *Counter) KeepWords() { c.classWords = map[int]map[string]int{} }

// Add counts one token; word may be "" when the sentences have no words
// (then no token is ambiguous).
func (c *Counter) Add(word, gold, induced string) {
	g := intern(c.goldID, &c.gold, gold)
	i := intern(c.indID, &c.ind, induced)
	c.table[[2]int{g, i}]++
	c.tokens++
	ok := gold == induced
	if ok {
		c.correct++
	}
	if word != "" && c.classWords != nil {
		if c.classWords[i] == nil {
			c.classWords[i] = map[string]int{}
		}
		c.classWords[i][word]++
	}
	if word != "" {
		ws := c.words[word]
		if ws == nil {
			ws = &wordStats{tags: map[string]bool{}}
			c.words[word] = ws
		}
		ws.tags[gold] = true
		ws.tokens++
		if ok {
			ws.correct++
		}
	}
}

// Report is every measure, fractions in [0, 1], entropies in bits: the
// tag part of a scores record (score-tags, select-model and report write
// it alike; the record around it holds "sentences" and "tokens").
type Report struct {
	Tokens      int     `json:"-"` // the record's "tokens"
	GoldTags    int     `json:"gold_tags"`
	InducedTags int     `json:"induced_tags"`
	ManyToOne   float64 `json:"many_to_1"`
	OneToOne    float64 `json:"one_to_1"`
	VI          float64 `json:"vi"`
	// HGoldGivenInduced and HInducedGivenGold are VI's halves.
	HGoldGivenInduced float64 `json:"h_gold_given_induced"`
	HInducedGivenGold float64 `json:"h_induced_given_gold"`
	HGold             float64 `json:"h_gold"`
	HInduced          float64 `json:"h_induced"`
	Homogeneity       float64 `json:"homogeneity"`
	Completeness      float64 `json:"completeness"`
	VMeasure          float64 `json:"v_measure"`
	// Accuracy counts tokens whose induced tag is their gold tag: it
	// means something only when the states are named by the gold tags
	// (some induced tag is a gold tag, as under a tag dictionary), and is
	// nil otherwise.
	Accuracy *float64 `json:"accuracy,omitempty"`
	// Ambiguous tokens are those of words seen with more than one gold
	// tag in the scored data (the full dictionary of that data); their
	// accuracy is nil with Accuracy, or when there are none.
	AmbiguousTokens   int      `json:"ambiguous_tokens"`
	AmbiguousAccuracy *float64 `json:"ambiguous_accuracy,omitempty"`
	// OneToOneMap is the greedy 1-to-1 pairing, induced → gold.
	OneToOneMap map[string]string `json:"one_to_1_map"`
	// The error analyses of --analysis (analysis.go).
	ErrorAnalyses
}

// cell is one (gold, induced) pair of the table and its tokens.
type cell struct{ g, i, n int }

// sortedCells are the table's cells, most tokens first, ties by induced
// then gold name: the order of the greedy 1-to-1 matching, and in which
// the first cell of an induced tag is its many-to-1 one.
func (c *Counter) sortedCells() []cell {
	cells := make([]cell, 0, len(c.table))
	for k, v := range c.table {
		cells = append(cells, cell{k[0], k[1], v})
	}
	sort.Slice(cells, func(a, b int) bool {
		x, y := cells[a], cells[b]
		if x.n != y.n {
			return x.n > y.n
		}
		if c.ind[x.i] != c.ind[y.i] {
			return c.ind[x.i] < c.ind[y.i]
		}
		return c.gold[x.g] < c.gold[y.g]
	})
	return cells
}

// Report computes the measures; an empty table gives zeros.
func (c *Counter) Report() Report {
	r := Report{Tokens: c.tokens, GoldTags: len(c.gold), InducedTags: len(c.ind), OneToOneMap: map[string]string{}}
	if c.tokens == 0 {
		return r
	}
	n := float64(c.tokens)
	cells := c.sortedCells()
	bestOfInduced := make([]int, len(c.ind))
	goldN := make([]float64, len(c.gold))
	indN := make([]float64, len(c.ind))
	usedG, usedI := make([]bool, len(c.gold)), make([]bool, len(c.ind))
	matched := 0
	hJoint := 0.0
	for _, x := range cells {
		bestOfInduced[x.i] = max(bestOfInduced[x.i], x.n)
		goldN[x.g] += float64(x.n)
		indN[x.i] += float64(x.n)
		if !usedG[x.g] && !usedI[x.i] {
			usedG[x.g], usedI[x.i] = true, true
			matched += x.n
			r.OneToOneMap[c.ind[x.i]] = c.gold[x.g]
		}
		p := float64(x.n) / n
		hJoint -= p * math.Log2(p)
	}
	m1 := 0
	for _, b := range bestOfInduced {
		m1 += b
	}
	r.ManyToOne = float64(m1) / n
	r.OneToOne = float64(matched) / n
	r.HGold, r.HInduced = entropy(goldN, n), entropy(indN, n)
	r.HGoldGivenInduced = max(0, hJoint-r.HInduced)
	r.HInducedGivenGold = max(0, hJoint-r.HGold)
	r.VI = r.HGoldGivenInduced + r.HInducedGivenGold
	// Rosenberg & Hirschberg: h = 1 when the gold tagging has no entropy,
	// c = 1 when the induced one has none.
	r.Homogeneity, r.Completeness = 1, 1
	if r.HGold > 0 {
		r.Homogeneity = 1 - r.HGoldGivenInduced/r.HGold
	}
	if r.HInduced > 0 {
		r.Completeness = 1 - r.HInducedGivenGold/r.HInduced
	}
	if r.Homogeneity+r.Completeness > 0 {
		r.VMeasure = 2 * r.Homogeneity * r.Completeness / (r.Homogeneity + r.Completeness)
	}
	amb, ambOK := 0, 0
	for _, ws := range c.words {
		if len(ws.tags) > 1 {
			amb += ws.tokens
			ambOK += ws.correct
		}
	}
	r.AmbiguousTokens = amb
	if c.Named() {
		acc := float64(c.correct) / n
		r.Accuracy = &acc
		if amb > 0 {
			a := float64(ambOK) / float64(amb)
			r.AmbiguousAccuracy = &a
		}
	}
	return r
}

// Named says whether the induced tags are named by the gold tags (some
// induced tag is a gold tag, as under a tag dictionary), so that their
// accuracy means something; induced states (s0, s1, …) have none.
func (c *Counter) Named() bool {
	for _, t := range c.ind {
		if _, ok := c.goldID[t]; ok {
			return true
		}
	}
	return false
}

func entropy(counts []float64, n float64) float64 {
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := c / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
