// Package udcheck checks CoNLL-U files against the rules of levels 1 and 2
// of the Universal Dependencies validator (validate.py of
// github.com/UniversalDependencies/tools; the rules as its 2.x versions
// state them, re-stated here, not translated): level 1 is the CoNLL-U
// backbone — lines, columns, white space, IDs and multiword ranges,
// Unicode NFC, LF line ends; level 2 is UD's format — sent_id and text
// comments (the text against the forms and SpaceAfter=No), the 17
// universal POS tags, the 37 universal relations (their universal part),
// features' shape, multiword-token and empty-node lines, HEAD and DEPS
// references, root iff head 0, and one tree per sentence: no cycle, one
// root unless Options.MultipleRoots (the validator's --multiple-roots).
// Language-specific lists (levels 4 and 5) and the guidelines' content
// (level 3) are not checked; neither are they by the validator at level 2.
//
// Each problem carries the validator's own test id ("text-form-mismatch",
// "multiple-roots", …), so a report can be compared with the validator's.
// grind has no network to fetch the validator in its tests; this is the
// documented check in its place (deps2conll's tests run it over every UD
// file of ../shared/data).
package udcheck

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Options of a check.
type Options struct {
	// MultipleRoots allows trees with several words attached to the root
	// (validate.py --multiple-roots).
	MultipleRoots bool
}

// Problem is one rule broken.
type Problem struct {
	File   string
	Line   int    // the line at fault, or the sentence's first word line
	SentID string // the sentence's sent_id, when it has one
	Level  int    // 1 or 2
	Test   string // the validator's test id
	Msg    string
}

func (p Problem) String() string {
	sent := ""
	if p.SentID != "" {
		sent = " (sentence " + p.SentID + ")"
	}
	return fmt.Sprintf("%s:%d%s: [L%d %s] %s", p.File, p.Line, sent, p.Level, p.Test, p.Msg)
}

// Checker checks files; sent_ids must be unique across the files one
// Checker sees (the validator's treebank-wide check when given them all).
type Checker struct {
	opts     Options
	ids      map[string]bool
	Problems []Problem

	file   string
	sentID string // the last sent_id read, for messages
}

// New makes a Checker.
func New(opts Options) *Checker { return &Checker{opts: opts, ids: map[string]bool{}} }

