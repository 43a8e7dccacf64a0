// Package classes induces word classes from the words of sentence
// records — Klein's distributional classes (context vectors, an SVD,
// weighted k-means; Klein 2005 §2.1.4, §3.3) and Brown clustering
// (Brown et al. 1992, with the window of the most frequent words of
// Liang's brown-cluster) — and keeps them in a class model that tags new
// text, words it never saw included (unseen.go).
package classes

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Corpus is a training set held in memory with its words interned: word
// types in order of decreasing count (ties by the word's bytes), so that
// the type index is the frequency rank.
type Corpus struct {
	Types  []string // word types, most frequent first
	Counts []int    // tokens of each type
	Sents  [][]int32
	Source []*format.Sentence
	Tokens int
}

// ReadSentences reads the sentences of src, each with words; tags are
// optional (raw text has none), and are kept as the reference when
// present.
func ReadSentences(src pipeline.Source) ([]*format.Sentence, error) {
	var sents []*format.Sentence
	err := pipeline.EachRecord(src, func(s *format.Sentence, _ *pipeline.Lines) error {
		if err := checkSentence(s); err != nil {
			return pipeline.BadRecord(err)
		}
		sents = append(sents, s)
		return nil
	})
	if err == nil && len(sents) == 0 {
		err = fmt.Errorf("%s: no sentences: word classes need a corpus with words", pipeline.DescribeInputs(src.Names))
	}
	return sents, err
}

// checkSentence is format's check of a sentence that may have words and
// no tags (Sentence.ValidateWords), and refuses one without words.
func checkSentence(s *format.Sentence) error {
	if err := s.ValidateWords(); err != nil {
		return err
	}
	if len(s.Words) == 0 {
		return fmt.Errorf("sentence has no words: word classes are learned from words")
	}
	for i, w := range s.Words {
		if w == "" {
			return fmt.Errorf("word %d is empty", i+1)
		}
	}
	return nil
}

// NewCorpus interns the words of sents, lowercased when lower is set.
func NewCorpus(sents []*format.Sentence, lower bool) *Corpus {
	index := map[string]int32{}
	var types []string
	var counts []int
	c := &Corpus{Source: sents, Sents: make([][]int32, len(sents))}
	for i, s := range sents {
		ids := make([]int32, len(s.Words))
		for j, w := range s.Words {
			if lower {
				w = strings.ToLower(w)
			}
			id, ok := index[w]
			if !ok {
				id = int32(len(types))
				index[w] = id
				types = append(types, w)
				counts = append(counts, 0)
			}
			counts[id]++
			ids[j] = id
		}
		c.Sents[i] = ids
		c.Tokens += len(ids)
	}
	// Renumber by rank: the algorithms take the most frequent words first.
	order := make([]int32, len(types))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := order[a], order[b]
		if counts[x] != counts[y] {
			return counts[x] > counts[y]
		}
		return types[x] < types[y]
	})
	rank := make([]int32, len(types))
	c.Types, c.Counts = make([]string, len(types)), make([]int, len(types))
	for r, old := range order {
		rank[old] = int32(r)
		c.Types[r], c.Counts[r] = types[old], counts[old]
	}
	for _, ids := range c.Sents {
		for j, id := range ids {
			ids[j] = rank[id]
		}
	}
	return c
}

// checkClasses refuses a number of classes the corpus cannot give.
func checkClasses(c *Corpus, k int) error {
	switch {
	case k < 2:
		return fmt.Errorf("%d classes: at least 2", k)
	case len(c.Types) == 1:
		return fmt.Errorf("the corpus has one word type (%q): there is nothing to cluster", c.Types[0])
	case k > len(c.Types):
		return fmt.Errorf("%d classes for %d word types: ask for at most as many classes as there are word types", k, len(c.Types))
	}
	return nil
}

// goldTags are a sentence's reference tags: gold_tags when a tagger has
// already written into tags, else tags (nil for raw text).
func goldTags(s *format.Sentence) []string {
	if s.GoldTags != nil {
		return s.GoldTags
	}
	if len(s.Tags) == 0 {
		return nil
	}
	return s.Tags
}

// WriteTagged writes each sentence with tags[i] in "tags" and its
// reference tags in "gold_tags".
func WriteTagged(w io.Writer, sents []*format.Sentence, tags [][]string) error {
	for i, s := range sents {
		out := *s
		out.GoldTags = goldTags(s)
		out.Tags = tags[i]
		if err := pipeline.WriteRecord(w, &out); err != nil {
			return err
		}
	}
	return nil
}
