// Package ptbstrip cleans Penn Treebank trees the way grammar-induction
// work uses them: empty elements (-NONE-) go, constituents left empty go,
// labels lose function tags and indices, and punctuation preterminals go
// unless kept. It also reads the trees of a program's inputs, as bracketed
// text or as records carrying "tree", for ptbstrip and ptb2deps alike. It
// does not find heads; package headrules does.
package ptbstrip

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/lines"
	"github.com/grind-nlp/grind/pipeline"
)

// Options choose what Strip removes.
type Options struct {
	KeepPunct bool // keep the punctuation preterminals (IsPunct)
}

// Summary counts what a run read.
type Summary struct {
	Trees int // good trees read
	Empty int // of which left with no token after stripping, and dropped
}

// Strip writes one sentence record per tree of src, with "id", "words",
// "tags" and "tree" (the stripped bracketing on one line). Trees left
// empty are dropped and counted.
func Strip(src pipeline.Source, w io.Writer, opts Options) (Summary, error) {
	return EachTree(src, opts.KeepPunct, func(id string, t *format.Tree) error {
		words, tags := Leaves(t)
		return pipeline.WriteRecord(w, &format.Sentence{ID: id, Words: words, Tags: tags, Tree: t.String()})
	})
}

// IsPunct tells the nine PTB punctuation tags, whose removal leaves Klein
// & Manning's word tags:
//
//	`` '' , . : -LRB- -RRB- # $
func IsPunct(tag string) bool {
	switch tag {
	case "``", "''", ",", ".", ":", "-LRB-", "-RRB-", "#", "$":
		return true
	}
	return false
}

// StripLabel removes function tags and indices from a label: NP-SBJ-1 →
// NP, NP=2 → NP, PP-LOC-CLR → PP, ADVP|PRT → ADVP. Labels that begin with
// "-" (-NONE-, -LRB-, -RRB-) or "=" are left as they are.
func StripLabel(label string) string {
	if i := strings.IndexAny(label, "-=|"); i > 0 {
		return label[:i]
	}
	return label
}

// StripTree returns t without -NONE- preterminals, without punctuation
// preterminals unless keepPunct, and without the constituents that leaves
// empty; phrase labels go through StripLabel, tags stay as they are. It
// returns nil when nothing is left. t is not changed; the result shares
// its preterminal nodes. It walks the tree with a stack of its own, so
// that no depth overflows Go's.
func StripTree(t *format.Tree, keepPunct bool) *format.Tree {
	keepLeaf := func(n *format.Tree) bool { return n.Label != "-NONE-" && (keepPunct || !IsPunct(n.Label)) }
	if t.IsPreterminal() {
		if !keepLeaf(t) {
			return nil
		}
		return t
	}
	type frame struct {
		t    *format.Tree
		next int            // the next child to visit
		kids []*format.Tree // the stripped children so far
	}
	stack := []frame{{t: t}}
	for {
		f := &stack[len(stack)-1]
		if f.next < len(f.t.Children) {
			c := f.t.Children[f.next]
			f.next++
			switch {
			case !c.IsPreterminal():
				stack = append(stack, frame{t: c})
			case keepLeaf(c):
				f.kids = append(f.kids, c)
			}
			continue
		}
		var done *format.Tree
		if len(f.kids) > 0 {
			done = &format.Tree{Label: StripLabel(f.t.Label), Children: f.kids}
		}
		stack = stack[:len(stack)-1]
		if len(stack) == 0 {
			return done
		}
		if done != nil {
			parent := &stack[len(stack)-1]
			parent.kids = append(parent.kids, done)
		}
	}
}

// Leaves are the words and tags of a tree's preterminals, in order.
func Leaves(t *format.Tree) (words, tags []string) {
	stack := []*format.Tree{t}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.IsPreterminal() {
			words, tags = append(words, n.Word), append(tags, n.Label)
			continue
		}
		for i := len(n.Children) - 1; i >= 0; i-- {
			stack = append(stack, n.Children[i])
		}
	}
	return words, tags
}

