package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/grind-nlp/grind/internal/lines"
)

// CoNLLToken is one word of a CoNLL-X or CoNLL-U sentence, every column kept
// as written ("_" where the file has no value). The same type carries the
// words of NLTK .dp files, whose columns are a subset.
//
// CoNLL-X names columns 4, 5, 9 and 10 CPOSTAG, POSTAG, PHEAD and PDEPREL;
// they are kept in UPOS, XPOS, Deps and Misc.
type CoNLLToken struct {
	Form, Lemma, UPOS, XPOS, Feats string
	Head                           int // 0 is the root; NoHead for "_"
	Deprel, Deps, Misc             string
	Line                           int // 1-based line in the input; 0 when made in memory
}

// NoHead is the Head of a word whose HEAD column is "_" (an unannotated
// sentence).
const NoHead = -1

// CoNLLSentence is one sentence of a CoNLL or .dp file: its words (the IDs
// are their positions, 1..n), its multiword tokens, and the CoNLL-U
// sent_id and text, "" when absent. Empty nodes and other comments are not
// kept.
type CoNLLSentence struct {
	ID        string
	Text      string // the CoNLL-U "# text"
	Tokens    []CoNLLToken
	Multiword []CoNLLMultiword // in order; CoNLL-U only
}

// CoNLLMultiword is a multiword-token line ("n-m"): words First..Last
// (1-based, two or more) written together as Form, with its MISC column
// (where "SpaceAfter=No" of the token goes). Its other columns are "_".
type CoNLLMultiword struct {
	First, Last int
	Form, Misc  string
	Line        int // 1-based line in the input; 0 when made in memory
}

// HasHeads says whether the sentence is annotated: readers accept a
// sentence only when all its heads are numbers or all are "_".
func (s *CoNLLSentence) HasHeads() bool {
	return len(s.Tokens) > 0 && s.Tokens[0].Head != NoHead
}

// CoNLLDialect says which of the two 10-column formats to write. Both read
// the same way.
type CoNLLDialect int

const (
	CoNLLU CoNLLDialect = iota // ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC, # comments
	CoNLLX                     // ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD DEPREL PHEAD PDEPREL, no comments
)

func (d CoNLLDialect) String() string {
	if d == CoNLLX {
		return "conllx"
	}
	return "conllu"
}

// conllColumns names the columns in error messages (CoNLL-U names).
var conllColumns = [10]string{"ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC"}

// CoNLLReader reads CoNLL-U or CoNLL-X sentences one at a time. Sentences
// are separated by blank lines; a missing final blank line and CRLF line
// endings are fine. Lines starting with # are comments; "# sent_id = X"
// names the sentence. Multiword-token ranges (ID n-m) and empty nodes (ID
// n.m) are skipped.
//
// Malformed sentences give a *SyntaxError; the next call to Next goes on
// with the sentence after the bad one, so a caller can skip bad sentences.
type CoNLLReader struct {
	lines    *lines.Reader
	skipping bool // the last sentence was bad: drop the rest of its lines
}

// NewCoNLLReader reads from r.
func NewCoNLLReader(r io.Reader) *CoNLLReader {
	return &CoNLLReader{lines: lines.New(r)}
}

// Next returns the next sentence, or io.EOF after the last.
func (r *CoNLLReader) Next() (*CoNLLSentence, error) {
	if r.skipping {
		skipBlock(r.lines)
		r.skipping = false
	}
	var (
		s       *CoNLLSentence
		sentID  string
		text    string
		started int // line of the first ID line of the block, 0 before
	)
	for r.lines.Scan() {
		line := r.lines.Bytes()
		if isBlankLine(line) {
			if started > 0 {
				return finishCoNLLSentence(s, started)
			}
			sentID, text = "", "" // a block of comments only names nothing
			continue
		}
		if line[0] == '#' {
			if id, ok := parseSentID(line); ok {
				sentID = id
			} else if t, ok := parseText(line); ok {
				text = t
			}
			continue
		}
		if started == 0 {
			started = r.lines.Line()
			s = &CoNLLSentence{ID: sentID, Text: text}
		}
		if err := r.parseLine(s, line); err != nil {
			r.skipping = true
			return nil, err
		}
	}
	if err := readError(r.lines); err != nil {
		return nil, err
	}
	if started > 0 {
		return finishCoNLLSentence(s, started)
	}
	return nil, io.EOF
}

