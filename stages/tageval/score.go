package tageval

import (
	"errors"
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Options choose which tokens count.
type Options struct {
	// Exclude lists gold tags whose tokens are not counted (by default
	// every token counts, punctuation included, as in the papers).
	Exclude []string
}

// ReadTagged reads sentences whose tags are induced and whose gold_tags
// are the reference; a sentence without gold_tags is an error at its line.
func ReadTagged(src pipeline.Source) ([]*format.Sentence, error) {
	var sents []*format.Sentence
	err := pipeline.EachSentence(src, func(s *format.Sentence) error {
		if s.GoldTags == nil {
			return pipeline.BadRecord(errors.New("sentence has no gold_tags to score its tags against"))
		}
		sents = append(sents, s)
		return nil
	})
	if err == nil && len(sents) == 0 {
		err = fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	return sents, err
}

// Score reports the measures over the sentences' tokens.
func Score(sents []*format.Sentence, o Options) Report {
	skip := excluded(o)
	c := NewCounter()
	for _, s := range sents {
		for i, g := range s.GoldTags {
			if skip[g] {
				continue
			}
			w := ""
			if s.Words != nil {
				w = s.Words[i]
			}
			c.Add(w, g, s.Tags[i])
		}
	}
	return c.Report()
}

func excluded(o Options) map[string]bool {
	skip := map[string]bool{}
	for _, t := range o.Exclude {
		skip[t] = true
	}
	return skip
}

// WriteText writes the report for people.
func WriteText(w io.Writer, r Report, sents int) error {
	_, err := fmt.Fprintf(w, `sentences         %d
tokens            %d (%d gold tags, %d induced)
many-to-1         %.4f
1-to-1 (greedy)   %.4f
VI                %.4f bits  (H(G|I) %.4f, H(I|G) %.4f)
V-measure         %.4f  (homogeneity %.4f, completeness %.4f)
accuracy          %.4f  (ambiguous words: %.4f on %d tokens)
`, sents, r.Tokens, r.GoldTags, r.InducedTags, r.ManyToOne, r.OneToOne, r.VI, r.HGoldGivenInduced, r.HInducedGivenGold,
		r.VMeasure, r.Homogeneity, r.Completeness, r.Accuracy, r.AmbiguousAccuracy, r.AmbiguousTokens)
	return err
}
