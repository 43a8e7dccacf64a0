package pr

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/classes"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Root is the head of a rule that attaches a word to the wall ("ROOT →
// VERB": the sentence's root may be a verb).
const Root = "ROOT"

// Rules are the head → dependent pairs of tags that universal rules
// (Naseem, Chen, Barzilay & Johnson 2010) let a dependency instantiate;
// an attachment of any other pair is not a rule. Direction plays no part.
type Rules struct {
	Name  string
	pairs map[[2]string]bool // {head, dependent}; head Root for the wall
	// content, when not nil, replaces the pairs: a dependency is a rule
	// when its head is content (for the root: its dependent is).
	content func(tag string) bool
}

// ContentHeads is the built-in table that needs no tags of a known tag
// set: UD's content-head principle (Nivre et al. 2016, "Universal
// Dependencies v1"; de Marneffe et al. 2014) makes function words depend
// on the content words they go with, and keeps them leaves. Function
// words are the classes train-classes --function-words gives the most
// frequent words (classes.FunctionPrefix); every other tag is content.
const ContentHeads = "content-heads"

func contentHeads() *Rules {
	return &Rules{Name: ContentHeads, content: func(tag string) bool { return !classes.IsFunctionClass(tag) }}
}

// NewRules makes a rule set of pairs {head, dependent}.
func NewRules(name string, pairs [][2]string) *Rules {
	r := &Rules{Name: name, pairs: map[[2]string]bool{}}
	for _, p := range pairs {
		r.pairs[p] = true
	}
	return r
}

// Allows says whether attaching dep to head instantiates a rule.
func (r *Rules) Allows(head, dep string) bool {
	if r.content != nil {
		if head == Root {
			return r.content(dep)
		}
		return r.content(head)
	}
	return r.pairs[[2]string{head, dep}]
}

// Len is the number of tag pairs (0 for content-heads, which has none).
func (r *Rules) Len() int { return len(r.pairs) }

