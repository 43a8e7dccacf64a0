// Package dmvinit makes a starting model from a corpus with one of the
// initializers of package dmv.
package dmvinit

import (
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Run reads the corpus of src and writes the initial model, refusing one
// whose tables and charts would need more than limit bytes (≤ 0: no
// limit).
func Run(src pipeline.Source, w io.Writer, init string, opts dmv.InitOptions, limit int64) error {
	sents, err := pipeline.ReadSentences(src)
	if err != nil {
		return err
	}
	corpus, err := dmv.NewCorpus(sents, nil)
	if err != nil {
		return err
	}
	// Every initializer makes a few tables; local runs a chart per worker.
	workers := pipeline.Workers(opts.Workers)
	if err := dmv.CheckMemory(opts.Valence.OrDMV(), dmv.DepthBound{}, corpus.Tags.Len(), corpus.MaxLen, workers, 4+2*workers, limit); err != nil {
		return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	start, err := dmv.InitialStart(corpus, init, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	if start.VB {
		return dmv.WriteVB(w, corpus.Tags, start.Params, dmv.VB{Alpha: opts.VBAlpha})
	}
	return dmv.WriteTable(w, corpus.Tags, start.Params, format.Prob, nil)
}
