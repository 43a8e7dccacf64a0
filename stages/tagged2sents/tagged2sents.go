// Package tagged2sents reads POS-tagged text that is not a treebank — the
// Brown corpus (word/tag tokens, one sentence a line) and CoNLL-2000
// (word POS chunk, one token a line) — into sentence records with words
// and tags, for tag induction. It is not for dependency treebanks
// (conll2deps) or bracketed trees (ptb2deps).
package tagged2sents

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Format names an input format.
type Format string

const (
	Brown     Format = "brown"
	CoNLL2000 Format = "conll2000"
)

// Formats lists the formats Convert reads.
var Formats = []Format{Brown, CoNLL2000}

// Options choose the format and what happens to tags.
type Options struct {
	Format Format
	// Simplify strips Brown's -tl, -hl and -nc suffixes (repeatedly, from
	// the end) and then a leading fw-, as the data README's "stripped
	// tag": nn-tl-hl → nn, fw-at+nn-tl → at+nn. *, $ and + are kept.
	Simplify bool
}

// Summary counts what was written.
type Summary struct{ Sentences, Tokens int }

// Convert reads every input of src in the given format and writes one
// sentence record per sentence. Ids are "file#k", k counting the file's
// sentences from 1.
func Convert(src pipeline.Source, w io.Writer, opts Options) (Summary, error) {
	var sum Summary
	bad := src.Bad
	if bad == nil {
		bad = &pipeline.BadRecords{}
	}
	emit := func(s *format.Sentence) error {
		sum.Sentences++
		sum.Tokens += len(s.Tags)
		return pipeline.WriteRecord(w, s)
	}
	err := pipeline.EachInput(src.Names, src.Stdin, func(in *pipeline.Input) (err error) {
		base := filepath.Base(in.Name) // <stdin> for stdin, as every reader's ids
		lines := pipeline.NewLines(in)
		before, skipped := sum.Sentences, bad.Count
		switch opts.Format {
		case Brown:
			err = readBrown(lines, base, opts.Simplify, bad, emit)
		case CoNLL2000:
			err = readCoNLL2000(lines, base, bad, emit)
		default:
			return fmt.Errorf("unknown format %q", opts.Format)
		}
		if err == nil && sum.Sentences == before && bad.Count == skipped {
			// As the treebank readers: a file without a sentence is not
			// tagged text (or not of this format).
			return fmt.Errorf("%s: no sentences", in.Name)
		}
		return err
	})
	return sum, err
}

func readBrown(lines *pipeline.Lines, base string, simplify bool, bad *pipeline.BadRecords, emit func(*format.Sentence) error) error {
	k := 0
	for lines.Scan() {
		fields := strings.Fields(string(lines.Bytes()))
		if len(fields) == 0 {
			continue
		}
		k++
		s := &format.Sentence{ID: fmt.Sprintf("%s#%d", base, k), Words: make([]string, len(fields)), Tags: make([]string, len(fields))}
		var err error
		for i, tok := range fields {
			cut := strings.LastIndexByte(tok, '/')
			if cut <= 0 || cut == len(tok)-1 {
				err = lines.Errorf("token %d %q is not word/tag", i+1, tok)
				break
			}
			s.Words[i], s.Tags[i] = tok[:cut], tok[cut+1:]
			if simplify {
				s.Tags[i] = SimplifyBrown(s.Tags[i])
			}
		}
		if err != nil {
			if err = bad.Handle(err); err != nil {
				return err
			}
			continue
		}
		if err := emit(s); err != nil {
			return err
		}
	}
	return lines.Err()
}

// SimplifyBrown is the stripped tag of the data README: -tl, -hl and -nc
// removed from the end as long as one is there, then a leading fw-. A tag
// that would become empty is kept as it is.
func SimplifyBrown(tag string) string {
	t := tag
	for {
		cut := false
		for _, suf := range []string{"-tl", "-hl", "-nc"} {
			if len(t) > len(suf) && strings.HasSuffix(t, suf) {
				t, cut = t[:len(t)-len(suf)], true
			}
		}
		if !cut {
			break
		}
	}
	if len(t) > 3 && strings.HasPrefix(t, "fw-") {
		t = t[3:]
	}
	return t
}

var errFields = errors.New("want three space-separated fields: word POS chunk")

func readCoNLL2000(lines *pipeline.Lines, base string, bad *pipeline.BadRecords, emit func(*format.Sentence) error) error {
	k := 0
	var cur *format.Sentence
	var curErr error
	flush := func() error {
		if cur == nil {
			return nil
		}
		s, err := cur, curErr
		cur, curErr = nil, nil
		if err != nil {
			return bad.Handle(err)
		}
		return emit(s)
	}
	for lines.Scan() {
		line := lines.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		if cur == nil {
			k++
			cur = &format.Sentence{ID: fmt.Sprintf("%s#%d", base, k)}
		}
		fields := strings.Fields(string(line))
		if len(fields) != 3 {
			if curErr == nil {
				curErr = lines.Errorf("%v, found %d", errFields, len(fields))
			}
			continue
		}
		cur.Words = append(cur.Words, fields[0])
		cur.Tags = append(cur.Tags, fields[1])
	}
	if err := lines.Err(); err != nil {
		return err
	}
	return flush()
}
