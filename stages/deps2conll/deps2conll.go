// Package deps2conll writes sentence records as CoNLL-U or CoNLL-X, for
// other tools and external evaluators. It keeps what a sentence record
// has (words, tags, heads or predicted heads) and nothing more: lemmas,
// features and real dependency labels are not invented.
package deps2conll

import (
	"errors"
	"io"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Options of the output.
type Options struct {
	Dialect format.CoNLLDialect
	// Pred writes the predicted heads ("pred") in the HEAD column instead
	// of the gold ones ("heads").
	Pred bool
	// Tag is the column the tags go in: Both (the default), UPOS or XPOS;
	// the other column gets "_".
	Tag Column
}

// Column names a CoNLL tag column.
type Column string

// The tag columns.
const (
	Both Column = "both"
	UPOS Column = "upos" // column 4 (CPOSTAG in CoNLL-X)
	XPOS Column = "xpos" // column 5 (POSTAG in CoNLL-X)
)

// Summary counts what Write wrote.
type Summary struct {
	Sentences int
	// MultiRoot counts sentences whose gold heads attach several words to
	// the root (CoNLL-U allows one); FirstMultiRoot is the first's id.
	MultiRoot      int
	FirstMultiRoot string
}

// Write writes every sentence of src to w.
func Write(src pipeline.Source, w io.Writer, opts Options) (Summary, error) {
	var buf []byte
	var sum Summary
	err := pipeline.EachSentence(src, func(s *format.Sentence) error {
		cs, err := ToCoNLL(s, opts.Pred)
		if err != nil {
			return pipeline.BadRecord(err)
		}
		switch opts.Tag {
		case UPOS:
			for i := range cs.Tokens {
				cs.Tokens[i].XPOS = "_"
			}
		case XPOS:
			for i := range cs.Tokens {
				cs.Tokens[i].UPOS = "_"
			}
		}
		buf, err = format.AppendCoNLL(buf[:0], cs, opts.Dialect)
		if err != nil {
			return pipeline.BadRecord(err)
		}
		if _, err = w.Write(buf); err != nil {
			return err
		}
		sum.Sentences++
		if !opts.Pred && roots(s.Heads) > 1 {
			if sum.MultiRoot == 0 {
				sum.FirstMultiRoot = s.ID
			}
			sum.MultiRoot++
		}
		return nil
	})
	return sum, err
}

func roots(heads []int) int {
	n := 0
	for _, h := range heads {
		if h == 0 {
			n++
		}
	}
	return n
}

// ToCoNLL lays a sentence out in CoNLL columns: FORM is the word (the tag
// when the sentence has no words), the tag goes in both UPOS and XPOS,
// HEAD comes from heads (or pred), and DEPREL is "root" or "dep" ("_" with
// HEAD when the sentence has no heads). The id becomes the sent_id, the
// words joined by spaces the text.
func ToCoNLL(s *format.Sentence, pred bool) (*format.CoNLLSentence, error) {
	heads := s.Heads
	if pred {
		if s.Pred == nil {
			return nil, errors.New(`record has no "pred" to write (drop --pred to write "heads")`)
		}
		heads = s.Pred
	}
	cs := &format.CoNLLSentence{ID: s.ID, Tokens: make([]format.CoNLLToken, s.Len())}
	if s.Words != nil {
		cs.Text = strings.Join(s.Words, " ")
	}
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
