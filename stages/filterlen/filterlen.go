// Package filterlen keeps the sentences whose length lies in a range, the
// usual way of making WSJ10-style training sets.
package filterlen

import (
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Options bound the kept lengths: Min ≤ n ≤ Max.
type Options struct {
	Min, Max int
}

// Filter copies the sentences of src whose length is within opts to w:
// their tokens, or of raw text (words and no tags) their words.
func Filter(src pipeline.Source, w io.Writer, opts Options) error {
	return pipeline.EachWordSentence(src, func(s *format.Sentence) error {
		if n := max(s.Len(), len(s.Words)); n < opts.Min || n > opts.Max {
			return nil
		}
		return pipeline.WriteRecord(w, s)
	})
}
