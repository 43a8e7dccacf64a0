// Package treebanks reads the constituency treebanks that are not in Penn
// Treebank form — the Spanish CESS-ESP (.tbf) and the Chinese Sinica
// Treebank sample (parsed) — into format.Tree values, and strips them as
// ptbstrip strips PTB trees: empty elements go, punctuation goes unless
// kept, constituents left empty go. The quirks handled are those listed in
// ../shared/data/README.md "Formats".
package treebanks

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ptbstrip"
)

// Format names a treebank's file format.
type Format string

const (
	CESS   Format = "cess"   // CESS-ESP .tbf: ISO-8859-1, "(tag word lemma)" leaves, "*0*" empty subjects
	Sinica Format = "sinica" // Sinica parsed: UTF-8, one "#ID TREE#PUNCT(CATEGORY)" line per tree
)

// ParseFormat reads the value of --format (ptb is ptbstrip's own).
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case CESS, Sinica:
		return f, nil
	}
	return "", fmt.Errorf("--format must be ptb, %q or %q, not %q", CESS, Sinica, s)
}

// Summary counts what a run read.
type Summary struct {
	ptbstrip.Summary
	Repaired int // CESS trees with a missing or stray ")" closed or dropped
}

// Strip reads every tree of src in format f and writes one sentence record
// per tree with "id" (<file>#<k>), "words", "tags" and "tree", stripped.
func Strip(src pipeline.Source, w io.Writer, f Format, keepPunct bool) (Summary, error) {
	var sum Summary
	emit := func(id string, t *format.Tree) error {
		sum.Trees++
		if t = strip(t, keepPunct, f); t == nil {
			sum.Empty++
			return nil
		}
		words, tags := ptbstrip.Leaves(t)
		return pipeline.WriteRecord(w, &format.Sentence{ID: id, Words: words, Tags: tags, Tree: t.String()})
	}
	bad := src.Bad
	if bad == nil {
		bad = &pipeline.BadRecords{}
	}
	err := pipeline.EachInput(src.Names, src.Stdin, func(in *pipeline.Input) error {
		prefix := in.Name
		if prefix != pipeline.StdinName {
			prefix = filepath.Base(prefix)
		}
		var seen int
		var err error
		if f == CESS {
			seen, err = readCESS(in, prefix, bad, &sum.Repaired, emit)
		} else {
			seen, err = readSinica(in, prefix, bad, emit)
		}
		if err == nil && seen == 0 {
			err = fmt.Errorf("%s: no trees", in.Name)
		}
		return err
	})
	return sum, err
}

// IsPunct tells punctuation: CESS tags beginning with F; for Sinica, the
// marks after "#", which the reader tags with their category (PERIOD,
// COMMA, …; PUNCT when it has no category).
func IsPunct(f Format, tag string) bool {
	if f == CESS {
		return strings.HasPrefix(tag, "F")
	}
	return sinicaPunct[tag]
}

var sinicaPunct = map[string]bool{"COMMA": true, "PERIOD": true, "QUESTION": true, "COLON": true,
	"EXCLANATION": true, "SEMICOLON": true, "ETC": true, "PUNCT": true}

// maxDepth bounds the nesting of the CESS and Sinica trees, which their
// readers and strip descend by recursion: a tree nested millions deep
// would overflow Go's stack (its PTB reader takes format.MaxTreeDepth
// with stacks of its own).
const maxDepth = 100000

// emptyElement marks the preterminals the readers make of empty elements.
const emptyElement = "-NONE-"

// strip removes empty elements, punctuation unless keepPunct, and the
// constituents left empty.
func strip(t *format.Tree, keepPunct bool, f Format) *format.Tree {
	if t.IsPreterminal() {
		if t.Label == emptyElement || !keepPunct && IsPunct(f, t.Label) {
			return nil
		}
		return t
	}
	kids := make([]*format.Tree, 0, len(t.Children))
	for _, c := range t.Children {
		if s := strip(c, keepPunct, f); s != nil {
			kids = append(kids, s)
		}
	}
	if len(kids) == 0 {
		return nil
	}
	return &format.Tree{Label: t.Label, Children: kids}
}

// latin1 turns ISO-8859-1 bytes into UTF-8.
func latin1(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/16)
	for _, c := range b {
		out = utf8.AppendRune(out, rune(c))
	}
	return out
}

