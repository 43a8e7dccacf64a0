package format

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/grind-nlp/grind/internal/lines"
)

// Tree is one node of a Penn Treebank tree. A preterminal has a Word and no
// Children; every other node has Children and no Word. Labels are kept as
// written (NP-SBJ-1); package ptbstrip removes function tags and indices.
type Tree struct {
	Label    string
	Word     string
	Children []*Tree
}

// IsPreterminal tells a (TAG word) leaf from a phrase.
func (t *Tree) IsPreterminal() bool { return len(t.Children) == 0 }

// String is the bracketing on one line: (S (NP (NNP Pierre)) (VP (VBD left))).
// NewPTBReader reads it back as the same tree.
func (t *Tree) String() string { return string(t.AppendBracketing(nil)) }

// AppendBracketing appends the one-line bracketing of t to b. It walks
// the tree with a stack of its own, so that no depth overflows Go's.
func (t *Tree) AppendBracketing(b []byte) []byte {
	type step struct {
		t     *Tree // nil: close the bracket of a phrase
		child bool  // a space goes before it
	}
	stack := []step{{t: t}}
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if st.t == nil {
			b = append(b, ')')
			continue
		}
		if st.child {
			b = append(b, ' ')
		}
		b = append(b, '(')
		b = append(b, st.t.Label...)
		if st.t.IsPreterminal() {
			b = append(b, ' ')
			b = append(b, st.t.Word...)
			b = append(b, ')')
			continue
		}
		stack = append(stack, step{})
		for i := len(st.t.Children) - 1; i >= 0; i-- {
			stack = append(stack, step{t: st.t.Children[i], child: true})
		}
	}
	return b
}

// EachPhrase calls fn for every phrase of t, each after its children,
// with the positions (in tokens, from 0) at which its children begin
// followed by the one at which it ends, and returns t's tokens. ends is
// only valid during the call. It walks the tree with a stack of its own,
// so that no depth overflows Go's.
func (t *Tree) EachPhrase(fn func(ends []int)) int {
	if t.IsPreterminal() {
		return 1
	}
	type open struct {
		t    *Tree
		next int   // the next child to visit
		ends []int // where its children begin, so far
	}
	stack := []open{{t: t, ends: []int{0}}}
	for {
		o := &stack[len(stack)-1]
		at := o.ends[len(o.ends)-1]
		if o.next < len(o.t.Children) {
			c := o.t.Children[o.next]
			o.next++
			if c.IsPreterminal() {
				o.ends = append(o.ends, at+1)
			} else {
				stack = append(stack, open{t: c, ends: []int{at}})
			}
			continue
		}
		fn(o.ends)
		stack = stack[:len(stack)-1]
		if len(stack) == 0 {
			return at
		}
		p := &stack[len(stack)-1]
		p.ends = append(p.ends, at)
	}
}

// ParseTree reads a string that holds exactly one bracketed tree, such as
// the "tree" field of a sentence record.
func ParseTree(s string) (*Tree, error) {
	r := &PTBReader{buf: make([]byte, len(s)+1)} // no label table: one tree shares little
	r.Reset(strings.NewReader(s))
	t, err := r.Next()
	if err == io.EOF {
		return nil, errors.New("no tree")
	}
	if err != nil {
		return nil, err
	}
	switch _, err := r.Next(); {
	case err == nil:
		return nil, syntaxErrorf(r.line, "more than one tree")
	case err != io.EOF:
		return nil, err
	}
	return t, nil
}

// PTBReader reads bracketed Penn Treebank trees one at a time from a
// stream: many trees per file, each over as many lines as it likes, in the
// .mrg layout or one per line. The unlabelled outer bracket of .mrg files,
// ( (S …) ), and a ROOT or TOP node with one child are removed. Lines
// before the first tree that start with *x* (the LDC copyright header) are
// skipped.
//
// Malformed trees are *SyntaxError values carrying the line of the problem,
// and the reader goes on with the next tree after one. To place unbalanced
// brackets near where they are, rather than at the end of the file, the
// reader relies on the layout every treebank and tool uses: a "(" in the
// first column of a line starts a new tree (so the tree before it is
// missing a ")"), and when trees start in the first column, a tree that
// closes before an indented line that goes on with more brackets has an
// extra ")".
//
// Errors that are not *SyntaxError come from the underlying reader (a
// truncated gzip stream, say); they end the reading, and Line says where.
type PTBReader struct {
	src     io.Reader
	buf     []byte
	pos     int   // next unread byte in buf
	end     int   // end of the valid bytes in buf
	readErr error // from src once buf is drained: io.EOF or a failure

	line      int  // 1-based line of buf[pos]
	lineStart bool // buf[pos] is the first byte of its line
	base      int  // bytes of the input dropped before buf[0]
	lineAt    int  // offset in the input of the current line's first byte

	trees      int   // trees begun
	pending    token // a "(" already read that starts the next tree
	hasPending bool
	col0Layout bool // the last tree started in the first column

	stack    []frame
	children []*Tree // children of the open frames, each frame's from its kidStart
	labels   map[string]string
	nodeSlab []Tree
	kidSlab  []*Tree
}

