// Package tagmap rewrites the tags of sentences through a table, e.g. to
// coarsen the 45 Penn Treebank tags into Smith's 17-class set. It maps
// tags one by one; it never changes words, heads or the number of tokens.
package tagmap

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Table maps a tag to its replacement.
type Table map[string]string

// smith17 is Smith's (2006, App. B) coarse tag set over the Penn tags,
// coarse tag → the Penn tags it gathers.
var smith17 = map[string][]string{
	"ADJ":     {"$", "#", "CD", "JJ", "JJR", "JJS", "PRP$", "RB", "RBR", "RBS"},
	"CONJ":    {"CC"},
	"DET":     {"DT", "PDT"},
	"ENDPUNC": {"."},
	"INPUNC":  {",", ":", "LS", "SYM", "UH"},
	"LPUNC":   {"``", "-LRB-"},
	"N":       {"EX", "FW", "NN", "NNP", "NNPS", "NNS", "PRP"},
	"POS":     {"POS"},
	"PREP":    {"IN"},
	"PRT":     {"RP"},
	"RPUNC":   {"''", "-RRB-"},
	"TO":      {"TO"},
	"V":       {"MD", "VBD", "VBP", "VB", "VBZ", "VBG"},
	"VBN":     {"VBN"},
	"W":       {"WDT", "WP$", "WP", "WRB"},
}

// ud1to2 bridges the universal tags of UD v1 to those of v2: CONJ became
// CCONJ; the other sixteen (and CCONJ itself, for mixed files) are kept.
var ud1to2 = map[string][]string{
	"ADJ": {"ADJ"}, "ADP": {"ADP"}, "ADV": {"ADV"}, "AUX": {"AUX"},
	"CCONJ": {"CONJ", "CCONJ"}, "DET": {"DET"}, "INTJ": {"INTJ"},
	"NOUN": {"NOUN"}, "NUM": {"NUM"}, "PART": {"PART"}, "PRON": {"PRON"},
	"PROPN": {"PROPN"}, "PUNCT": {"PUNCT"}, "SCONJ": {"SCONJ"},
	"SYM": {"SYM"}, "VERB": {"VERB"}, "X": {"X"},
}

// ptb2ud maps the Penn Treebank tags (with the extra tags of the English
// Web Treebank, which UD English carries as XPOS) to UD v2 universal
// tags, by each tag's usual universal tag: MD is AUX, TO and POS are PART,
// RP is ADP, and IN goes to ADP (the subordinating IN cannot be told
// apart by the tag alone).
var ptb2ud = map[string][]string{
	"ADJ":   {"JJ", "JJR", "JJS", "AFX"},
	"ADP":   {"IN", "RP"},
	"ADV":   {"RB", "RBR", "RBS", "WRB"},
	"AUX":   {"MD"},
	"CCONJ": {"CC"},
	"DET":   {"DT", "PDT", "WDT"},
	"INTJ":  {"UH"},
	"NOUN":  {"NN", "NNS"},
	"NUM":   {"CD"},
	"PART":  {"POS", "TO"},
	"PRON":  {"PRP", "PRP$", "WP", "WP$", "EX"},
	"PROPN": {"NNP", "NNPS"},
	"PUNCT": {".", ",", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP"},
	"SYM":   {"$", "#", "SYM"},
	"VERB":  {"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"},
	"X":     {"FW", "LS", "ADD", "GW", "XX"},
}

var builtins = map[string]map[string][]string{"smith17": smith17, "ud1to2": ud1to2, "ptb2ud": ptb2ud}

// Builtins names the tables built in, for --builtin.
func Builtins() []string { return []string{"ptb2ud", "smith17", "ud1to2"} }

// Builtin returns a built-in table by name.
func Builtin(name string) (Table, error) {
	if classes, ok := builtins[name]; ok {
		t := Table{}
		for coarse, tags := range classes {
			for _, tag := range tags {
				t[tag] = coarse
			}
		}
		return t, nil
	}
	return nil, fmt.Errorf("no built-in table %q (built in: %s)", name, strings.Join(Builtins(), ", "))
}

// ReadTable reads a table file: one "from to" pair of whitespace-separated
// columns per line. A field starting with "#" starts a comment that runs to
// the end of the line, so the Penn tag "#" is written "\#" (a leading
// backslash is dropped from a column). Errors name the table's line.
func ReadTable(in *pipeline.Input) (Table, error) {
	t := Table{}
	firstLine := map[string]int{}
	lines := pipeline.NewLines(in)
	for lines.Scan() {
		fields := strings.Fields(string(lines.Bytes()))
		for i, f := range fields {
			if strings.HasPrefix(f, "#") {
				fields = fields[:i]
				break
			}
		}
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return nil, lines.Errorf("want two columns, from and to, not %d", len(fields))
		}
		from, to := unescape(fields[0]), unescape(fields[1])
		if from == "" || to == "" {
			return nil, lines.Errorf(`a lone "\" is not a tag`)
		}
		if at, dup := firstLine[from]; dup {
			return nil, lines.Errorf("tag %q is already mapped on line %d", from, at)
		}
		firstLine[from] = lines.Line()
		t[from] = to
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("%s: the table maps no tag", in.Name)
	}
	return t, nil
}

func unescape(field string) string { return strings.TrimPrefix(field, `\`) }

func escape(tag string) string {
	if strings.HasPrefix(tag, "#") || strings.HasPrefix(tag, `\`) {
		return `\` + tag
	}
	return tag
}

// Write writes t in the format ReadTable reads, sorted by target then
// source tag, so that a built-in table can be printed and edited.
func (t Table) Write(w io.Writer) error {
	from := make([]string, 0, len(t))
	for f := range t {
		from = append(from, f)
	}
	sort.Slice(from, func(i, j int) bool {
		a, b := from[i], from[j]
		if t[a] != t[b] {
			return t[a] < t[b]
		}
		return a < b
	})
	var b strings.Builder
	for _, f := range from {
		fmt.Fprintf(&b, "%s\t%s\n", escape(f), escape(t[f]))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Options control Map.
type Options struct {
	Table Table
	// KeepUnknown leaves tags the table lacks as they are, instead of
	// failing.
	KeepUnknown bool
}

// Map copies the sentences of src to w with their tags mapped.
func Map(src pipeline.Source, w io.Writer, opts Options) error {
	if len(opts.Table) == 0 {
		return errors.New("tagmap: empty table")
	}
	return pipeline.EachSentence(src, func(s *format.Sentence) error {
		tags := make([]string, len(s.Tags))
		for i, tag := range s.Tags {
			to, ok := opts.Table[tag]
			switch {
			case ok:
				tags[i] = to
			case opts.KeepUnknown:
				tags[i] = tag
			default:
				return pipeline.BadRecord(fmt.Errorf("tag %q (token %d) is not in the table", tag, i+1))
			}
		}
		s.Tags = tags
		return pipeline.WriteRecord(w, s)
	})
}