// EachTree reads every tree of src, strips it (StripTree) and calls fn
// with its id and the stripped tree; trees left empty are counted and
// skipped. An input whose first non-blank byte is "{" holds sentence
// records carrying "tree" (as ptbstrip writes them); any other input is
// bracketed PTB text. Ids are "<file name>#<k>", k the tree's 1-based
// position in its file ("<stdin>#k" for stdin); a record keeps its own id
// when it has one. Bad trees stop the run, or are skipped and counted
// with src.Bad.Skip. An input with no tree at all is an error.
func EachTree(src pipeline.Source, keepPunct bool, fn func(id string, t *format.Tree) error) (Summary, error) {
	bad := src.Bad
	if bad == nil {
		bad = &pipeline.BadRecords{}
	}
	var sum Summary
	emit := func(id string, t *format.Tree) error {
		sum.Trees++
		s := StripTree(t, keepPunct)
		if s == nil {
			sum.Empty++
			return nil
		}
		return fn(id, s)
	}
	trees := format.NewPTBReader(nil)
	err := src.EachInput(func(in *pipeline.Input) error {
		br := bufio.NewReaderSize(in.Reader, 64<<10) // in.Reader itself when buffered enough
		if line, ok := tabularLine(br); ok {
			return fmt.Errorf("%s:%d: this is a CoNLL or .dp file (tab-separated columns), not Penn Treebank brackets: convert it with conll2deps", in.Name, line)
		}
		peeked := &pipeline.Input{Name: in.Name, Reader: br}
		prefix := in.Name
		if prefix != pipeline.StdinName {
			prefix = filepath.Base(prefix)
		}
		var seen int
		var err error
		if firstNonBlank(br) == '{' {
			seen, err = eachRecordTree(peeked, prefix, bad, emit)
		} else {
			trees.Reset(peeked)
			seen, err = eachBracketTree(trees, peeked.Name, prefix, bad, emit)
		}
		if err == nil && seen == 0 {
			err = fmt.Errorf("%s: no trees", in.Name)
		}
		return err
	})
	return sum, err
}

// eachBracketTree reads bracketed trees; seen counts good and bad ones.
func eachBracketTree(r *format.PTBReader, name, prefix string, bad *pipeline.BadRecords, emit func(string, *format.Tree) error) (seen int, err error) {
	for {
		t, err := r.Next()
		if err == io.EOF {
			return r.Count(), nil
		}
		var se *format.SyntaxError
		line, lineErr := lines.ErrorLine(err)
		switch {
		case lineErr:
			return r.Count(), &pipeline.LineError{File: name, Line: line, Err: err}
		case errors.As(err, &se):
			if err := bad.Handle(pipeline.Locate(name, err)); err != nil {
				return r.Count(), err
			}
		case err != nil:
			return r.Count(), &pipeline.LineError{File: name, Line: r.Line(), Err: fmt.Errorf("read error: %w", err)}
		default:
			if err := emit(fmt.Sprintf("%s#%d", prefix, r.Count()), t); err != nil {
				return r.Count(), err
			}
		}
	}
}

// eachRecordTree reads sentence records that carry "tree".
func eachRecordTree(in *pipeline.Input, prefix string, bad *pipeline.BadRecords, emit func(string, *format.Tree) error) (seen int, err error) {
	badBefore := bad.Count
	err = pipeline.EachRecordIn(in, bad, func(s *format.Sentence, at *pipeline.Lines) error {
		seen++
		if s.Tree == "" {
			return pipeline.BadRecord(errors.New(`record has no "tree"`))
		}
		t, err := format.ParseTree(s.Tree)
		if err != nil {
			var se *format.SyntaxError
			if errors.As(err, &se) && !strings.Contains(s.Tree, "\n") {
				err = se.Err // the line inside a one-line field says nothing
			}
			return pipeline.BadRecord(fmt.Errorf("tree: %w", err))
		}
		id := s.ID
		if id == "" {
			id = fmt.Sprintf("%s#%d", prefix, seen)
		}
		return emit(id, t)
	})
	return seen + bad.Count - badBefore, err
}

// tabularLine says whether the first line with text, within the buffer,
// is a CoNLL or .dp line (a comment "#…" or tab-separated columns) rather
// than brackets or a record, and which line it is.
func tabularLine(br *bufio.Reader) (int, bool) {
	head, _ := br.Peek(br.Size())
	i := bytes.IndexFunc(head, func(r rune) bool { return !strings.ContainsRune(" \t\n\r\v\f", r) })
	if i < 0 || head[i] == '(' || head[i] == '{' {
		return 0, false
	}
	line := head[i:]
	if end := bytes.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	if head[i] == '#' || bytes.IndexByte(line, '\t') >= 0 {
		return bytes.Count(head[:i], []byte{'\n'}) + 1, true
	}
	return 0, false
}

// firstNonBlank peeks at the first byte that is not white space (0 when
// there is none within the buffer).
func firstNonBlank(br *bufio.Reader) byte {
	for n := 64; ; n *= 2 {
		head, err := br.Peek(n)
		for _, c := range head {
			switch c {
			case ' ', '\t', '\n', '\r', '\v', '\f':
			default:
				return c
			}
		}
		if err != nil {
			return 0
		}
	}
}
