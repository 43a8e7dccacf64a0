// Package conll2deps turns dependency treebanks in CoNLL-U, CoNLL-X or
// NLTK .dp format into sentence records, choosing the tag column and
// removing punctuation the way grammar-induction experiments do (deleted
// words' dependents re-attached to the nearest kept ancestor). It does not
// convert constituency trees; ptb2deps does.
package conll2deps

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/lines"
	"github.com/grind-nlp/grind/pipeline"
)

// Format is the input format: Auto decides per file.
type Format string

const (
	Auto   Format = "auto"
	CoNLLU Format = "conllu"
	CoNLLX Format = "conllx"
	DP     Format = "dp"
)

// Formats lists the accepted values of Format, for flag checking.
var Formats = []Format{Auto, CoNLLU, CoNLLX, DP}

// Tag says which CoNLL column becomes the tags: UPOS (CPOSTAG in CoNLL-X)
// or XPOS (POSTAG). .dp files have one tag column and ignore it.
type Tag string

const (
	UPOS Tag = "upos"
	XPOS Tag = "xpos"
)

// Default punctuation sets: UD's PUNCT (SYM is not punctuation in UD) and
// the nine PTB punctuation tags whose removal leaves Klein & Manning's 36
// word tags.
var (
	DefaultCoNLLPunct = []string{"PUNCT"}
	DefaultDPPunct    = []string{"``", "''", ",", ".", ":", "-LRB-", "-RRB-", "#", "$"}
)

// Options of a conversion.
type Options struct {
	Format Format
	Tag    Tag
	// Punct is the set of punctuation tags, matched against UPOS in CoNLL
	// files and the tag in .dp files; nil means the default of each format.
	Punct []string
	// KeepPunct removes nothing.
	KeepPunct bool
}

// Summary counts what a conversion wrote and what it dropped.
type Summary struct {
	Sentences, Tokens int
	Empty             int // sentences that were all punctuation
	// TextLost counts the sentences whose "# text" does not hold their
	// tokens' forms in order, left out; FirstTextLost is the first's id.
	TextLost      int
	FirstTextLost string
}

// sentenceReader is what CoNLLReader and DPReader have in common.
type sentenceReader interface {
	Next() (*format.CoNLLSentence, error)
}

// Convert reads every input of src and writes one sentence record per
// sentence to w. Ids are the CoNLL-U sent_id when there is one, else
// "<file basename>#<1-based index of the sentence in its file>" (bad
// sentences count too, so ids do not depend on --skip-bad). A file without
// any sentence is an error.
func Convert(src pipeline.Source, w io.Writer, opts Options) (Summary, error) {
	var sum Summary
	bad := src.Bad
	if bad == nil {
		bad = &pipeline.BadRecords{}
	}
	if opts.Format == "" {
		opts.Format = Auto
	}
	err := src.EachInput(func(in *pipeline.Input) error {
		f, r, err := detect(in, opts.Format)
		if err != nil {
			return err
		}
		var reader sentenceReader
		punct := opts.Punct
		if f == DP {
			reader = format.NewDPReader(r)
			if punct == nil {
				punct = DefaultDPPunct
			}
		} else {
			reader = format.NewCoNLLReader(r)
			if punct == nil {
				punct = DefaultCoNLLPunct
			}
		}
		isPunct := map[string]bool{}
		if !opts.KeepPunct {
			for _, t := range punct {
				isPunct[t] = true
			}
		}
		base := filepath.Base(in.Name)
		if in.Name == pipeline.StdinName {
			base = pipeline.StdinName // ids <stdin>#k, as every reader spells them
		}
		index := 0
		for {
			cs, err := reader.Next()
			if err == io.EOF {
				break
			}
			var se *format.SyntaxError
			if errors.As(err, &se) {
				index++
				if err := bad.Handle(pipeline.Locate(in.Name, err)); err != nil {
					return err
				}
				continue
			}
			if line, ok := lines.ErrorLine(err); ok {
				return &pipeline.LineError{File: in.Name, Line: line, Err: err} // ends the file, --skip-bad or not
			}
			if err != nil {
				return fmt.Errorf("%s: %w", in.Name, err)
			}
			index++
			id := cs.ID
			if id == "" {
				id = fmt.Sprintf("%s#%d", base, index)
			}
			s, textLost, err := sentence(cs, id, opts.Tag, f, isPunct)
			if textLost {
				if sum.TextLost == 0 {
					sum.FirstTextLost = id
				}
				sum.TextLost++
			}
			if err != nil {
				if err := bad.Handle(pipeline.Locate(in.Name, err)); err != nil {
					return err
				}
				continue
			}
			if s == nil {
				sum.Empty++
				continue
			}
			if err := pipeline.WriteRecord(w, s); err != nil {
				return err
			}
			sum.Sentences++
			sum.Tokens += s.Len()
		}
		if index == 0 {
			return fmt.Errorf("%s: no sentences", in.Name)
		}
		return nil
	})
	return sum, err
}