// frame is an open bracket.
type frame struct {
	line     int
	labelled bool // the token after "(" was read: Label is known ("" for none)
	label    string
	word     string
	hasWord  bool
	kidStart int
}

type tokenKind uint8

const (
	tokEOF tokenKind = iota
	tokOpen
	tokClose
	tokAtom
)

type token struct {
	kind tokenKind
	line int
	col0 bool   // the token's first byte is the first byte of its line
	text []byte // an atom's bytes, valid until the next read
}

// NewPTBReader reads trees from r.
func NewPTBReader(r io.Reader) *PTBReader {
	p := &PTBReader{buf: make([]byte, 16<<10), labels: map[string]string{}}
	p.Reset(r)
	return p
}

// Reset makes the reader read trees from src as if new, keeping its
// buffers: cheaper than a new reader for each of many small files.
func (r *PTBReader) Reset(src io.Reader) {
	*r = PTBReader{src: src, buf: r.buf, line: 1, lineStart: true, labels: r.labels,
		stack: r.stack[:0], children: r.children[:0], nodeSlab: r.nodeSlab, kidSlab: r.kidSlab}
}

// Line is the line the reader has reached: where a read error happened.
func (r *PTBReader) Line() int { return r.line }

// Count is the number of trees begun so far, good or bad: after Next
// returns a tree, its 1-based position in the input.
func (r *PTBReader) Count() int { return r.trees }

// Next returns the next tree, or io.EOF after the last one.
func (r *PTBReader) Next() (*Tree, error) {
	for {
		tok := r.nextOrPending()
		switch tok.kind {
		case tokEOF:
			return nil, r.endErr()
		case tokOpen:
			return r.tree(tok)
		case tokClose:
			r.skipToTree()
			return nil, syntaxErrorf(tok.line, `unbalanced brackets: extra ")"`)
		case tokAtom:
			if tok.col0 && r.trees == 0 && bytes.HasPrefix(tok.text, []byte("*x*")) {
				r.skipLine()
				continue
			}
			err := syntaxErrorf(tok.line, "text outside brackets: %q", clip(tok.text))
			r.skipToTree()
			return nil, err
		}
	}
}

// tree reads the rest of a tree whose "(" is open.
func (r *PTBReader) tree(open token) (*Tree, error) {
	r.trees++
	startLine, startCol0 := open.line, open.col0
	r.stack = append(r.stack[:0], frame{line: open.line})
	r.children = r.children[:0]
	lastLine := open.line
	var first *SyntaxError // the tree's first problem; reading goes on to its end
	fail := func(line int, format string, args ...any) {
		if first == nil {
			first = syntaxErrorf(line, format, args...)
		}
	}
	unclosed := func() error {
		if first != nil {
			return first
		}
		return syntaxErrorf(lastLine, `unbalanced brackets: %s missing to close the tree that starts at line %d`,
			plural(len(r.stack), `")"`), startLine)
	}
	for {
		tok := r.next()
		top := &r.stack[len(r.stack)-1]
		switch tok.kind {
		case tokEOF:
			if r.readErr != io.EOF {
				return nil, r.readErr
			}
			return nil, unclosed()
		case tokOpen:
			if tok.col0 {
				r.pending, r.hasPending = tok, true
				return nil, unclosed()
			}
			if !top.labelled {
				top.labelled = true // an unlabelled bracket, as around .mrg trees
				if len(r.stack) > 1 {
					fail(top.line, "bracket without a label")
				}
			}
			if top.hasWord {
				fail(tok.line, "preterminal (%s %s) has a constituent after its word", top.label, clip([]byte(top.word)))
			}
			if len(r.stack) == MaxTreeDepth {
				r.skipOpen(len(r.stack) + 1)
				return nil, syntaxErrorf(tok.line, "a tree nested more than %d brackets deep (the tree that starts at line %d): no treebank's is", MaxTreeDepth, startLine)
			}
			r.stack = append(r.stack, frame{line: tok.line, kidStart: len(r.children)})
		case tokAtom:
			switch {
			case !top.labelled:
				top.labelled, top.label = true, r.intern(tok.text)
			case len(r.children) > top.kidStart:
				fail(tok.line, "word %q outside a preterminal (in %s)", clip(tok.text), labelName(top.label))
			case top.hasWord:
				fail(tok.line, "preterminal (%s %s) has a second word %q", top.label, clip([]byte(top.word)), clip(tok.text))
			default:
				top.word, top.hasWord = string(tok.text), true
			}
		case tokClose:
			switch {
			case !top.labelled:
				fail(tok.line, "empty brackets ()")
			case !top.hasWord && len(r.children) == top.kidStart:
				fail(tok.line, "empty bracket (%s)", top.label)
			}
			node := r.node(top)
			r.stack = r.stack[:len(r.stack)-1]
			if len(r.stack) == 0 {
				if err := r.checkEnd(tok.line, startLine, startCol0); err != nil && first == nil {
					first = err
				}
				if phrases := countPhrases(node); first == nil && node.Label == "" && phrases > 1 {
					// Not one sentence: merging them would be a silent lie.
					first = syntaxErrorf(startLine, "an unlabelled bracket holds %d trees: ( (S …) (S …) ) is not one sentence; give each tree its own brackets", phrases)
				}
				if first != nil {
					return nil, first
				}
				return unwrap(node), nil
			}
			r.children = append(r.children, node)
		}
		lastLine = tok.line
	}
}

