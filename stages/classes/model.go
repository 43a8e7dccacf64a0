package classes

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Family is the header's family of a class model, and the methods that
// make one.
const (
	Family      = "classes"
	MethodKlein = "klein"
	MethodBrown = "brown"
)

// Methods lists the methods of train-classes.
var Methods = []string{MethodKlein, MethodBrown}

// Model assigns classes to words: the training words' classes, and for
// other words the unseen rule (unseen.go).
type Model struct {
	Method    string
	Lowercase bool     // words are looked up lowercased (Klein's classes)
	Classes   []string // in order of first appearance among Words
	Words     []string // most frequent first
	Counts    []int
	ClassOf   []int // index in Classes, by word
	Info      Info

	index      map[string]int
	classIndex map[string]int
	unseen     map[unseenKey]int
}

// Info is what the header tells about the training run.
type Info struct {
	Sentences int `json:"sentences"`
	Tokens    int `json:"tokens"`
	// Klein's settings and k-means's end
	Contexts   int     `json:"contexts,omitempty"`
	Rank       int     `json:"rank,omitempty"`
	Seed       uint64  `json:"seed,omitempty"`
	Iterations int     `json:"iterations,omitempty"`
	Distortion float64 `json:"distortion,omitempty"`
	// Brown's average mutual information of the classes, in bits
	AMI float64 `json:"ami,omitempty"`
	// the most frequent word forms given a class of their own
	FunctionWords int `json:"function_words,omitempty"`
}

// header and record are the model's lines.
type header struct {
	Ev        string `json:"ev"`
	Family    string `json:"family"`
	Method    string `json:"method"`
	Classes   int    `json:"classes"`
	Lowercase bool   `json:"lowercase"`
	Events    int    `json:"events"`
	Info
}

type record struct {
	Ev     string `json:"ev"`
	Word   string `json:"word,omitempty"`
	Shape  string `json:"shape,omitempty"`
	Suffix string `json:"suffix,omitempty"`
	Class  string `json:"class"`
	N      int    `json:"n,omitempty"`
}

// line is any line of a model file as read.
type line struct {
	record
	Family    string `json:"family"`
	Method    string `json:"method"`
	Classes   *int   `json:"classes"`
	Lowercase bool   `json:"lowercase"`
	Events    *int   `json:"events"`
	Info
	SentenceWords []string `json:"words"`
}

// newModel builds the model of word types and their classes (names).
func newModel(method string, lower bool, types []string, counts []int, names []string, info Info) *Model {
	m := &Model{Method: method, Lowercase: lower, Words: types, Counts: counts, ClassOf: make([]int, len(types)), Info: info}
	seen := map[string]int{}
	for i, name := range names {
		c, ok := seen[name]
		if !ok {
			c = len(m.Classes)
			seen[name] = c
			m.Classes = append(m.Classes, name)
		}
		m.ClassOf[i] = c
	}
	m.finish()
	m.unseen = buildUnseen(m.Words, m.Counts, m.ClassOf)
	return m
}

func (m *Model) finish() {
	m.index = make(map[string]int, len(m.Words))
	for i, w := range m.Words {
		m.index[w] = i
	}
	m.classIndex = make(map[string]int, len(m.Classes))
	for i, c := range m.Classes {
		m.classIndex[c] = i
	}
}

// Class is the class of a word, and whether the model saw the word.
func (m *Model) Class(word string) (string, bool) {
	if m.Lowercase {
		word = strings.ToLower(word)
	}
	if i, ok := m.index[word]; ok {
		return m.Classes[m.ClassOf[i]], true
	}
	if m.Info.FunctionWords > 0 { // "THE", unseen, is still the's
		if c, ok := m.classIndex[FunctionPrefix+strings.ToLower(word)]; ok {
			return m.Classes[c], false
		}
	}
	return m.Classes[lookupUnseen(m.unseen, word)], false
}

