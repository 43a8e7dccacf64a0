package format

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/grind-nlp/grind/internal/lines"
)

// DPReader reads NLTK .dp files (the Penn Treebank sample converted to
// dependencies): one word a line, "word TAB tag TAB head" with an optional
// fourth label column, a blank line between sentences and none at the end.
// Heads are 1-based, 0 for the root. There are no comments: a line starting
// with # is a word (PTB has the tag #).
//
// Sentences come back as CoNLLSentence values: Form is the word, UPOS and
// XPOS both the tag, Deprel the label ("_" when absent), the other columns
// "_". Malformed sentences give a *SyntaxError and reading goes on with the
// next sentence, as with CoNLLReader.
type DPReader struct {
	lines    *lines.Reader
	skipping bool
}

// NewDPReader reads from r.
func NewDPReader(r io.Reader) *DPReader {
	return &DPReader{lines: lines.New(r)}
}

// Next returns the next sentence, or io.EOF after the last.
func (r *DPReader) Next() (*CoNLLSentence, error) {
	if r.skipping {
		skipBlock(r.lines)
		r.skipping = false
	}
	var s *CoNLLSentence
	for r.lines.Scan() {
		line := r.lines.Bytes()
		if isBlankLine(line) {
			if s != nil {
				break
			}
			continue
		}
		if s == nil {
			s = &CoNLLSentence{}
		}
		tok, err := parseDPLine(r.lines.Line(), line)
		if err != nil {
			r.skipping = true
			return nil, err
		}
		s.Tokens = append(s.Tokens, tok)
	}
	if s == nil {
		if err := readError(r.lines); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	if err := readError(r.lines); err != nil {
		return nil, err
	}
	if err := checkTreebankHeads(s); err != nil {
		return nil, err
	}
	return s, nil
}

var dpColumns = [4]string{"word", "tag", "head", "label"}

func parseDPLine(n int, line []byte) (CoNLLToken, error) {
	var cols [4]string
	count := 0
	for f := range bytes.SplitSeq(line, []byte{'\t'}) {
		if count < len(cols) {
			cols[count] = internColumn(f)
		}
		count++
	}
	if count != 3 && count != 4 {
		return CoNLLToken{}, syntaxErrorf(n, "%d columns, .dp needs 3 (word, tag, head) or 4 (and a label) separated by tabs", count)
	}
	for i, name := range dpColumns[:count] {
		if cols[i] == "" {
			return CoNLLToken{}, syntaxErrorf(n, "empty %s (column %d)", name, i+1)
		}
		if hasControl(cols[i]) {
			return CoNLLToken{}, syntaxErrorf(n, "%s (column %d) holds a control character: %q", name, i+1, cols[i])
		}
	}
	head, err := strconv.Atoi(cols[2])
	if err != nil || !isASCIIDigits(cols[2]) {
		if err == nil && head < 0 {
			return CoNLLToken{}, syntaxErrorf(n, "head %d is out of range", head)
		}
		return CoNLLToken{}, syntaxErrorf(n, "head %q is not a number", cols[2])
	}
	label := "_"
	if count == 4 {
		label = cols[3]
	}
	return CoNLLToken{
		Form: cols[0], Lemma: "_", UPOS: cols[1], XPOS: cols[1], Feats: "_",
		Head: head, Deprel: label, Deps: "_", Misc: "_", Line: n,
	}, nil
}

// DPWriter writes sentences in the .dp format: a blank line between
// sentences and none after the last, as in NLTK's files.
type DPWriter struct {
	w       io.Writer
	written bool
}

// NewDPWriter writes to w.
func NewDPWriter(w io.Writer) *DPWriter { return &DPWriter{w: w} }

// Write writes one sentence: Form, XPOS, Head, and Deprel unless it is "_".
// A sentence without heads, or a column that is empty or holds a tab or a
// line break, cannot be written.
func (dw *DPWriter) Write(s *CoNLLSentence) error {
	if len(s.Tokens) == 0 {
		return fmt.Errorf("sentence has no words")
	}
	var b []byte
	if dw.written {
		b = append(b, '\n')
	}
	n := len(s.Tokens)
	for i, t := range s.Tokens {
		if t.Head < 0 || t.Head > n {
			return fmt.Errorf("word %d: .dp needs a head in 0..%d, not %d", i+1, n, t.Head)
		}
		cols := []string{t.Form, t.XPOS, strconv.Itoa(t.Head)}
		if t.Deprel != "_" {
			cols = append(cols, t.Deprel)
		}
		for c, v := range cols {
			if err := checkTSVColumn(v, c == len(cols)-1); err != nil {
				return fmt.Errorf("word %d: column %d %w", i+1, c+1, err)
			}
			if c > 0 {
				b = append(b, '\t')
			}
			b = append(b, v...)
		}
		b = append(b, '\n')
	}
	if _, err := dw.w.Write(b); err != nil {
		return err
	}
	dw.written = true
	return nil
}