// node builds the tree node of a frame that is being closed.
func (r *PTBReader) node(f *frame) *Tree {
	if len(r.nodeSlab) == 0 {
		r.nodeSlab = make([]Tree, 256)
	}
	n := &r.nodeSlab[0]
	r.nodeSlab = r.nodeSlab[1:]
	n.Label, n.Word = f.label, f.word
	if k := len(r.children) - f.kidStart; k > 0 {
		if cap(r.kidSlab)-len(r.kidSlab) < k {
			r.kidSlab = make([]*Tree, 0, max(1024, k))
		}
		at := len(r.kidSlab)
		r.kidSlab = append(r.kidSlab, r.children[f.kidStart:]...)
		n.Children = r.kidSlab[at : at+k : at+k]
		r.children = r.children[:f.kidStart]
	}
	return n
}

// checkEnd looks past a tree that has just closed for signs that it closed
// too early: a ")" next, or (in the first-column layout) an indented line
// that goes on with brackets.
func (r *PTBReader) checkEnd(closeLine, startLine int, startCol0 bool) *SyntaxError {
	r.col0Layout = startCol0
	c, line, col0, ok := r.peekSignificant()
	switch {
	case !ok:
		return nil
	case c == ')':
		r.skipToTree()
		return syntaxErrorf(line, `unbalanced brackets: extra ")"`)
	case c == '(' && startCol0 && !col0 && line > closeLine:
		r.skipToTree()
		return syntaxErrorf(closeLine, `unbalanced brackets: extra ")": the tree that starts at line %d closes here, but its brackets go on at line %d`, startLine, line)
	}
	return nil
}

// skipToTree skips what is left of a bad stretch of input: up to the next
// "(" in the first column when trees are laid out that way, else up to the
// next "(".
// MaxTreeDepth bounds the nesting of a tree. Every reader and walker of
// trees keeps stacks of its own, so a tree a million brackets deep is
// read, converted and scored; but each level holds some 500 bytes as it
// is, so a line of tens of millions of "(S " would hold tens of GB.
const MaxTreeDepth = 1 << 20

// skipOpen reads past the rest of a tree that has depth brackets open,
// counting them rather than keeping them, up to the start of the next
// tree in the first column or the end.
func (r *PTBReader) skipOpen(depth int) {
	for depth > 0 {
		tok := r.next()
		switch {
		case tok.kind == tokEOF:
			return
		case tok.kind == tokOpen && tok.col0:
			r.pending, r.hasPending = tok, true
			return
		case tok.kind == tokOpen:
			depth++
		case tok.kind == tokClose:
			depth--
		}
	}
}

func (r *PTBReader) skipToTree() {
	for {
		tok := r.next()
		switch {
		case tok.kind == tokEOF:
			return
		case tok.kind == tokOpen && (tok.col0 || !r.col0Layout):
			r.pending, r.hasPending = tok, true
			return
		}
	}
}

// countPhrases counts the children of t that are phrases, not words.
func countPhrases(t *Tree) int {
	n := 0
	for _, c := range t.Children {
		if !c.IsPreterminal() {
			n++
		}
	}
	return n
}

// unwrap removes the unlabelled outer bracket and ROOT/TOP nodes.
func unwrap(t *Tree) *Tree {
	for len(t.Children) == 1 && (t.Label == "" || t.Label == "ROOT" || t.Label == "TOP") {
		t = t.Children[0]
	}
	return t
}