// parseLine adds the word or multiword token on line to s, or skips an
// empty node.
func (r *CoNLLReader) parseLine(s *CoNLLSentence, line []byte) error {
	n := r.lines.Line()
	var cols [10]string
	count := 0
	for f := range bytes.SplitSeq(line, []byte{'\t'}) {
		if count < len(cols) {
			cols[count] = internColumn(f)
		}
		count++
	}
	if count != len(cols) {
		return syntaxErrorf(n, "%d columns, CoNLL needs 10 separated by tabs", count)
	}
	for i, c := range cols {
		if c == "" {
			return syntaxErrorf(n, "column %d (%s) is empty", i+1, conllColumns[i])
		}
		if hasControl(c) {
			return syntaxErrorf(n, "column %d (%s) holds a control character: %q", i+1, conllColumns[i], c)
		}
	}
	id := cols[0]
	if a, b, ok := strings.Cut(id, "-"); ok {
		if err := checkRangeID(n, id, a, b, "multiword-token range"); err != nil {
			return err
		}
		first, _ := strconv.Atoi(a)
		last, _ := strconv.Atoi(b)
		next := len(s.Tokens) + 1
		if k := len(s.Multiword); k > 0 {
			next = max(next, s.Multiword[k-1].Last+1)
		}
		switch {
		case last <= first:
			return syntaxErrorf(n, "multiword token %s: a range of two or more words is n-m with n < m", id)
		case first < next:
			return syntaxErrorf(n, "multiword token %s: it must come before its first word, after the words and multiword tokens before it (word %d is next)", id, next)
		}
		s.Multiword = append(s.Multiword, CoNLLMultiword{First: first, Last: last, Form: cols[1], Misc: cols[9], Line: n})
		return nil
	}
	if a, b, ok := strings.Cut(id, "."); ok {
		return checkRangeID(n, id, a, b, "empty node")
	}
	want := len(s.Tokens) + 1
	got, err := strconv.Atoi(id)
	if err != nil || !isASCIIDigits(id) {
		return syntaxErrorf(n, "ID %q is not a number", id)
	}
	if got != want {
		return syntaxErrorf(n, "ID %d where %d was expected (IDs must be 1, 2, 3… in order)", got, want)
	}
	head, err := parseCoNLLHead(n, cols[6])
	if err != nil {
		return err
	}
	s.Tokens = append(s.Tokens, CoNLLToken{
		Form: cols[1], Lemma: cols[2], UPOS: cols[3], XPOS: cols[4], Feats: cols[5],
		Head: head, Deprel: cols[7], Deps: cols[8], Misc: cols[9], Line: n,
	})
	return nil
}

// finishCoNLLSentence checks what needs the whole sentence: heads within 0..n, and
// either all heads given or none.
func finishCoNLLSentence(s *CoNLLSentence, started int) (*CoNLLSentence, error) {
	if len(s.Tokens) == 0 {
		return nil, syntaxErrorf(started, "sentence has multiword tokens or empty nodes but no words")
	}
	if k := len(s.Multiword); k > 0 && s.Multiword[k-1].Last > len(s.Tokens) {
		m := s.Multiword[k-1]
		return nil, syntaxErrorf(m.Line, "multiword token %d-%d: the sentence has %d words", m.First, m.Last, len(s.Tokens))
	}
	if err := checkTreebankHeads(s); err != nil {
		return nil, err
	}
	return s, nil
}