// sentence makes the record of one treebank sentence, validated, with the
// punctuation removed; nil when nothing is left. Besides the chosen tag
// column it keeps the other (unless every word's is "_") and, from CoNLL-U,
// the text, the multiword tokens and the spaces (keepText); textLost says
// that its text was left out. Errors are SyntaxErrors at the line of the
// word at fault, or of the first word.
func sentence(cs *format.CoNLLSentence, id string, tag Tag, f Format, isPunct map[string]bool) (s *format.Sentence, textLost bool, err error) {
	n := len(cs.Tokens)
	dp := f == DP
	s = &format.Sentence{ID: id, Words: make([]string, n), Tags: make([]string, n)}
	if cs.HasHeads() {
		s.Heads = make([]int, n)
	}
	other := make([]string, n) // the tag column not chosen
	drop := make([]bool, n)
	dropped := 0
	for i, t := range cs.Tokens {
		s.Words[i] = t.Form
		s.Tags[i], other[i] = t.UPOS, t.XPOS
		if tag == XPOS {
			s.Tags[i], other[i] = t.XPOS, t.UPOS
		}
		if s.Tags[i] == "_" && !dp {
			return nil, false, &format.SyntaxError{Line: t.Line, Err: fmt.Errorf("word %d has no %s tag (_)", i+1, columnName(tag))}
		}
		if s.Heads != nil {
			s.Heads[i] = t.Head
		}
		if isPunct[t.UPOS] {
			drop[i] = true
			dropped++
		}
	}
	if !dp && slices.ContainsFunc(other, func(t string) bool { return t != "_" }) {
		if tag == XPOS {
			s.UPOS = other
		} else {
			s.XPOS = other
		}
	}
	textLost = f == CoNLLU && !keepText(s, cs)
	if err := s.Validate(); err != nil {
		return nil, false, &format.SyntaxError{Line: cs.Tokens[0].Line, Err: fmt.Errorf("sentence starting here: %w", err)}
	}
	if dropped == n {
		return nil, false, nil
	}
	if dropped > 0 {
		DropTokens(s, drop)
	}
	return s, textLost, nil
}

// keepText copies a CoNLL-U sentence's text and multiword tokens into s,
// and NoSpaceAfter: the words (a multiword token's last word for the
// token) the text puts no space after, or, without a text, those whose
// MISC has SpaceAfter=No (on a multiword token's line for the token: the
// UD validator refuses it on the words inside one, so they are not read;
// the last token's entry is always MISC's). A text that does not hold the
// tokens' forms in order is left out: keepText returns false.
func keepText(s *format.Sentence, cs *format.CoNLLSentence) bool {
	inside := make([]bool, len(cs.Tokens)+1)
	noSpace := make([]bool, len(cs.Tokens)+1)
	for _, m := range cs.Multiword {
		s.Multiword = append(s.Multiword, format.Multiword{First: m.First, Last: m.Last, Form: m.Form})
		for w := m.First; w <= m.Last; w++ {
			inside[w] = true
		}
		noSpace[m.Last] = spaceAfterNo(m.Misc)
	}
	for i, t := range cs.Tokens {
		if !inside[i+1] {
			noSpace[i+1] = spaceAfterNo(t.Misc)
		}
	}
	for w, no := range noSpace {
		if no {
			s.NoSpaceAfter = append(s.NoSpaceAfter, w)
		}
	}
	if s.Text = cs.Text; s.Text != "" && !s.SpacesFromText() {
		s.Text = ""
		return false
	}
	return true
}

// spaceAfterNo says whether a MISC column holds SpaceAfter=No.
func spaceAfterNo(misc string) bool {
	for a := range strings.SplitSeq(misc, "|") {
		if a == "SpaceAfter=No" {
			return true
		}
	}
	return false
}

func columnName(t Tag) string {
	if t == XPOS {
		return "XPOS"
	}
	return "UPOS"
}

