package tageval

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Options choose which tokens count.
type Options struct {
	// Exclude lists gold tags whose tokens are not counted (by default
	// every token counts, punctuation included, as in the papers).
	Exclude []string
	// Analyses are the error analyses to add (analysis.go); AllAnalyses
	// (--analysis all) leaves out those the sentences do not allow
	// instead of failing.
	Analyses    []Analysis
	AllAnalyses bool
	// Words is how many words of each induced tag the words analysis
	// keeps (0: every one).
	Words int
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

// Score reports the measures over the sentences' tokens, and the
// analyses o asks for.
func Score(sents []*format.Sentence, o Options) (Report, error) {
	skip := excluded(o)
	c := NewCounter()
	if slices.Contains(o.Analyses, AnalysisWords) {
		c.KeepWords()
	}
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
	r := c.Report()
	if c.tokens == 0 {
		return r, nil // no analysis of nothing: the caller says so
	}
	err := c.analyse(&r, o)
	return r, err
}

func excluded(o Options) map[string]bool {
	skip := map[string]bool{}
	for _, t := range o.Exclude {
		skip[t] = true
	}
	return skip
}

// WriteText writes the report for people: shares in percent, entropies
// in bits; accuracy only when the induced tags are named by the gold tags.
func WriteText(w io.Writer, r Report, sents int) error {
	pct := func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }
	b := fmt.Appendf(nil, `sentences         %d
tokens            %d (%d gold tags, %d induced)
many-to-1         %s
1-to-1 (greedy)   %s
VI                %.4f bits  (H(G|I) %.4f, H(I|G) %.4f)
V-measure         %s  (homogeneity %s, completeness %s)
`, sents, r.Tokens, r.GoldTags, r.InducedTags, pct(r.ManyToOne), pct(r.OneToOne), r.VI, r.HGoldGivenInduced, r.HInducedGivenGold,
		pct(r.VMeasure), pct(r.Homogeneity), pct(r.Completeness))
	if r.Accuracy != nil {
		b = fmt.Appendf(b, "accuracy          %s", pct(*r.Accuracy))
		if r.AmbiguousAccuracy != nil {
			b = fmt.Appendf(b, "  (ambiguous words: %s on %d tokens)", pct(*r.AmbiguousAccuracy), r.AmbiguousTokens)
		}
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}