// Pairs lists the pairs, sorted (Root first among heads).
func (r *Rules) Pairs() [][2]string {
	out := make([][2]string, 0, len(r.pairs))
	for p := range r.pairs {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b [2]string) int {
		if (a[0] == Root) != (b[0] == Root) {
			if a[0] == Root {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	return out
}

// category is a coarse class of a rule table and the tags it covers.
type category map[string][]string

// expand turns rules over categories into rules over tags.
func expand(name string, cats category, rules [][2]string) *Rules {
	var pairs [][2]string
	for _, r := range rules {
		heads := []string{Root}
		if r[0] != Root {
			heads = cats[r[0]]
		}
		for _, h := range heads {
			for _, d := range cats[r[1]] {
				pairs = append(pairs, [2]string{h, d})
			}
		}
		if len(heads) == 0 || len(cats[r[1]]) == 0 {
			panic("pr: rule over an empty category: " + r[0] + " → " + r[1])
		}
	}
	return NewRules(name, pairs)
}

// naseem13 are the rules of Naseem et al. (2010), Table 1, over their
// coarse categories.
var naseem13 = [][2]string{
	{Root, "Auxiliary"}, {Root, "Verb"},
	{"Verb", "Noun"}, {"Verb", "Pronoun"}, {"Verb", "Adverb"}, {"Verb", "Verb"},
	{"Auxiliary", "Verb"},
	{"Noun", "Adjective"}, {"Noun", "Article"}, {"Noun", "Noun"}, {"Noun", "Numeral"},
	{"Preposition", "Noun"},
	{"Adjective", "Adverb"},
}

// ptbCategories is the Penn tag map of Naseem et al.'s released code
// (map_english): VBG is a Noun, TO and IN prepositions, the
// demonstratives (DT WDT PRP$ WP$) articles, MD the auxiliary.
var ptbCategories = category{
	"Noun":        {"NN", "NNS", "NNP", "NNPS", "VBG"},
	"Verb":        {"VB", "VBD", "VBN", "VBP", "VBZ"},
	"Adjective":   {"JJ", "JJR", "JJS"},
	"Adverb":      {"RB", "RBR", "RBS", "WRB"},
	"Article":     {"DT", "WDT", "PRP$", "WP$"},
	"Numeral":     {"CD"},
	"Preposition": {"IN", "TO"},
	"Pronoun":     {"PRP", "WP"},
	"Auxiliary":   {"MD"},
}

// udCategories reads Naseem et al.'s categories as UD's universal tags,
// one tag each but Noun (this project's reading; DESIGN.md §5.11).
var udCategories = category{
	"Noun": {"NOUN", "PROPN"}, "Verb": {"VERB"}, "Adjective": {"ADJ"}, "Adverb": {"ADV"},
	"Article": {"DET"}, "Numeral": {"NUM"}, "Preposition": {"ADP"}, "Pronoun": {"PRON"},
	"Auxiliary": {"AUX"},
}

// noji13 are the rules Noji, Miyao & Johnson (2016) wrote for Universal
// Dependencies (their released copy of Naseem et al.'s code, rules_ud and
// map_ud): content heads, so auxiliaries and conjunctions depend on what
// they join; Noun covers pronouns.
var noji13 = [][2]string{
	{Root, "Verb"}, {Root, "Noun"},
	{"Verb", "Noun"}, {"Verb", "Adverb"}, {"Verb", "Verb"}, {"Verb", "Auxiliary"},
	{"Noun", "Adjective"}, {"Noun", "Article"}, {"Noun", "Numeral"}, {"Noun", "Noun"},
	{"Noun", "Conjunction"}, {"Noun", "Auxiliary"},
	{"Adjective", "Adverb"},
}

func nojiCategories(conj string) category {
	return category{
		"Noun": {"NOUN", "PROPN", "PRON"}, "Verb": {"VERB"}, "Adjective": {"ADJ"}, "Adverb": {"ADV"},
		"Article": {"DET"}, "Numeral": {"NUM"}, "Auxiliary": {"AUX"}, "Conjunction": {conj},
	}
}

// BuiltinRules are the names of the built-in rule tables.
func BuiltinRules() []string { return []string{"ud", "ud1", "naseem-ud", "ptb", ContentHeads} }

// Builtin is a built-in rule table:
//
//	ud         Noji et al.'s (2016) UD rules, UD v2 tags (CCONJ)
//	ud1        the same with UD v1's CONJ
//	naseem-ud  Naseem et al.'s 13 rules read literally onto UD v2 tags
//	ptb        Naseem et al.'s 13 rules over the Penn tags, by their map
//	content-heads  no function word (w:FORM) heads a dependency or the sentence
func Builtin(name string) (*Rules, error) {
	switch name {
	case ContentHeads:
		return contentHeads(), nil
	case "ud":
		return expand(name, nojiCategories("CCONJ"), noji13), nil
	case "ud1":
		return expand(name, nojiCategories("CONJ"), noji13), nil
	case "naseem-ud":
		return expand(name, udCategories, naseem13), nil
	case "ptb":
		return expand(name, ptbCategories, naseem13), nil
	}
	return nil, fmt.Errorf("no built-in rule table %q (grind has %s)", name, strings.Join(BuiltinRules(), ", "))
}

// ReadRules reads a rule file: one rule a line, `HEAD DEPENDENT`, two
// whitespace-separated tags, HEAD `ROOT` for the sentence's root; a field
// starting with `#` begins a comment to the end of the line, so a tag
// `#` is written `\#` (a leading `\` is dropped), as in tagmap's tables.
// Errors name the file and line.
func ReadRules(path string) (*Rules, error) {
	in, err := pipeline.Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	r := &Rules{Name: path, pairs: map[[2]string]bool{}}
	sc := bufio.NewScanner(in)
	line := 0
	for sc.Scan() {
		line++
		var fields []string
		for _, f := range strings.Fields(sc.Text()) {
			if strings.HasPrefix(f, "#") {
				break
			}
			fields = append(fields, strings.TrimPrefix(f, `\`))
		}
		switch {
		case len(fields) == 0:
			continue
		case len(fields) != 2:
			return nil, fmt.Errorf("%s:%d: a rule is two tags, HEAD DEPENDENT (HEAD %s for the root), not %d fields", in.Name, line, Root, len(fields))
		case fields[1] == Root:
			return nil, fmt.Errorf("%s:%d: %s is the head of the sentence's root, never a dependent", in.Name, line, Root)
		}
		p := [2]string{fields[0], fields[1]}
		if r.pairs[p] {
			return nil, fmt.Errorf("%s:%d: rule %s %s given twice", in.Name, line, p[0], p[1])
		}
		r.pairs[p] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", in.Name, line+1, err)
	}
	if len(r.pairs) == 0 {
		return nil, fmt.Errorf("%s: no rules", in.Name)
	}
	return r, nil
}

// LoadRules is the built-in table called name, or else the rule file of
// that name.
func LoadRules(name string) (*Rules, error) {
	if slices.Contains(BuiltinRules(), name) {
		return Builtin(name)
	}
	if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(name, `/\.`) {
		return nil, fmt.Errorf("%s: no built-in rule table or file of that name (built in: %s)", name, strings.Join(BuiltinRules(), ", "))
	}
	return ReadRules(name)
}

// Write writes r in ReadRules' format.
func (r *Rules) Write(w io.Writer) error {
	if r.content != nil {
		return fmt.Errorf("%s is a rule over tag names, not a table of pairs", r.Name)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s: %d head → dependent pairs (%s: the sentence's root)\n", r.Name, len(r.pairs), Root)
	for _, p := range r.Pairs() {
		fmt.Fprintf(bw, "%s %s\n", escape(p[0]), escape(p[1]))
	}
	return bw.Flush()
}

func escape(tag string) string {
	if strings.HasPrefix(tag, "#") || strings.HasPrefix(tag, `\`) {
		return `\` + tag
	}
	return tag
}

// mask marks, over the tag numbers of ts, the attachments that are not
// rules: child[(h·2+dir)·T + d] and root[d].
type mask struct {
	child, root []bool
}

// eachNot calls child with the index into p.Child of every attachment
// that is no rule, at each of p's child valences, in table order, then
// root with every dependent whose attachment to the wall is none.
func (m mask) eachNot(p *dmv.Params, child func(i int), root func(d int)) {
	t := p.T
	for hd := range 2 * t { // head·2 + dir
		for v := range p.V.Child {
			at := p.ChildAt(hd/2, hd%2, v, 0)
			for d, not := range m.child[hd*t : hd*t+t] {
				if not {
					child(at + d)
				}
			}
		}
	}
	for d, not := range m.root {
		if not {
			root(d)
		}
	}
}

func (r *Rules) mask(ts *dmv.TagSet) mask {
	t := ts.Len()
	m := mask{child: make([]bool, 2*t*t), root: make([]bool, t)}
	for d := 0; d < t; d++ {
		m.root[d] = !r.Allows(Root, ts.Name(d))
		for h := 0; h < t; h++ {
			not := !r.Allows(ts.Name(h), ts.Name(d))
			for dir := dmv.Left; dir <= dmv.Right; dir++ {
				m.child[(h*2+dir)*t+d] = not
			}
		}
	}
	return m
}

// Covers says how many of the tags some rule names (for content-heads:
// how many are function words, the tags it constrains).
func (r *Rules) Covers(tags []string) int {
	if r.content != nil {
		n := 0
		for _, name := range tags {
			if !r.content(name) {
				n++
			}
		}
		return n
	}
	named := map[string]bool{}
	for p := range r.pairs {
		named[p[0]], named[p[1]] = true, true
	}
	n := 0
	for _, name := range tags {
		if named[name] {
			n++
		}
	}
	return n
}

// CheckCovers refuses rules that name none of the tags: a constraint
// about nothing (a table for another tag set, a rule file's typo) would
// train or choose as if there were none, or push every dependency away.
func (r *Rules) CheckCovers(tags []string) error {
	if r.Covers(tags) > 0 {
		return nil
	}
	return fmt.Errorf("the rules of %s name none of the corpus's tags (%s)", r.Name, Abbreviate(tags))
}

// Abbreviate lists tags, the first eight of a longer list.
func Abbreviate(tags []string) string {
	if len(tags) > 8 {
		return strings.Join(tags[:8], " ") + fmt.Sprintf(" … %d in all", len(tags))
	}
	return strings.Join(tags, " ")
}
