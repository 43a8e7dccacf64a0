package nbhd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/modelu/affix"
)

// Options of the nbhd stage.
type Options struct {
	Kind string
	// Model and Tags give length its tag set: the tags of a model file,
	// or a comma-separated list. Without either, length uses the tags of
	// its whole input, which it then reads before writing.
	Model string
	Tags  string
	// Words makes the neighbourhoods of the sentences' words instead of
	// their tags (for a log-linear HMM's contrastive estimation); length's
	// vocabulary is then the words of Model (an HMM) or of the input.
	Words bool
	// Spelling makes the neighbourhoods of the sentences' tagged words
	// (each arc a tag and a word: Model U's spelling features read the
	// words); not length's.
	Spelling bool
	// MaxMemory refuses a sentence whose neighbourhood would need more
	// bytes to build (MemoryBytes; ≤ 0: no limit), before it is built.
	MaxMemory int64
}

// Run writes the lattice of every sentence of src to w, in input order.
func Run(src pipeline.Source, w io.Writer, opts Options) error {
	if !Known(opts.Kind) {
		return fmt.Errorf("unknown neighbourhood %q (want one of %s)", opts.Kind, strings.Join(Kinds, ", "))
	}
	switch {
	case opts.Spelling && opts.Words:
		return errors.New("neighbourhoods of words or of tagged words: not both")
	case opts.Spelling && opts.Kind == Length:
		return errors.New("the length neighbourhood spells every tag string, without words: tagged words (Model U's spelling) need another kind")
	}
	n := 0
	symbols, what := func(s *format.Sentence) []string { return s.Tags }, "tag"
	switch {
	case opts.Words:
		symbols, what = func(s *format.Sentence) []string { return s.Words }, "word"
	case opts.Spelling:
		// A tagged word is one symbol as Model U's spelling features see
		// it, its tag and affixes (affix.Token); its arcs name the
		// sentence's first word of that symbol.
		symbols = func(s *format.Sentence) []string {
			out := make([]string, len(s.Tags))
			for i, t := range s.Tags {
				out[i] = affix.Token(t, s.Words[i])
			}
			return out
		}
	}
	write := func(s *format.Sentence, ts *dmv.TagSet) error {
		if (opts.Words || opts.Spelling) && len(s.Words) == 0 {
			return pipeline.BadRecord(errors.New("a sentence without words"))
		}
		if opts.Spelling && len(s.Words) != len(s.Tags) {
			return pipeline.BadRecord(fmt.Errorf("%d words and %d tags", len(s.Words), len(s.Tags)))
		}
		if err := CheckMemory(opts.Kind, n+1, s.ID, len(symbols(s)), ts.Len(), longestName(ts), opts.MaxMemory); err != nil {
			return err
		}
		x := make([]int, len(symbols(s)))
		for i, t := range symbols(s) {
			var ok bool
			if x[i], ok = ts.Index(t); !ok {
				return pipeline.BadRecord(fmt.Errorf("%s %q is not in length's %s set", what, t, what))
			}
		}
		l, err := Build(opts.Kind, x, ts.Len())
		if err != nil {
			return pipeline.BadRecord(err)
		}
		n++
		rec := ToRecord(l, ts, s, opts.Kind)
		switch {
		case opts.Words:
			rec.Tags, rec.Words = nil, s.Words
		case opts.Spelling:
			rec.Words = s.Words
			word := map[string]int{} // symbol → its first word
			for i := len(s.Words) - 1; i >= 0; i-- {
				word[affix.Token(s.Tags[i], s.Words[i])] = i
			}
			for i, a := range rec.Arcs {
				rec.Arcs[i].Tag, rec.Arcs[i].Word = s.Tags[word[a.Tag]], s.Words[word[a.Tag]]
			}
		}
		return pipeline.WriteRecord(w, rec)
	}
	var err error
	if opts.Kind != Length {
		err = pipeline.EachSentence(src, func(s *format.Sentence) error {
			return write(s, dmv.SortedTagSet(symbols(s)))
		})
	} else {
		err = lengthLattices(src, opts, symbols, write)
	}
	if err == nil && n == 0 {
		err = fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	return err
}

// longestName is the length in bytes of the longest tag name of ts.
func longestName(ts *dmv.TagSet) int {
	longest := 0
	for _, t := range ts.Names() {
		longest = max(longest, len(t))
	}
	return longest
}

// lengthLattices finds length's tag set and writes every sentence's
// lattice over it.
func lengthLattices(src pipeline.Source, opts Options, symbols func(*format.Sentence) []string, write func(*format.Sentence, *dmv.TagSet) error) error {
	var ts *dmv.TagSet
	switch {
	case opts.Model != "" && opts.Tags != "":
		return fmt.Errorf("give length's tag set once: a model or a list of tags")
	case opts.Model != "" && opts.Words:
		words, err := hmmWords(opts.Model)
		if err != nil {
			return err
		}
		ts = dmv.NewTagSet(words...)
	case opts.Model != "":
		if tags := headerTags(opts.Model); tags != nil {
			ts = dmv.NewTagSet(tags...)
			break
		}
		m, err := dmv.ReadModel(opts.Model)
		if err != nil {
			return err
		}
		ts = m.Tags
	case opts.Tags != "":
		ts = dmv.SortedTagSet(strings.Split(opts.Tags, ","))
		for _, t := range ts.Names() {
			if t == "" {
				return fmt.Errorf("an empty tag in the list %q", opts.Tags)
			}
		}
	}
	if ts != nil {
		return pipeline.EachSentence(src, func(s *format.Sentence) error { return write(s, ts) })
	}
	sents, err := pipeline.ReadSentences(src)
	if err != nil {
		return err
	}
	var all []string
	for _, s := range sents {
		all = append(all, symbols(s)...)
	}
	ts = dmv.SortedTagSet(all)
	for _, s := range sents {
		if err := write(s, ts); err != nil {
			return err
		}
	}
	return nil
}

// hmmWords are the words of an HMM model file, log-linear or not.
func hmmWords(path string) ([]string, error) {
	read := hmm.ReadModel
	if hmm.IsWeights(path) {
		read = hmm.ReadWeights
	}
	m, err := read(path, 0)
	if err != nil {
		return nil, err
	}
	return m.Words, nil
}

// headerTags are the tags a model's header lists (Model U's: a model of
// weights over the tags the header names), nil when its first line is no
// such header (a DMV model's tags are its events').
func headerTags(path string) []string {
	in, err := pipeline.Open(path, nil)
	if err != nil {
		return nil
	}
	defer in.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<24)
	if !sc.Scan() {
		return nil
	}
	var h struct {
		Ev   string
		Tags []string
	}
	if format.Unmarshal(sc.Bytes(), &h) != nil || h.Ev != format.EvHeader {
		return nil
	}
	return h.Tags
}