// checkTreebankHeads checks the heads of a finished sentence.
func checkTreebankHeads(s *CoNLLSentence) error {
	n := len(s.Tokens)
	annotated := s.Tokens[0].Head != NoHead
	for i, t := range s.Tokens {
		switch {
		case (t.Head != NoHead) != annotated:
			return syntaxErrorf(t.Line, "word %d has %s but word 1 has %s (give every head or none)",
				i+1, describeHead(t.Head), describeHead(s.Tokens[0].Head))
		case t.Head > n:
			return syntaxErrorf(t.Line, "head %d is out of range 0..%d", t.Head, n)
		}
	}
	return nil
}

func describeHead(h int) string {
	if h == NoHead {
		return "no head (_)"
	}
	return "a head"
}

func parseCoNLLHead(line int, col string) (int, error) {
	if col == "_" {
		return NoHead, nil
	}
	h, err := strconv.Atoi(col)
	if err != nil || !isASCIIDigits(col) {
		if err == nil && h < 0 {
			return 0, syntaxErrorf(line, "head %d is out of range", h)
		}
		return 0, syntaxErrorf(line, "head %q is not a number", col)
	}
	return h, nil
}

func checkRangeID(line int, id, a, b, what string) error {
	if !isASCIIDigits(a) || !isASCIIDigits(b) {
		return syntaxErrorf(line, "ID %q is neither a number nor a %s", id, what)
	}
	return nil
}

// isASCIIDigits says whether s is a non-empty string of ASCII digits (Atoi
// alone would take signs).
func isASCIIDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseSentID reads "# sent_id = X" (or the older "# sent_id X").
func parseSentID(line []byte) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeft(string(line[1:]), " \t"), "sent_id")
	if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '=') {
		return "", false
	}
	rest = strings.TrimLeft(rest, " \t")
	rest = strings.TrimPrefix(rest, "=")
	return strings.TrimSpace(rest), true
}

// parseText reads "# text = X" (the "=" is required: other comments start
// with the word "text" too).
func parseText(line []byte) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeft(string(line[1:]), " \t"), "text")
	if !ok {
		return "", false
	}
	rest, ok = strings.CutPrefix(strings.TrimLeft(rest, " \t"), "=")
	return strings.TrimSpace(rest), ok
}

// internColumn copies a column, sharing the common "_".
func internColumn(b []byte) string {
	if len(b) == 1 && b[0] == '_' {
		return "_"
	}
	return string(b)
}