func (r *PTBReader) endErr() error {
	if r.readErr == nil || r.readErr == io.EOF {
		return io.EOF
	}
	return r.readErr
}

func (r *PTBReader) nextOrPending() token {
	if r.hasPending {
		r.hasPending = false
		return r.pending
	}
	return r.next()
}

// intern returns label as a string shared by every node with that label.
func (r *PTBReader) intern(b []byte) string {
	if s, ok := r.labels[string(b)]; ok {
		return s
	}
	s := string(b)
	if r.labels != nil && len(r.labels) < 4096 {
		r.labels[s] = s
	}
	return s
}

// next reads one token.
func (r *PTBReader) next() token {
	for {
		if r.pos == r.end && !r.fill(r.pos) {
			return token{kind: tokEOF, line: r.line}
		}
		c := r.buf[r.pos]
		if c == '\n' {
			r.pos++
			r.line++
			r.lineStart = true
			r.lineAt = r.base + r.pos
			continue
		}
		if isSpace[c] {
			r.pos++
			r.lineStart = false
			continue
		}
		tok := token{line: r.line, col0: r.lineStart}
		r.lineStart = false
		switch c {
		case '(':
			r.pos++
			tok.kind = tokOpen
		case ')':
			r.pos++
			tok.kind = tokClose
		default:
			tok.kind = tokAtom
			tok.text = r.atom()
			if err := lines.CheckUTF8(tok.text, tok.line); err != nil {
				// Not UTF-8: reading ends here, as with a read error.
				bad := err.(*lines.InvalidUTF8Error)
				bad.Offset += r.base + r.pos - len(tok.text) - r.lineAt
				r.readErr, r.pos, r.end = err, 0, 0
				return token{kind: tokEOF, line: r.line}
			}
		}
		return tok
	}
}

// atom reads the bytes up to the next space or bracket.
func (r *PTBReader) atom() []byte {
	start := r.pos
	for {
		i := r.pos
		for i < r.end && !isDelim[r.buf[i]] {
			i++
		}
		r.pos = i
		if i < r.end {
			return r.buf[start:i]
		}
		// The atom may go on in the next read: keep it in the buffer.
		n := r.pos - start
		more := r.fill(start)
		start = r.pos - n
		if !more {
			return r.buf[start:r.pos]
		}
	}
}

// fill reads more input after moving buf[keep:end] to the front of the
// buffer (growing it when full); it reports whether anything was read. It
// is called when everything read is consumed, so the current line is as
// long as what was read since its start: past lines.MaxLine reading stops
// with a *lines.TooLongError.
func (r *PTBReader) fill(keep int) bool {
	if r.readErr != nil {
		return false
	}
	if r.base+r.end-r.lineAt > lines.MaxLine {
		r.readErr = &lines.TooLongError{Line: r.line, Limit: lines.MaxLine}
		return false
	}
	if keep > 0 {
		copy(r.buf, r.buf[keep:r.end])
		r.pos -= keep
		r.end -= keep
		r.base += keep
	}
	if r.end == len(r.buf) {
		grown := make([]byte, 2*len(r.buf))
		copy(grown, r.buf[:r.end])
		r.buf = grown
	}
	for range 100 {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.readErr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	r.readErr = io.ErrNoProgress
	return false
}

// peekSignificant skips spaces and returns the next byte without reading it.
func (r *PTBReader) peekSignificant() (c byte, line int, col0, ok bool) {
	for {
		if r.pos == r.end && !r.fill(r.pos) {
			return 0, r.line, false, false
		}
		c := r.buf[r.pos]
		switch {
		case c == '\n':
			r.line++
			r.lineStart = true
			r.lineAt = r.base + r.pos + 1
		case isSpace[c]:
			r.lineStart = false
		default:
			return c, r.line, r.lineStart, true
		}
		r.pos++
	}
}

func (r *PTBReader) skipLine() {
	for {
		if r.pos == r.end && !r.fill(r.pos) {
			return
		}
		if i := bytes.IndexByte(r.buf[r.pos:r.end], '\n'); i >= 0 {
			r.pos += i // the newline itself is counted by next
			return
		}
		r.pos = r.end
	}
}

var isSpace, isDelim [256]bool

func init() {
	for _, c := range []byte(" \t\n\r\v\f") {
		isSpace[c], isDelim[c] = true, true
	}
	isDelim['('], isDelim[')'] = true, true
}

// clip shortens a word quoted in an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what
}

// labelName names a bracket in a message, the unlabelled one included.
func labelName(label string) string {
	if label == "" {
		return "an unlabelled bracket"
	}
	return label
}