// Write writes the model: the header, one "word" record per word type
// (most frequent first), then the unseen rule's "unseen" records (sorted
// by shape and suffix).
func (m *Model) Write(w io.Writer) error {
	keys := make([]unseenKey, 0, len(m.unseen))
	for k := range m.unseen {
		keys = append(keys, k)
	}
	sortKeys(keys)
	h := header{Ev: "header", Family: Family, Method: m.Method, Classes: len(m.Classes), Lowercase: m.Lowercase,
		Events: len(m.Words) + len(keys), Info: m.Info}
	if err := pipeline.WriteRecord(w, h); err != nil {
		return err
	}
	for i, word := range m.Words {
		if err := pipeline.WriteRecord(w, record{Ev: "word", Word: word, Class: m.Classes[m.ClassOf[i]], N: m.Counts[i]}); err != nil {
			return err
		}
	}
	for _, k := range keys {
		if err := pipeline.WriteRecord(w, record{Ev: "unseen", Shape: k.shape, Suffix: k.suffix, Class: m.Classes[m.unseen[k]]}); err != nil {
			return err
		}
	}
	return nil
}

func sortKeys(keys []unseenKey) {
	for i := 1; i < len(keys); i++ { // insertion sort: a few thousand keys
		for j := i; j > 0 && keyLess(keys[j], keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

func keyLess(a, b unseenKey) bool {
	if a.shape != b.shape {
		return a.shape < b.shape
	}
	return a.suffix < b.suffix
}

// ReadModel reads a class model, checking it whole: its header, every
// record's fields, no word twice, classes that are the header's number,
// a rule whose classes are the words', and the count of events.
func ReadModel(path string) (*Model, error) {
	in, err := pipeline.Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	m := &Model{index: map[string]int{}, unseen: map[unseenKey]int{}}
	classID := map[string]int{}
	var h *line
	events := 0
	err = pipeline.EachRecordIn(in, nil, func(l *line, at *pipeline.Lines) error {
		if h == nil {
			if err := checkHeader(l); err != nil {
				return at.Errorf("%v", err)
			}
			h = l
			m.Method, m.Lowercase, m.Info = l.Method, l.Lowercase, l.Info
			return nil
		}
		events++
		if events > *h.Events {
			return at.Errorf("more events than the header's %d", *h.Events)
		}
		switch l.Ev {
		case "word":
			if len(m.unseen) > 0 {
				return at.Errorf(`a "word" record after the "unseen" records`)
			}
			if err := m.addWord(&l.record, classID); err != nil {
				return at.Errorf("%v", err)
			}
		case "unseen":
			if err := m.addUnseen(&l.record, classID); err != nil {
				return at.Errorf("%v", err)
			}
		case "header":
			return at.Errorf("a second header")
		default:
			return at.Errorf(`event %q: a class model has "word" and "unseen" records`, l.Ev)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	where := func(format string, args ...any) error {
		return &pipeline.LineError{File: in.Name, Err: fmt.Errorf(format, args...)}
	}
	switch {
	case h == nil:
		return nil, where("empty: not a class model (train-classes --save-model writes one)")
	case events < *h.Events:
		return nil, where("cut off: the header says %d events, the file has %d", *h.Events, events)
	case len(m.Words) == 0:
		return nil, where("no word records")
	case len(m.Classes) != *h.Classes:
		return nil, where("the header says %d classes, the words have %d", *h.Classes, len(m.Classes))
	}
	if _, ok := m.unseen[unseenKey{}]; !ok {
		return nil, where(`no "unseen" record without shape and suffix: the rule's last resort is missing`)
	}
	m.classIndex = classID
	return m, nil
}

// checkHeader says what is wrong with a model's first line.
func checkHeader(l *line) error {
	switch {
	case l.Ev == "" && l.SentenceWords != nil:
		return errors.New("a sentence, not a class model (train-classes --save-model writes one; the sentences go after -m MODEL)")
	case l.Ev != "header":
		return errors.New(`not a class model: its first line is not its header {"ev":"header","family":"classes",...} (train-classes --save-model writes one)`)
	case l.Family != Family:
		return fmt.Errorf("a model of family %q, not a class model (train-classes --save-model writes those; tag and decode take the other families' models)", l.Family)
	case l.Method != MethodKlein && l.Method != MethodBrown:
		return fmt.Errorf("method %q: a class model's is %q or %q", l.Method, MethodKlein, MethodBrown)
	case l.Events == nil || *l.Events < 1:
		return errors.New(`the header needs "events", the number of records after it (≥ 1)`)
	case l.Classes == nil || *l.Classes < 1:
		return errors.New(`the header needs "classes", the number of classes (≥ 1)`)
	}
	return nil
}

func (m *Model) addWord(r *record, classID map[string]int) error {
	switch {
	case r.Word == "":
		return errors.New(`a "word" record needs "word"`)
	case r.Class == "":
		return errors.New(`a "word" record needs "class"`)
	case r.N < 1:
		return fmt.Errorf("word %q: its count \"n\" must be ≥ 1", r.Word)
	case r.Shape != "" || r.Suffix != "":
		return fmt.Errorf(`word %q: "shape" and "suffix" belong to "unseen" records`, r.Word)
	case m.Lowercase && strings.ToLower(r.Word) != r.Word:
		return fmt.Errorf("word %q: the model is lowercased (its header says so), and the word is not", r.Word)
	case IsFunctionClass(r.Class) && m.Info.FunctionWords == 0:
		return fmt.Errorf("word %q: class %q is a function word's, and the header gives no \"function_words\"", r.Word, r.Class)
	case m.Method == MethodBrown && !IsFunctionClass(r.Class) && strings.Trim(r.Class, "01") != "":
		return fmt.Errorf("word %q: class %q is not a bit string (a Brown class is its path, 0s and 1s)", r.Word, r.Class)
	}
	if _, dup := m.index[r.Word]; dup {
		return fmt.Errorf("word %q twice", r.Word)
	}
	c, ok := classID[r.Class]
	if !ok {
		c = len(m.Classes)
		classID[r.Class] = c
		m.Classes = append(m.Classes, r.Class)
	}
	m.index[r.Word] = len(m.Words)
	m.Words = append(m.Words, r.Word)
	m.Counts = append(m.Counts, r.N)
	m.ClassOf = append(m.ClassOf, c)
	return nil
}

func (m *Model) addUnseen(r *record, classID map[string]int) error {
	k := unseenKey{r.Shape, r.Suffix}
	switch {
	case r.Word != "" || r.N != 0:
		return errors.New(`an "unseen" record has "shape", "suffix" and "class", no "word" or "n"`)
	case k.suffix != "" && k.shape == "":
		return fmt.Errorf(`suffix %q without a shape: the rule looks suffixes up by shape`, k.suffix)
	}
	c, ok := classID[r.Class]
	if !ok {
		return fmt.Errorf("class %q: no word has it", r.Class)
	}
	if _, dup := m.unseen[k]; dup {
		return fmt.Errorf("shape %q suffix %q twice", k.shape, k.suffix)
	}
	m.unseen[k] = c
	return nil
}

// TagReport counts what tagging met.
type TagReport struct {
	Sentences, Tokens, Unseen int
}

// Tag writes each sentence of src with its words' classes in "tags"
// (the first prefix characters of each, when prefix > 0) and its
// reference tags in "gold_tags".
func (m *Model) Tag(src pipeline.Source, w io.Writer, prefix int) (TagReport, error) {
	var rep TagReport
	err := pipeline.EachRecord(src, func(s *format.Sentence, _ *pipeline.Lines) error {
		if err := checkSentence(s); err != nil {
			return pipeline.BadRecord(err)
		}
		tags := make([]string, len(s.Words))
		for i, word := range s.Words {
			c, seen := m.Class(word)
			if !seen {
				rep.Unseen++
			}
			tags[i] = cut(c, prefix)
		}
		rep.Sentences++
		rep.Tokens += len(tags)
		return WriteTagged(w, []*format.Sentence{s}, [][]string{tags})
	})
	return rep, err
}

// cut is a class's first prefix characters (all of it when prefix is 0,
// the class is shorter or it is a function word's).
func cut(class string, prefix int) string {
	if prefix > 0 && len(class) > prefix && !IsFunctionClass(class) {
		return class[:prefix]
	}
	return class
}
