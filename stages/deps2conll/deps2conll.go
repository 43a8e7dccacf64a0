// Package deps2conll writes sentence records as CoNLL-U or CoNLL-X, for
// other tools and external evaluators. It keeps what a sentence record
// has (words, tags, heads or predicted heads) and nothing more: lemmas,
// features and real dependency labels are not invented.
package deps2conll

import (
	"errors"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Options of the output.
type Options struct {
	Dialect format.CoNLLDialect
	// Pred writes the predicted heads ("pred") in the HEAD column instead
	// of the gold ones ("heads").
	Pred bool
}

// Write writes every sentence of src to w.
func Write(src pipeline.Source, w io.Writer, opts Options) error {
	var buf []byte
	return pipeline.EachSentence(src, func(s *format.Sentence) error {
		cs, err := ToCoNLL(s, opts.Pred)
		if err != nil {
			return pipeline.BadRecord(err)
		}
		buf, err = format.AppendCoNLL(buf[:0], cs, opts.Dialect)
		if err != nil {
			return pipeline.BadRecord(err)
		}
		_, err = w.Write(buf)
		return err
	})
}

// ToCoNLL lays a sentence out in CoNLL columns: FORM is the word (the tag
// when the sentence has no words), the tag goes in both UPOS and XPOS,
// HEAD comes from heads (or pred), and DEPREL is "root" or "dep" ("_" with
// HEAD when the sentence has no heads). The id becomes the sent_id.
func ToCoNLL(s *format.Sentence, pred bool) (*format.CoNLLSentence, error) {
	heads := s.Heads
	if pred {
		if s.Pred == nil {
			return nil, errors.New(`record has no "pred" to write (drop --pred to write "heads")`)
		}
		heads = s.Pred
	}
	cs := &format.CoNLLSentence{ID: s.ID, Tokens: make([]format.CoNLLToken, s.Len())}
	for i, tag := range s.Tags {
		t := format.CoNLLToken{Lemma: "_", UPOS: tag, XPOS: tag, Feats: "_", Head: format.NoHead, Deprel: "_", Deps: "_", Misc: "_"}
		t.Form = tag
		if s.Words != nil {
			t.Form = s.Words[i]
		}
		if heads != nil {
			t.Head, t.Deprel = heads[i], "dep"
			if t.Head == 0 {
				t.Deprel = "root"
			}
		}
		cs.Tokens[i] = t
	}
	return cs, nil
}
