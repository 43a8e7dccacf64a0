// Package estep is the E-step as a stage: sentences and a model in,
// expected counts and the closing stats record out. Counts of shards add
// up (sumcounts) to the counts of the whole, so the E-step can be spread
// over processes or machines.
package estep

import (
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Options choose the model and the kind of counts.
type Options struct {
	Model   string // model file; may be empty with Gold
	Hard    bool   // counts of each sentence's Viterbi tree
	Gold    bool   // counts of the gold trees
	Workers int
}

// Run reads the sentences of src and writes their counts under the model.
func Run(src pipeline.Source, w io.Writer, opts Options) error {
	if opts.Hard && opts.Gold {
		return fmt.Errorf("--hard and --gold exclude each other")
	}
	var tags *dmv.TagSet
	var weights *dmv.Params
	if opts.Model != "" {
		model, err := dmv.ReadModel(opts.Model)
		if err != nil {
			return err
		}
		tags, weights = model.Tags, model.Params
	} else if !opts.Gold {
		return fmt.Errorf("a model is needed (-m MODEL); only --gold counts go without")
	}
	sents, err := pipeline.ReadSentences(src)
	if err != nil {
		return err
	}
	if opts.Gold {
		for i, s := range sents {
			if s.Heads == nil {
				return fmt.Errorf("%s: sentence %d (%s) has no gold heads", pipeline.DescribeInputs(src.Names), i+1, s.ID)
			}
		}
	}
	corpus, err := dmv.NewCorpus(sents, tags)
	if err != nil {
		return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	if weights == nil { // gold counts without a model: the log-likelihood is left out
		weights = dmv.NewParams(corpus.Tags.Len())
		weights.Fill(1)
	}
	res := dmv.NewEStepper(corpus).Run(weights, dmv.EStepOptions{Hard: opts.Hard, Gold: opts.Gold, Workers: opts.Workers})
	stats := &format.Stats{Sentences: len(corpus.Sents), Tokens: corpus.Tokens, Loglik: res.LogLik}
	return dmv.WriteTable(w, corpus.Tags, res.Counts, format.Count, stats)
}