// readCESS reads a .tbf file: a tree starts at every line that is exactly
// "(" and runs to the next one, so an unbalanced tree is cut at the next
// tree's start, its missing ")" closed and a stray one dropped.
func readCESS(in *pipeline.Input, prefix string, bad *pipeline.BadRecords, repaired *int, emit func(string, *format.Tree) error) (int, error) {
	raw, err := io.ReadAll(in)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", in.Name, err)
	}
	lines := bytes.Split(latin1(raw), []byte("\n"))
	seen := 0
	for start := 0; start < len(lines); {
		if string(bytes.TrimRight(lines[start], "\r")) != "(" {
			if len(bytes.TrimSpace(lines[start])) != 0 && seen == 0 {
				return seen, &pipeline.LineError{File: in.Name, Line: start + 1, Err: errors.New(`text before the first tree (a line that is exactly "(")`)}
			}
			start++
			continue
		}
		end := start + 1
		for end < len(lines) && string(bytes.TrimRight(lines[end], "\r")) != "(" {
			end++
		}
		seen++
		t, fixed, err := parseCESS(bytes.Join(lines[start:end], []byte("\n")))
		if err != nil {
			if err := bad.Handle(&pipeline.LineError{File: in.Name, Line: start + 1, Err: err}); err != nil {
				return seen, err
			}
		} else {
			if fixed {
				*repaired++
			}
			if err := emit(fmt.Sprintf("%s#%d", prefix, seen), t); err != nil {
				return seen, err
			}
		}
		start = end
	}
	return seen, nil
}

// cessTokens splits a tree's text into "(", ")" and atoms.
func cessTokens(b []byte) []string {
	var toks []string
	i := 0
	for i < len(b) {
		switch c := b[i]; {
		case c == '(' || c == ')':
			toks = append(toks, string(c))
			i++
		case c == ' ' || c == '\n' || c == '\r' || c == '\t':
			i++
		default:
			j := i
			for j < len(b) && !strings.ContainsRune("() \n\r\t", rune(b[j])) {
				j++
			}
			toks = append(toks, string(b[i:j]))
			i = j
		}
	}
	return toks
}

// parseCESS reads one tree "( (S …) )". A node is "(label item…)"; a node
// whose items are atoms is a leaf (tag word lemma), or an empty element
// when its only item is "*0*". fixed tells that brackets were repaired.
func parseCESS(text []byte) (*format.Tree, bool, error) {
	toks := cessTokens(text)
	pos, fixed, depth := 0, false, 0
	var node func() (*format.Tree, error)
	node = func() (*format.Tree, error) {
		if depth++; depth > maxDepth {
			return nil, fmt.Errorf("a tree nested more than %d brackets deep: no treebank's is", maxDepth)
		}
		defer func() { depth-- }()
		pos++ // "("
		label := ""
		if pos < len(toks) && toks[pos] != "(" && toks[pos] != ")" {
			label = toks[pos]
			pos++
		}
		var kids []*format.Tree
		var atoms []string
		for {
			if pos >= len(toks) { // a missing ")": close here
				fixed = true
				break
			}
			if toks[pos] == ")" {
				pos++
				break
			}
			if toks[pos] == "(" {
				k, err := node()
				if err != nil {
					return nil, err
				}
				kids = append(kids, k)
				continue
			}
			atoms = append(atoms, toks[pos])
			pos++
		}
		switch {
		case len(kids) > 0 && len(atoms) > 0:
			return nil, fmt.Errorf("node %q mixes words %q and phrases", label, atoms)
		case len(atoms) == 1 && atoms[0] == "*0*":
			return &format.Tree{Label: emptyElement, Word: "*0*"}, nil
		case len(atoms) > 0:
			if label == "" || len(atoms) > 2 {
				return nil, fmt.Errorf("leaf (%s %s) is not (tag word lemma)", label, strings.Join(atoms, " "))
			}
			return &format.Tree{Label: label, Word: atoms[0]}, nil
		case len(kids) == 0:
			return nil, fmt.Errorf("empty node %q", label)
		}
		return &format.Tree{Label: ptbstrip.StripLabel(label), Children: kids}, nil
	}
	if len(toks) == 0 || toks[0] != "(" {
		return nil, false, errors.New(`tree does not start with "("`)
	}
	t, err := node()
	if err != nil {
		return nil, false, err
	}
	if pos < len(toks) { // stray ")" after the tree: dropped
		for _, tok := range toks[pos:] {
			if tok != ")" {
				return nil, false, fmt.Errorf("text %q after the tree", tok)
			}
		}
		fixed = true
	}
	for t.Label == "" && len(t.Children) == 1 && !t.IsPreterminal() { // the outer wrapper
		t = t.Children[0]
	}
	return t, fixed, nil
}

