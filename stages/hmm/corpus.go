package hmm

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Corpus is a training set held in memory with its words interned.
type Corpus struct {
	Words  []string // word types, in order of first occurrence
	index  map[string]int32
	Sents  [][]int32
	Source []*format.Sentence
	Tokens int
	MaxLen int
}

// CheckSentence refuses a sentence the HMM cannot read: one without
// words, which are all it reads, or with an empty one.
func CheckSentence(s *format.Sentence) error {
	if len(s.Words) == 0 {
		return errors.New(`sentence has no "words": an HMM tags words`)
	}
	for i, w := range s.Words {
		if w == "" {
			// A model would hold an emission of no word, which its
			// readers refuse.
			return fmt.Errorf("token %d has an empty word: an HMM tags words", i+1)
		}
	}
	return nil
}

// CheckDictTags refuses a sentence whose reference tags (GoldTags, else
// Tags) --dict would make states and the model's records could not tell
// from the boundary state.
func CheckDictTags(s *format.Sentence) error {
	gold := s.GoldTags
	if gold == nil {
		gold = s.Tags
	}
	if len(gold) == 0 {
		return errors.New(`sentence has no tags: --dict builds the tag dictionary from the gold tags ("tags" or "gold_tags")`)
	}
	for i, t := range gold {
		if t == Boundary {
			return fmt.Errorf("token %d has the gold tag %q, the HMM's sentence boundary, which --dict would make a state: give it another name (tagmap)", i+1, Boundary)
		}
	}
	return nil
}

// NewCorpus interns the sentences' words. Every sentence needs words.
func NewCorpus(sents []*format.Sentence) (*Corpus, error) {
	c := &Corpus{index: map[string]int32{}, Source: sents}
	for i, s := range sents {
		if len(s.Words) == 0 {
			return nil, fmt.Errorf("sentence %d (%s) has no words: an HMM tagger learns from words", i+1, s.ID)
		}
		ids := make([]int32, len(s.Words))
		for j, w := range s.Words {
			id, ok := c.index[w]
			if !ok {
				id = int32(len(c.Words))
				c.index[w] = id
				c.Words = append(c.Words, w)
			}
			ids[j] = id
		}
		c.Sents = append(c.Sents, ids)
		c.Tokens += len(ids)
		c.MaxLen = max(c.MaxLen, len(ids))
	}
	return c, nil
}

// GoldTags are a sentence's reference tags: gold_tags when a tagger has
// already written into tags, else tags.
func GoldTags(s *format.Sentence) []string {
	if s.GoldTags != nil {
		return s.GoldTags
	}
	return s.Tags
}

// GoldTagCount is the number of distinct gold tags of the corpus, the
// states of its dictionary (BuildDict), counted before the dictionary's
// V × K flags are made.
func GoldTagCount(c *Corpus) int {
	seen := map[string]bool{}
	for _, s := range c.Source {
		for _, t := range GoldTags(s) {
			seen[t] = true
		}
	}
	return len(seen)
}

// Dict is a tag dictionary: the states are the gold tags (sorted), and
// each word may take only the tags it was seen with — if it was seen
// often enough (Merialdo; Smith & Eisner §4). Rarer words may take any
// tag.
type Dict struct {
	Tags    []string
	Allowed []bool // V × K, word-major, as Space.Allowed
	// Ambiguous[w] says whether word w may take more than one tag.
	Ambiguous []bool
}

// BuildDict builds the dictionary from the corpus's own gold tags: a word
// seen at least minCount times (1 = the full dictionary) is restricted to
// the tags it was seen with.
func BuildDict(c *Corpus, minCount int) (*Dict, error) {
	seen := map[string]bool{}
	var tags []string
	for i, s := range c.Source {
		g := GoldTags(s)
		if len(g) != len(c.Sents[i]) {
			return nil, fmt.Errorf("sentence %d (%s): %d tags for %d words", i+1, s.ID, len(g), len(c.Sents[i]))
		}
		for _, t := range g {
			if !seen[t] {
				seen[t] = true
				tags = append(tags, t)
			}
		}
	}
	sort.Strings(tags)
	tagID := map[string]int{}
	for i, t := range tags {
		tagID[t] = i
	}
	k, v := len(tags), len(c.Words)
	with := make([]bool, v*k)
	count := make([]int, v)
	for i, s := range c.Source {
		for j, t := range GoldTags(s) {
			w := c.Sents[i][j]
			with[int(w)*k+tagID[t]] = true
			count[w]++
		}
	}
	d := &Dict{Tags: tags, Allowed: make([]bool, v*k), Ambiguous: make([]bool, v)}
	for w := 0; w < v; w++ {
		n := 0
		for t := 0; t < k; t++ {
			a := count[w] < minCount || with[w*k+t]
			d.Allowed[w*k+t] = a
			if a {
				n++
			}
		}
		d.Ambiguous[w] = n > 1
	}
	return d, nil
}

// StateNames names K states "s0" … "s(K−1)" when there is no dictionary.
func StateNames(k int) []string {
	names := make([]string, k)
	for i := range names {
		names[i] = fmt.Sprintf("s%d", i)
	}
	return names
}

// WriteTagged writes the corpus's sentences with the induced states in
// tags and the reference tags in gold_tags (kept when already there).
func WriteTagged(w io.Writer, c *Corpus, states []string, tags [][]int) error {
	for i, s := range c.Source {
		out := *s
		out.GoldTags = GoldTags(s)
		out.Tags = make([]string, len(tags[i]))
		for j, t := range tags[i] {
			out.Tags[j] = states[t]
		}
		if err := pipeline.WriteRecord(w, &out); err != nil {
			return err
		}
	}
	return nil
}
