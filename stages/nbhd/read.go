package nbhd

import (
	"errors"
	"fmt"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Record is a line a contrastive E-step reads: format.SentenceOrLattice,
// or its NoWords variant, which leaves a plain sentence's words out.
type Record[R any] interface {
	*R
	Validate() error
	Parts() (*format.Sentence, *format.Lattice)
}

// ReadSentencesOrLattices reads every record of src as R: sentences, or
// lattices (this package's output), but not both in one stream — a
// record of the other kind than the first is an error at its line, as is
// one check refuses (the reading family's: which lattices it reads). An
// input without a record is an error.
func ReadSentencesOrLattices[R any, P Record[R]](src pipeline.Source, check func(*format.Sentence, *format.Lattice) error) ([]*format.Sentence, []*format.Lattice, error) {
	var sents []*format.Sentence
	var lats []*format.Lattice
	err := pipeline.EachRecord(src, func(r *R, at *pipeline.Lines) error {
		if err := P(r).Validate(); err != nil {
			return pipeline.BadRecord(err)
		}
		s, l := P(r).Parts()
		switch {
		case l != nil && len(sents) > 0:
			return pipeline.BadRecord(errors.New("a lattice among sentences: give estep one or the other"))
		case s != nil && len(lats) > 0:
			return pipeline.BadRecord(errors.New("a sentence among lattices: give estep one or the other"))
		}
		if err := check(s, l); err != nil {
			return pipeline.BadRecord(err)
		}
		if l != nil {
			lats = append(lats, l)
		} else {
			sents = append(sents, s)
		}
		return nil
	})
	if err == nil && len(sents) == 0 && len(lats) == 0 {
		err = fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	return sents, lats, err
}