// The universal POS tags and relations of UD v2.
var (
	uposTags = set("ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X")
	deprels  = set("acl advcl advmod amod appos aux case cc ccomp clf compound conj cop csubj dep det discourse " +
		"dislocated expl fixed flat goeswith iobj list mark nmod nsubj nummod obj obl orphan parataxis punct " +
		"reparandum root vocative xcomp")
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Column indices.
const (
	colID = iota
	colForm
	colLemma
	colUPOS
	colXPOS
	colFeats
	colHead
	colDeprel
	colDeps
	colMisc
	columns
)

var colNames = [columns]string{"ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC"}

var (
	wordID     = regexp.MustCompile(`^[1-9][0-9]*$`)
	rangeID    = regexp.MustCompile(`^([1-9][0-9]*)-([1-9][0-9]*)$`)
	emptyID    = regexp.MustCompile(`^([0-9]+)\.([1-9][0-9]*)$`)
	sentIDLine = regexp.MustCompile(`^# sent_id\s*=\s*(\S+)$`)
	textLine   = regexp.MustCompile(`^# text\s*=\s*(.+)$`)
	uposShape  = regexp.MustCompile(`^[A-Z]+$`)
	relShape   = regexp.MustCompile(`^[a-z]+(:[a-z]+)?$`)
	erelShape  = regexp.MustCompile(`^[a-z]+(:[a-z]+)?(:[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(_[\p{Ll}\p{Lm}\p{Lo}\p{M}]+)*)?(:[a-z]+)?$`)
	featShape  = regexp.MustCompile(`^([A-Z0-9][A-Z0-9a-z]*(?:\[[a-z0-9]+\])?)=(([A-Z0-9][A-Z0-9a-z]*)(,([A-Z0-9][A-Z0-9a-z]*))*)$`)
	basicHead  = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	enhHead    = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.[1-9][0-9]*)?$`)
	uniqueMisc = set("SpaceAfter Translit LTranslit Gloss LId LDeriv")
)

// row is one word, multiword-token or empty-node line.
type row struct {
	line int
	cols []string
}

func (r row) word() bool  { return wordID.MatchString(r.cols[colID]) }
func (r row) mwt() bool   { return rangeID.MatchString(r.cols[colID]) }
func (r row) empty() bool { return emptyID.MatchString(r.cols[colID]) }

func (c *Checker) report(line, level int, test, format string, args ...any) {
	c.Problems = append(c.Problems, Problem{File: c.file, Line: line, SentID: c.sentID, Level: level, Test: test, Msg: fmt.Sprintf(format, args...)})
}

// File checks one file's text.
func (c *Checker) File(name string, r io.Reader) error {
	c.file, c.sentID = name, ""
	br := bufio.NewReader(r)
	var comments []string
	var rows []row
	crlf := false
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return err
		}
		if line == "" && err == io.EOF {
			break
		}
		line = strings.TrimSuffix(line, "\n")
		if strings.HasSuffix(line, "\r") {
			line, crlf = strings.TrimSuffix(line, "\r"), true
		}
		switch {
		case !utf8.ValidString(line):
			c.report(n, 1, "invalid-utf8", "the line is not UTF-8")
		case line != "" && strings.TrimSpace(line) == "":
			c.report(n, 1, "pseudo-empty-line", "a line of white space only")
			if len(rows) > 0 {
				c.sentence(comments, rows)
				comments, rows = nil, nil
			}
		case line == "":
			if len(rows) > 0 {
				c.sentence(comments, rows)
				comments, rows = nil, nil
			} else {
				c.report(n, 1, "extra-empty-line", "an empty line that ends no sentence")
			}
		case line[0] == '#':
			if m := sentIDLine.FindStringSubmatch(line); m != nil {
				c.sentID = m[1]
			}
			if len(rows) == 0 {
				comments = append(comments, line)
			} else {
				c.report(n, 1, "misplaced-comment", "a comment among the word lines")
			}
		case unicode.IsDigit([]rune(line)[0]):
			if !norm.NFC.IsNormalString(line) {
				c.report(n, 1, "unicode-normalization", "the line is not in Unicode NFC")
			}
			cols := strings.Split(line, "\t")
			if len(cols) != columns {
				c.report(n, 1, "number-of-columns", "%d columns, not 10", len(cols))
				continue
			}
			r := row{line: n, cols: cols}
			rows = append(rows, r)
			c.columns(r)
		default:
			c.report(n, 1, "invalid-line", "a line that is neither a comment, a word line nor empty: %q", line)
		}
		if err == io.EOF {
			break
		}
	}
	if len(comments) > 0 || len(rows) > 0 {
		c.report(0, 1, "missing-empty-line", "no empty line after the last sentence")
		if len(rows) > 0 {
			c.sentence(comments, rows)
		}
	}
	if crlf {
		c.report(0, 1, "non-unix-newline", "CRLF line ends; only LF is allowed")
	}
	return nil
}

// columns checks what one line's columns can be checked for alone.
func (c *Checker) columns(r row) {
	for i, v := range r.cols {
		switch {
		case v == "":
			c.report(r.line, 1, "empty-column", "%s is empty", colNames[i])
			continue
		case unicode.IsSpace([]rune(v)[0]):
			c.report(r.line, 1, "leading-whitespace", "%s starts with white space", colNames[i])
		}
		rs := []rune(v)
		if unicode.IsSpace(rs[len(rs)-1]) {
			c.report(r.line, 1, "trailing-whitespace", "%s ends with white space", colNames[i])
		}
		for k := 1; k < len(rs); k++ {
			if unicode.IsSpace(rs[k-1]) && unicode.IsSpace(rs[k]) {
				c.report(r.line, 1, "repeated-whitespace", "%s holds two white-space characters in a row", colNames[i])
				break
			}
		}
		if i != colForm && i != colLemma && i != colMisc && strings.ContainsFunc(v, unicode.IsSpace) {
			c.report(r.line, 1, "invalid-whitespace", "white space in %s: %q", colNames[i], v)
		}
	}
	if !r.word() && !r.mwt() && !r.empty() {
		c.report(r.line, 1, "invalid-word-id", "ID %q is neither a word's, a multiword token's nor an empty node's", r.cols[colID])
		return
	}
	// Level 2.
	if r.mwt() {
		for i := colLemma; i < colMisc; i++ {
			if r.cols[i] != "_" {
				c.report(r.line, 2, "mwt-nonempty-field", "a multiword token's %s must be _, not %q", colNames[i], r.cols[i])
			}
		}
		return
	}
	empty := r.empty()
	if upos := r.cols[colUPOS]; !(uposShape.MatchString(upos) || empty && upos == "_") {
		c.report(r.line, 2, "invalid-upos", "UPOS %q", upos)
	} else if !(empty && upos == "_") && !uposTags[upos] {
		c.report(r.line, 2, "unknown-upos", "UPOS %q is not a universal POS tag", upos)
	}
	rel := r.cols[colDeprel]
	if !(relShape.MatchString(rel) || empty && rel == "_") {
		c.report(r.line, 2, "invalid-deprel", "DEPREL %q", rel)
	}
	deps, ok := depsList(r.cols[colDeps])
	if !ok {
		c.report(r.line, 2, "invalid-deps", "DEPS %q is not head:relation pairs", r.cols[colDeps])
	}
	for _, d := range deps {
		if !erelShape.MatchString(d[1]) {
			c.report(r.line, 2, "invalid-edeprel", "enhanced relation %q", d[1])
		} else if u, _, _ := strings.Cut(d[1], ":"); !deprels[u] && u != "ref" {
			c.report(r.line, 2, "unknown-edeprel", "enhanced relation %q is not a universal one", d[1])
		}
	}
	c.features(r)
	if empty {
		for _, i := range []int{colHead, colDeprel} {
			if r.cols[i] != "_" {
				c.report(r.line, 2, "mwt-nonempty-field", "an empty node's %s must be _, not %q", colNames[i], r.cols[i])
			}
		}
		return
	}
	if u, _, _ := strings.Cut(rel, ":"); !deprels[u] {
		c.report(r.line, 2, "unknown-deprel", "DEPREL %q is not a universal relation", rel)
	}
}

// depsList splits DEPS into head:relation pairs; "_" is none.
func depsList(deps string) ([][2]string, bool) {
	if deps == "_" {
		return nil, true
	}
	var out [][2]string
	for hd := range strings.SplitSeq(deps, "|") {
		h, d, ok := strings.Cut(hd, ":")
		if !ok {
			return nil, false
		}
		out = append(out, [2]string{h, d})
	}
	return out, true
}

// features checks FEATS: Feature=Value pairs of the right shape, sorted
// (case-insensitively) by feature and by value, none repeated.
func (c *Checker) features(r row) {
	feats := r.cols[colFeats]
	if feats == "_" {
		return
	}
	list := strings.Split(feats, "|")
	if !slices.IsSortedFunc(list, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) }) {
		c.report(r.line, 2, "unsorted-features", "features not sorted: %q", feats)
	}
	seen := map[string]bool{}
	for _, f := range list {
		m := featShape.FindStringSubmatch(f)
		if m == nil {
			c.report(r.line, 2, "invalid-feature", "%q is not Feature=Value", f)
			seen[f] = true
			continue
		}
		if seen[m[1]] {
			c.report(r.line, 2, "repeated-feature", "feature %s twice in %q", m[1], feats)
		}
		seen[m[1]] = true
		values := strings.Split(m[2], ",")
		lower := make([]string, len(values))
		for i, v := range values {
			lower[i] = strings.ToLower(v) // each of the shape featShape asks (the validator's invalid-feature-value)
		}
		if !slices.IsSorted(lower) {
			c.report(r.line, 2, "unsorted-feature-values", "values not sorted: %q", f)
		}
		if len(slices.Compact(slices.Sorted(slices.Values(values)))) != len(values) {
			c.report(r.line, 2, "repeated-feature-value", "a value twice in %q", f)
		}
	}
}

// sentence checks what needs a whole sentence.
func (c *Checker) sentence(comments []string, rows []row) {
	first := rows[0].line
	c.idSequence(rows)
	c.sentIDAndText(comments, rows)
	ids := map[string]bool{"0": true}
	for _, r := range rows {
		if r.word() || r.empty() {
			ids[r.cols[colID]] = true
		}
	}
	edges := map[string][]string{} // enhanced: head → dependents
	enhanced := false
	for _, r := range rows {
		if r.mwt() {
			continue
		}
		if r.word() {
			head, rel := r.cols[colHead], r.cols[colDeprel]
			if head == "0" && rel != "root" {
				c.report(r.line, 2, "0-is-not-root", "DEPREL must be root when HEAD is 0")
			}
			if head != "0" && rel == "root" {
				c.report(r.line, 2, "root-is-not-0", "DEPREL root with HEAD %s", head)
			}
			if !basicHead.MatchString(head) {
				c.report(r.line, 2, "invalid-head", "HEAD %q", head)
			} else if !ids[head] {
				c.report(r.line, 2, "unknown-head", "HEAD %s is no word of the sentence", head)
			}
		} else {
			enhanced = true
		}
		if r.cols[colMisc] != "_" {
			count := map[string]int{}
			for a := range strings.SplitSeq(r.cols[colMisc], "|") {
				name, _, _ := strings.Cut(a, "=")
				if count[name]++; uniqueMisc[name] && count[name] == 2 {
					c.report(r.line, 2, "repeated-misc", "MISC attribute %s twice", name)
				}
			}
		}
		deps, ok := depsList(r.cols[colDeps])
		if !ok {
			continue
		}
		id, _ := strconv.ParseFloat(r.cols[colID], 64)
		var heads []float64
		for k, d := range deps {
			enhanced = true
			edges[d[0]] = append(edges[d[0]], r.cols[colID])
			if d[0] == "0" && d[1] != "root" {
				c.report(r.line, 2, "enhanced-0-is-not-root", "enhanced relation must be root when its head is 0")
			}
			if d[0] != "0" && d[1] == "root" {
				c.report(r.line, 2, "enhanced-root-is-not-0", "enhanced relation root with head %s", d[0])
			}
			if !enhHead.MatchString(d[0]) {
				c.report(r.line, 2, "invalid-ehead", "enhanced head %q", d[0])
			} else if !ids[d[0]] {
				c.report(r.line, 2, "unknown-ehead", "enhanced head %s is no node of the sentence", d[0])
			}
			h, _ := strconv.ParseFloat(d[0], 64)
			if h == id {
				c.report(r.line, 2, "deps-self-loop", "node %s is its own enhanced head", r.cols[colID])
			}
			if k > 0 && h < heads[k-1] {
				c.report(r.line, 2, "unsorted-deps", "DEPS not sorted by head: %q", r.cols[colDeps])
			} else if k > 0 && h == heads[k-1] {
				if d[1] < deps[k-1][1] {
					c.report(r.line, 2, "unsorted-deps-2", "DEPS of one head not sorted by relation: %q", r.cols[colDeps])
				} else if d[1] == deps[k-1][1] {
					c.report(r.line, 2, "repeated-deps", "%s:%s twice in DEPS", d[0], d[1])
				}
			}
			heads = append(heads, h)
		}
	}
	c.tree(rows, first)
	if enhanced {
		reach := map[string]bool{}
		var visit func(string)
		visit = func(n string) {
			for _, d := range edges[n] {
				if !reach[d] {
					reach[d] = true
					visit(d)
				}
			}
		}
		visit("0")
		for id := range ids {
			if id != "0" && !reach[id] {
				c.report(first, 2, "unconnected-egraph", "the enhanced graph does not reach node %s from the root", id)
				break
			}
		}
	}
}

// idSequence checks the word IDs 1, 2, …, the empty nodes n.1, n.2, …
// after word n, and the multiword ranges: before their first word, n < m,
// within the sentence, not overlapping.
func (c *Checker) idSequence(rows []row) {
	words, emptyNext, last := 0, 1, 0
	lastRange := 0 // the last word of the ranges so far
	for _, r := range rows {
		if !r.empty() {
			emptyNext = 1
		}
		switch {
		case r.word():
			id, _ := strconv.Atoi(r.cols[colID])
			words++
			if id != words {
				c.report(r.line, 1, "word-id-sequence", "word %d where %d is due (IDs go 1, 2, 3…)", id, words)
				words = id
			}
			last = id
		case r.mwt():
			m := rangeID.FindStringSubmatch(r.cols[colID])
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			switch {
			case a <= last:
				c.report(r.line, 1, "misplaced-word-interval", "multiword token %s does not come before its first word", r.cols[colID])
			case b <= a:
				c.report(r.line, 1, "reversed-word-interval", "multiword token %s is not n-m with n < m", r.cols[colID])
			case a <= lastRange:
				c.report(r.line, 1, "overlapping-word-intervals", "multiword token %s overlaps the one before", r.cols[colID])
			}
			lastRange = max(lastRange, b)
		case r.empty():
			m := emptyID.FindStringSubmatch(r.cols[colID])
			w, _ := strconv.Atoi(m[1])
			k, _ := strconv.Atoi(m[2])
			if w != last || k != emptyNext {
				c.report(r.line, 1, "misplaced-empty-node", "empty node %s where %d.%d is due", r.cols[colID], last, emptyNext)
			}
			emptyNext++
		}
	}
	for _, r := range rows {
		if r.mwt() {
			m := rangeID.FindStringSubmatch(r.cols[colID])
			if b, _ := strconv.Atoi(m[2]); b > words {
				c.report(r.line, 1, "word-interval-out", "multiword token %s goes past the sentence's %d words", r.cols[colID], words)
			}
		}
	}
}

// sentIDAndText checks the sentence's sent_id (one, unique, of the right
// form) and text (one, not ending in white space, matching the tokens'
// forms with a space after each token whose MISC lacks SpaceAfter=No).
func (c *Checker) sentIDAndText(comments []string, rows []row) {
	first := rows[0].line
	var ids, texts []string
	for _, l := range comments {
		if m := sentIDLine.FindStringSubmatch(l); m != nil {
			ids = append(ids, m[1])
		} else if strings.HasPrefix(l, "# sent_id") || strings.HasPrefix(l, "#sent_id") {
			c.report(first, 2, "invalid-sent-id", "%q is not # sent_id = ID (ID without white space)", l)
		}
		if m := textLine.FindStringSubmatch(l); m != nil {
			texts = append(texts, m[1])
		}
	}
	switch len(ids) {
	case 0:
		c.report(first, 2, "missing-sent-id", "no sent_id")
	case 1:
		if c.ids[ids[0]] {
			c.report(first, 2, "non-unique-sent-id", "sent_id %q given before", ids[0])
		}
		c.ids[ids[0]] = true
		if strings.Count(ids[0], "/") > 1 {
			c.report(first, 2, "slash-in-sent-id", "sent_id %q has more than one /", ids[0])
		}
	default:
		c.report(first, 2, "multiple-sent-id", "%d sent_ids", len(ids))
	}
	switch len(texts) {
	case 0:
		c.report(first, 2, "missing-text", "no text")
		return
	case 1:
	default:
		c.report(first, 2, "multiple-text", "%d texts", len(texts))
		return
	}
	text := texts[0]
	if rs := []rune(text); unicode.IsSpace(rs[len(rs)-1]) {
		c.report(first, 2, "text-trailing-whitespace", "the text ends with white space")
	}
	inside := map[string]bool{} // words of multiword tokens
	mismatch := false
	for _, r := range rows {
		misc := r.cols[colMisc]
		if strings.Contains(misc, "NoSpaceAfter=Yes") {
			c.report(r.line, 2, "nospaceafter-yes", "NoSpaceAfter=Yes is SpaceAfter=No")
		}
		switch {
		case r.empty():
			if strings.Contains(misc, "SpaceAfter=No") {
				c.report(r.line, 2, "spaceafter-empty-node", "SpaceAfter=No on an empty node")
			}
			continue
		case r.mwt():
			m := rangeID.FindStringSubmatch(r.cols[colID])
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			for w := a; w <= b; w++ {
				inside[strconv.Itoa(w)] = true
			}
		case inside[r.cols[colID]]:
			if strings.Contains(misc, "SpaceAfter=No") {
				c.report(r.line, 2, "spaceafter-mwt-node", "SpaceAfter=No on a word of a multiword token (it goes on the token's line)")
			}
			continue
		}
		form := r.cols[colForm]
		rest, ok := strings.CutPrefix(text, form)
		if !ok {
			if !mismatch {
				c.report(r.line, 2, "text-form-mismatch", "the text reads %q where the form is %q", clip(text, len(form)+20), form)
				mismatch = true
			}
			continue
		}
		text = rest
		if !slices.Contains(strings.Split(misc, "|"), "SpaceAfter=No") {
			if text != "" && !unicode.IsSpace([]rune(text)[0]) {
				c.report(r.line, 2, "missing-spaceafter", "no space after %q in the text, and no SpaceAfter=No", form)
			}
			text = strings.TrimLeftFunc(text, unicode.IsSpace)
		}
	}
	if text != "" {
		c.report(first, 2, "text-extra-chars", "the text goes on after the last form: %q", clip(text, 30))
	}
}

// tree checks the basic tree: no word its own head, one root unless
// MultipleRoots, every word reachable from the root (no cycle).
func (c *Checker) tree(rows []row, first int) {
	children := map[int][]int{}
	n := 0
	for _, r := range rows {
		if !r.word() {
			continue
		}
		id, _ := strconv.Atoi(r.cols[colID])
		head, err := strconv.Atoi(r.cols[colHead])
		if err != nil {
			return // reported as invalid-head
		}
		if head == id {
			c.report(r.line, 2, "head-self-loop", "word %d is its own head", id)
			return
		}
		children[head] = append(children[head], id)
		n = max(n, id)
	}
	if len(children[0]) > 1 && !c.opts.MultipleRoots {
		c.report(first, 2, "multiple-roots", "%d words attached to the root: %v", len(children[0]), children[0])
		return
	}
	reached := map[int]bool{}
	stack := []int{0}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range children[h] {
			if !reached[d] {
				reached[d] = true
				stack = append(stack, d)
			}
		}
	}
	var lost []int
	for w := 1; w <= n; w++ {
		if !reached[w] {
			lost = append(lost, w)
		}
	}
	if len(lost) > 0 {
		c.report(first, 2, "non-tree", "words %v are not reachable from the root", lost)
	}
}

// clip is the first n bytes of s or fewer, whole runes.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