// readSinica reads "#ID TREE#PUNCT(CATEGORY)" lines (CRLF or LF).
func readSinica(in *pipeline.Input, prefix string, bad *pipeline.BadRecords, emit func(string, *format.Tree) error) (int, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	line, seen := 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		seen++
		t, err := parseSinicaLine(text)
		if err != nil {
			if err := bad.Handle(&pipeline.LineError{File: in.Name, Line: line, Err: err}); err != nil {
				return seen, err
			}
			continue
		}
		if err := emit(fmt.Sprintf("%s#%d", prefix, seen), t); err != nil {
			return seen, err
		}
	}
	if err := sc.Err(); err != nil {
		return seen, &pipeline.LineError{File: in.Name, Line: line + 1, Err: err}
	}
	return seen, nil
}

// parseSinicaLine reads one line; the final mark becomes a last leaf of
// the root tagged with its category (COMMA, PERIOD, …).
func parseSinicaLine(text string) (*format.Tree, error) {
	if !strings.HasPrefix(text, "#") {
		return nil, errors.New(`line does not start with "#ID"`)
	}
	sp := strings.IndexByte(text, ' ')
	if sp < 0 {
		return nil, errors.New("no space after the ID")
	}
	rest := text[sp+1:]
	hash := strings.IndexByte(rest, '#')
	if hash < 0 {
		return nil, errors.New(`no "#" after the tree`)
	}
	treeText, punct := strings.TrimSpace(rest[:hash]), strings.Trim(rest[hash+1:], " \u3000")
	p := &sinicaParser{s: treeText}
	t, err := p.node(false)
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.s) {
		return nil, fmt.Errorf("text %q after the tree", p.s[p.pos:])
	}
	if punct != "" {
		mark, cat := punct, "PUNCT"
		if i := strings.IndexByte(punct, '('); i > 0 && strings.HasSuffix(punct, "CATEGORY)") {
			mark, cat = punct[:i], strings.TrimSuffix(punct[i+1:], "CATEGORY)")
		}
		if t.IsPreterminal() {
			t = &format.Tree{Label: "S", Children: []*format.Tree{t}}
		}
		t.Children = append(t.Children, &format.Tree{Label: cat, Word: mark})
	}
	return t, nil
}

type sinicaParser struct {
	s     string
	pos   int
	depth int // phrases open
}

// node reads "role:LABEL(child|…)" or a leaf "role:POS:word" (no role at
// the root). A leaf that repeats its role (head:Head:Nac:鵝掌形, a defect
// of the sample) loses the repeat. Tags lose a bracketed feature suffix
// (VA4[+ASP] → VA4, and the typo Caa[P1} → Caa).
func (p *sinicaParser) node(hasRole bool) (*format.Tree, error) {
	start := p.pos
	for p.pos < len(p.s) && !strings.ContainsRune("()|", rune(p.s[p.pos])) {
		p.pos++
	}
	head := p.s[start:p.pos]
	if p.pos < len(p.s) && p.s[p.pos] == '(' {
		label := head
		if i := strings.LastIndexByte(head, ':'); i >= 0 {
			label = head[i+1:]
		}
		if label == "" {
			return nil, fmt.Errorf("phrase without a label at byte %d", start+1)
		}
		if p.depth++; p.depth > maxDepth {
			return nil, fmt.Errorf("a tree nested more than %d phrases deep: no treebank's is", maxDepth)
		}
		p.pos++
		var kids []*format.Tree
		for {
			k, err := p.node(true)
			if err != nil {
				return nil, err
			}
			kids = append(kids, k)
			if p.pos >= len(p.s) {
				return nil, fmt.Errorf("phrase %q is not closed", label)
			}
			c := p.s[p.pos]
			p.pos++
			if c == ')' {
				break
			}
			if c != '|' {
				return nil, fmt.Errorf("unexpected %q at byte %d", c, p.pos)
			}
		}
		p.depth--
		return &format.Tree{Label: label, Children: kids}, nil
	}
	fields := strings.SplitN(head, ":", 3)
	if !hasRole {
		fields = append([]string{""}, strings.SplitN(head, ":", 2)...)
	}
	if len(fields) == 3 && (fields[1] == "Head" || fields[1] == "head") && strings.Contains(fields[2], ":") {
		fields = strings.SplitN(fields[2], ":", 2) // the repeated role
		fields = append([]string{""}, fields...)
	}
	if len(fields) != 3 || fields[1] == "" || fields[2] == "" {
		return nil, fmt.Errorf("leaf %q is not role:POS:word", head)
	}
	tag := fields[1]
	if i := strings.IndexByte(tag, '['); i > 0 {
		tag = tag[:i]
	}
	return &format.Tree{Label: tag, Word: fields[2]}, nil
}