func isBlankLine(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// AppendCoNLL appends s in the given dialect to dst: "# sent_id" and
// "# text" comments (CoNLL-U only, when s has them), one line per word, each
// multiword token's line before its first word's (CoNLL-U only), and the blank line
// that ends every sentence. It fails, appending nothing, when a column
// cannot be written: empty, or holding a tab or a line break.
func AppendCoNLL(dst []byte, s *CoNLLSentence, d CoNLLDialect) ([]byte, error) {
	if len(s.Tokens) == 0 {
		return dst, errors.New("sentence has no words")
	}
	start := len(dst)
	if d == CoNLLU && s.ID != "" {
		if strings.Contains(s.ID, "\n") {
			return dst[:start], fmt.Errorf("sent_id %q has a line break", s.ID)
		}
		dst = append(dst, "# sent_id = "...)
		dst = append(dst, s.ID...)
		dst = append(dst, '\n')
	}
	if d == CoNLLU && s.Text != "" {
		if strings.ContainsAny(s.Text, "\r\n") {
			return dst[:start], fmt.Errorf("text %q has a line break", s.Text)
		}
		dst = append(dst, "# text = "...)
		dst = append(dst, s.Text...)
		dst = append(dst, '\n')
	}
	n := len(s.Tokens)
	var multiword []CoNLLMultiword
	if d == CoNLLU {
		multiword = s.Multiword // CoNLL-X has no multiword tokens
	}
	next := 0 // the multiword token due
	for i, t := range s.Tokens {
		if next < len(multiword) && multiword[next].First == i+1 {
			m := multiword[next]
			if m.Last <= m.First || m.Last > n || next > 0 && m.First <= multiword[next-1].Last {
				return dst[:start], fmt.Errorf("multiword token %d-%d: not a range of two or more of the %d words after the one before", m.First, m.Last, n)
			}
			var err error
			if dst, err = appendRow(dst, [10]string{fmt.Sprintf("%d-%d", m.First, m.Last), m.Form, "_", "_", "_", "_", "_", "_", "_", m.Misc}); err != nil {
				return dst[:start], fmt.Errorf("multiword token %d-%d: %w", m.First, m.Last, err)
			}
			next++
		}
		if t.Head < NoHead || t.Head > n {
			return dst[:start], fmt.Errorf("word %d: head %d is out of range 0..%d", i+1, t.Head, n)
		}
		head := "_"
		if t.Head != NoHead {
			head = strconv.Itoa(t.Head)
		}
		var err error
		if dst, err = appendRow(dst, [10]string{strconv.Itoa(i + 1), t.Form, t.Lemma, t.UPOS, t.XPOS, t.Feats, head, t.Deprel, t.Deps, t.Misc}); err != nil {
			return dst[:start], fmt.Errorf("word %d: %w", i+1, err)
		}
	}
	if next < len(multiword) {
		m := multiword[next]
		return dst[:start], fmt.Errorf("multiword token %d-%d: not a range of two or more of the %d words after the one before", m.First, m.Last, n)
	}
	return append(dst, '\n'), nil
}

// appendRow appends one tab-separated line, or says which column cannot
// be written.
func appendRow(dst []byte, cols [10]string) ([]byte, error) {
	for c, v := range cols {
		if err := checkTSVColumn(v, c == len(cols)-1); err != nil {
			return dst, fmt.Errorf("%s %w", conllColumns[c], err)
		}
		if c > 0 {
			dst = append(dst, '\t')
		}
		dst = append(dst, v...)
	}
	return append(dst, '\n'), nil
}

// WriteCoNLL writes one sentence with AppendCoNLL.
func WriteCoNLL(w io.Writer, s *CoNLLSentence, d CoNLLDialect) error {
	b, err := AppendCoNLL(nil, s, d)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// checkTSVColumn says why v cannot be a column of a tab-separated line; the
// last column must not end with \r, which readers take for a CRLF ending.
func checkTSVColumn(v string, last bool) error {
	switch {
	case v == "":
		return errors.New("is empty")
	case strings.ContainsAny(v, "\t\n"):
		return fmt.Errorf("%q holds a tab or a line break", v)
	case hasControl(v):
		return fmt.Errorf("%q holds a control character", v)
	case last && strings.HasSuffix(v, "\r"):
		return fmt.Errorf("%q ends with a carriage return", v)
	}
	return nil
}

// hasControl says whether a column holds a control character other than
// the tab and line breaks the format itself uses (and a carriage return):
// readers refuse such columns and writers cannot write them.
func hasControl(v string) bool {
	return strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f })
}

// skipBlock drops lines up to and including the next blank one.
func skipBlock(l *lines.Reader) {
	for l.Scan() {
		if isBlankLine(l.Bytes()) {
			return
		}
	}
}

// readError is the read error that stopped l, placed after its last line;
// a *lines.TooLongError or *lines.InvalidUTF8Error comes back as it is.
func readError(l *lines.Reader) error {
	if err := l.Err(); err != nil {
		if _, ok := lines.ErrorLine(err); ok {
			// A line too long, or text that is not UTF-8: not one bad
			// sentence to skip but the end of reading (Line says where).
			return err
		}
		return fmt.Errorf("after line %d: %w", l.Line(), err)
	}
	return nil
}
