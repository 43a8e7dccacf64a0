// Package deps2conll writes sentence records as CoNLL-U or CoNLL-X, for
// other tools and external evaluators. It keeps what a sentence record
// has (words, tags and the tag column kept beside them, heads or predicted
// heads, the text, multiword tokens and spaces) and nothing more: lemmas,
// features and real dependency labels are not invented.
package deps2conll

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Options of the output.
type Options struct {
	Dialect format.CoNLLDialect
	// Pred writes the predicted heads ("pred") in the HEAD column instead
	// of the gold ones ("heads").
	Pred bool
	// Tag is the column the tags go in when a record keeps neither "upos"
	// nor "xpos": Both (the default), UPOS or XPOS, the other column "_".
	// A record that keeps one has its tags written in the other column;
	// Tag naming that same column is an error.
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
	// RepeatedID counts the CoNLL-U sentences whose sent_id an earlier one
	// had (CoNLL-U wants them unique: two treebanks' files written as one,
	// say); FirstRepeatedID says which and where.
	RepeatedID      int
	FirstRepeatedID string
}

// Write writes every sentence of src to w. CoNLL-U output names every
// sentence: a record without an id gets "<input basename>#<index of the
// record in its input>", as conll2deps names sentences; an id that holds
// white space is an error, one written before is counted in the Summary.
// An input without any sentence is an error.
func Write(src pipeline.Source, w io.Writer, opts Options) (Summary, error) {
	var buf []byte
	var sum Summary
	seen := map[string]string{} // sent_id → where it was written from
	input, index := "", 0
	err := pipeline.EachRecord(src, func(s *format.Sentence, at *pipeline.Lines) error {
		if at.Name() != input {
			input, index = at.Name(), 0
		}
		index++
		if err := s.Validate(); err != nil {
			return pipeline.BadRecord(err)
		}
		cs, err := ToCoNLL(s, opts)
		if err != nil {
			return pipeline.BadRecord(err)
		}
		if opts.Dialect == format.CoNLLU {
			if cs.ID == "" {
				cs.ID = fmt.Sprintf("%s#%d", filepath.Base(input), index)
			}
			if strings.ContainsFunc(cs.ID, unicode.IsSpace) {
				return pipeline.BadRecord(fmt.Errorf("id %q holds white space, which a CoNLL-U sent_id may not", cs.ID))
			}
			if first, ok := seen[cs.ID]; ok {
				if sum.RepeatedID == 0 {
					sum.FirstRepeatedID = fmt.Sprintf("%s at %s:%d, first at %s", cs.ID, at.Name(), at.Line(), first)
				}
				sum.RepeatedID++
			} else {
				seen[cs.ID] = fmt.Sprintf("%s:%d", at.Name(), at.Line())
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
	if err == nil && sum.Sentences == 0 {
		err = fmt.Errorf("%s: no sentences to write", pipeline.DescribeInputs(src.Names))
	}
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
// when the sentence has no words); the tags and the column the record
// keeps beside them ("upos" or "xpos") go in UPOS and XPOS as
// Options.Tag says; HEAD comes from heads (or pred), and DEPREL is "root"
// or "dep" ("_" with HEAD when the sentence has no heads). In CoNLL-U the
// id becomes the sent_id; the text is the record's (checked against the
// tokens) or else the tokens' own; multiword tokens get their lines, and
// "no_space_after" SpaceAfter=No in MISC (on a multiword token's line for
// its last word).
func ToCoNLL(s *format.Sentence, opts Options) (*format.CoNLLSentence, error) {
	heads := s.Heads
	if opts.Pred {
		if s.Pred == nil {
			return nil, errors.New(`record has no "pred" to write (drop --pred to write "heads")`)
		}
		heads = s.Pred
	}
	upos, xpos, err := tagColumns(s, opts.Tag)
	if err != nil {
		return nil, err
	}
	cs := &format.CoNLLSentence{ID: s.ID, Tokens: make([]format.CoNLLToken, s.Len())}
	conllu := opts.Dialect == format.CoNLLU
	if conllu {
		if err := s.CheckText(); err != nil {
			return nil, err
		}
		if cs.Text = s.Text; cs.Text == "" {
			cs.Text = s.TokenText()
		}
		for _, m := range s.Multiword {
			cs.Multiword = append(cs.Multiword, format.CoNLLMultiword{First: m.First, Last: m.Last, Form: m.Form, Misc: spaceAfter(s, m.Last)})
		}
	}
	for i, tag := range s.Tags {
		t := format.CoNLLToken{Form: tag, Lemma: "_", UPOS: upos[i], XPOS: xpos[i], Feats: "_", Head: format.NoHead, Deprel: "_", Deps: "_", Misc: "_"}
		if s.Words != nil {
			t.Form = s.Words[i]
		}
		if err := checkForm(t.Form); err != nil {
			return nil, fmt.Errorf("word %d: %w", i+1, err)
		}
		for _, tag := range []string{t.UPOS, t.XPOS} {
			if strings.ContainsFunc(tag, unicode.IsSpace) {
				return nil, fmt.Errorf("word %d: tag %q holds white space, which CoNLL tags may not", i+1, tag)
			}
		}
		if conllu && !slices.ContainsFunc(s.Multiword, func(m format.Multiword) bool { return m.First <= i+1 && i+1 <= m.Last }) {
			t.Misc = spaceAfter(s, i+1)
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

// tagColumns are the UPOS and XPOS columns of s.
func tagColumns(s *format.Sentence, tag Column) (upos, xpos []string, err error) {
	switch {
	case s.XPOS != nil && tag == XPOS:
		return nil, nil, errors.New(`the record keeps its XPOS in "xpos", so its tags are UPOS: --tag xpos would put them in XPOS too (drop --tag)`)
	case s.UPOS != nil && tag == UPOS:
		return nil, nil, errors.New(`the record keeps its UPOS in "upos", so its tags are XPOS: --tag upos would put them in UPOS too (drop --tag)`)
	case s.XPOS != nil:
		return s.Tags, s.XPOS, nil
	case s.UPOS != nil:
		return s.UPOS, s.Tags, nil
	}
	none := make([]string, len(s.Tags))
	for i := range none {
		none[i] = "_"
	}
	switch tag {
	case UPOS:
		return s.Tags, none, nil
	case XPOS:
		return none, s.Tags, nil
	}
	return s.Tags, s.Tags, nil
}

// spaceAfter is the MISC column of the token whose last word is w.
func spaceAfter(s *format.Sentence, w int) string {
	if _, ok := slices.BinarySearch(s.NoSpaceAfter, w); ok {
		return "SpaceAfter=No"
	}
	return "_"
}

// checkForm says why a word cannot be a FORM (the UD validator's level 1:
// a tab, line break or control character the writer refuses besides).
func checkForm(form string) error {
	r := []rune(form)
	switch {
	case len(r) == 0:
		return errors.New("the word is empty")
	case unicode.IsSpace(r[0]) || unicode.IsSpace(r[len(r)-1]):
		return fmt.Errorf("word %q starts or ends with white space, which CoNLL-U forms may not", form)
	}
	for i := 1; i < len(r); i++ {
		if unicode.IsSpace(r[i-1]) && unicode.IsSpace(r[i]) {
			return fmt.Errorf("word %q holds two white-space characters in a row, which CoNLL-U forms may not", form)
		}
	}
	return nil
}