// DropTokens deletes the tokens marked in drop and renumbers the rest. A
// kept token whose head is deleted is attached to its nearest kept
// ancestor, or to the root when there is none, so a sentence may get
// several roots (PTB sentences whose root is $, say). The heads of s must
// be a valid tree (format.ValidateHeads): a cycle of deleted tokens would
// have no kept ancestor.
//
// The CoNLL-U fields follow: the kept tokens' upos or xpos; the multiword
// tokens none of whose words went (one that lost a word is undone, its
// words written together); no space after a kept word when the text had
// none between it and the next kept word; and, when the sentence has a
// text, the text of the kept tokens.
func DropTokens(s *format.Sentence, drop []bool) {
	n := len(s.Tags)
	// renumber[i] is the new 1-based position of old token i (1-based);
	// renumber[0] = 0 keeps the root the root.
	renumber := make([]int, n+1)
	kept := 0
	for i := 1; i <= n; i++ {
		if !drop[i-1] {
			kept++
			renumber[i] = kept
		}
	}
	// spaceless[i]: the text has no space after old word i.
	spaceless := make([]bool, n+1)
	for _, w := range s.NoSpaceAfter {
		spaceless[w] = true
	}
	for _, m := range s.Multiword {
		for w := m.First; w < m.Last; w++ {
			spaceless[w] = true
		}
	}
	var heads []int
	if s.Heads != nil {
		heads = make([]int, 0, kept)
	}
	keep := func(xs []string) []string {
		if xs == nil {
			return nil
		}
		out := xs[:0]
		for i := 1; i <= n; i++ {
			if !drop[i-1] {
				out = append(out, xs[i-1])
			}
		}
		return out
	}
	var noSpace []int
	for i := 1; i <= n; i++ {
		if drop[i-1] {
			continue
		}
		if heads != nil {
			h := s.Heads[i-1]
			for h != 0 && drop[h-1] {
				h = s.Heads[h-1]
			}
			heads = append(heads, renumber[h])
		}
		// No space up to the next kept word: none in any gap between.
		none := spaceless[i]
		for j := i + 1; none && j <= n && drop[j-1]; j++ {
			none = spaceless[j]
		}
		if none {
			noSpace = append(noSpace, renumber[i])
		}
	}
	var multiword []format.Multiword
	for _, m := range s.Multiword {
		if !slices.Contains(drop[m.First-1:m.Last], true) {
			multiword = append(multiword, format.Multiword{First: renumber[m.First], Last: renumber[m.Last], Form: m.Form})
		}
	}
	// A kept multiword token's inner words need no entry.
	noSpace = slices.DeleteFunc(noSpace, func(w int) bool {
		return slices.ContainsFunc(multiword, func(m format.Multiword) bool { return m.First <= w && w < m.Last })
	})
	s.Words, s.Tags, s.UPOS, s.XPOS = keep(s.Words), keep(s.Tags), keep(s.UPOS), keep(s.XPOS)
	s.Heads, s.Multiword, s.NoSpaceAfter = heads, multiword, noSpace
	if s.Text != "" {
		s.Text = s.TokenText()
	}
}

// detect decides the format of one input: forced, or from the column count
// of its first token line (10: CoNLL, 3 or 4: .dp). It returns a reader
// that still yields the input from its start, so line numbers stay right.
func detect(in *pipeline.Input, forced Format) (Format, io.Reader, error) {
	if forced != Auto {
		return forced, in, nil
	}
	br := bufio.NewReaderSize(in, 1<<16)
	var seen []byte
	for line := 1; ; line++ {
		start := len(seen)
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			seen = append(seen, chunk...)
			if len(seen)-start > lines.MaxLine+2 {
				return "", nil, &pipeline.LineError{File: in.Name, Line: line, Err: &lines.TooLongError{Line: line, Limit: lines.MaxLine}}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return "", nil, fmt.Errorf("%s: %w", in.Name, err)
		}
		text := bytes.TrimRight(seen[start:], "\r\n")
		columns := bytes.Count(text, []byte{'\t'}) + 1
		isToken := len(bytes.TrimSpace(text)) > 0 &&
			(text[0] != '#' || columns == 3 || columns == 4) // PTB has the tag #
		if isToken {
			var f Format
			switch columns {
			case 10:
				f = CoNLLU
			case 3, 4:
				f = DP
			default:
				// Not a LineError: --skip-bad must not skip a whole file.
				switch bytes.TrimSpace(text)[0] {
				case '(':
					return "", nil, fmt.Errorf("%s:%d: this is a Penn Treebank file (brackets), not CoNLL: convert it with ptb2deps (or ptbstrip)", in.Name, line)
				case '{':
					return "", nil, fmt.Errorf("%s:%d: this holds JSON records (sentences already), not CoNLL: conll2deps reads CoNLL, deps2conll writes it", in.Name, line)
				}
				return "", nil, fmt.Errorf("%s:%d: cannot tell the format: the first word line has %d tab-separated columns "+
					"(CoNLL-U and CoNLL-X have 10, .dp 3 or 4); name it with --format", in.Name, line, columns)
			}
			return f, io.MultiReader(bytes.NewReader(seen), br), nil
		}
		if err == io.EOF {
			return CoNLLU, bytes.NewReader(seen), nil // nothing but comments and blank lines
		}
	}
}
