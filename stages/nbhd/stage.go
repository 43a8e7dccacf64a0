package nbhd

import (
	"fmt"
	"io"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Options of the nbhd stage.
type Options struct {
	Kind string
	// Model and Tags give length its tag set: the tags of a model file,
	// or a comma-separated list. Without either, length uses the tags of
	// its whole input, which it then reads before writing.
	Model string
	Tags  string
	// MaxMemory refuses a sentence whose neighbourhood would need more
	// bytes to build (MemoryBytes; ≤ 0: no limit), before it is built.
	MaxMemory int64
}

// Run writes the lattice of every sentence of src to w, in input order.
func Run(src pipeline.Source, w io.Writer, opts Options) error {
	if !Known(opts.Kind) {
		return fmt.Errorf("unknown neighbourhood %q (want one of %s)", opts.Kind, strings.Join(Kinds, ", "))
	}
	n := 0
	write := func(s *format.Sentence, ts *dmv.TagSet) error {
		if err := CheckMemory(opts.Kind, n+1, s.ID, len(s.Tags), ts.Len(), longestName(ts), opts.MaxMemory); err != nil {
			return err
		}
		x := make([]int, len(s.Tags))
		for i, t := range s.Tags {
			var ok bool
			if x[i], ok = ts.Index(t); !ok {
				return pipeline.BadRecord(fmt.Errorf("tag %q is not in length's tag set", t))
			}
		}
		l, err := Build(opts.Kind, x, ts.Len())
		if err != nil {
			return pipeline.BadRecord(err)
		}
		n++
		return pipeline.WriteRecord(w, ToRecord(l, ts, s, opts.Kind))
	}
	var err error
	if opts.Kind != Length {
		err = pipeline.EachSentence(src, func(s *format.Sentence) error {
			return write(s, dmv.SortedTagSet(s.Tags))
		})
	} else {
		err = lengthLattices(src, opts, write)
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
func lengthLattices(src pipeline.Source, opts Options, write func(*format.Sentence, *dmv.TagSet) error) error {
	var ts *dmv.TagSet
	switch {
	case opts.Model != "" && opts.Tags != "":
		return fmt.Errorf("give length's tag set once: a model or a list of tags")
	case opts.Model != "":
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
		all = append(all, s.Tags...)
	}
	ts = dmv.SortedTagSet(all)
	for _, s := range sents {
		if err := write(s, ts); err != nil {
			return err
		}
	}
	return nil
}
