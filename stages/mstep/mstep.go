// Package mstep is the M-step as a stage: counts (one stream or several
// shards) in, a model out.
package mstep

import (
	"fmt"
	"io"
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/estep"
)

// Options of the M-step.
type Options struct {
	Lambda float64 // add-λ smoothing (0: maximum likelihood)
	// ExpectSentences, when ≥ 0, is the number of sentences the counts
	// must come from: a lost shard is caught even when every shard that
	// arrived is whole.
	ExpectSentences int
	// ExpectCorpus, when not "", is a corpus file the counts must come
	// from exactly (estep.CheckCorpus): a lost whole shard is caught.
	ExpectCorpus string
}

// Run normalises the counts of src into a model.
func Run(src pipeline.Source, w io.Writer, opts Options) error {
	if !(opts.Lambda >= 0) || math.IsInf(opts.Lambda, 1) {
		return fmt.Errorf("--lambda must be a finite number ≥ 0, not %v", opts.Lambda)
	}
	counts, err := dmv.ReadCounts(src)
	if err != nil {
		return err
	}
	if opts.ExpectSentences >= 0 && counts.Stats.Sentences != opts.ExpectSentences {
		return fmt.Errorf("%s: counts come from %d sentences, expected %d: a shard is missing or repeated",
			pipeline.DescribeInputs(src.Names), counts.Stats.Sentences, opts.ExpectSentences)
	}
	if opts.ExpectCorpus != "" {
		if err := estep.CheckCorpus(counts, pipeline.DescribeInputs(src.Names), opts.ExpectCorpus); err != nil {
			return err
		}
	}
	if err := dmv.CheckTotals(counts.Tags, counts.Params, opts.Lambda); err != nil {
		return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	return dmv.WriteTable(w, counts.Tags, dmv.MStep(counts.Params, opts.Lambda), format.Prob, nil)
}
