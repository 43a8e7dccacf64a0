// Package decode parses sentences with a DMV model: each sentence gets
// "pred", the heads of its Viterbi or minimum-Bayes-risk tree (within a
// left-corner depth bound when one is given), and keeps everything else
// (gold heads included), so decode | score works.
package decode

import (
	"fmt"
	"io"
	"sort"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/family"
)

// Options of the decoder (family.DecodeOptions: this package is the DMV
// family's decoder).
type Options = family.DecodeOptions

// Report says what decoding met, for stderr.
type Report = family.DecodeReport

// batch is how many sentences are parsed between writes: decoding streams
// in bounded memory, in input order.
const batch = 4096

// Run decodes the sentences of src and writes them, with pred, to w.
func Run(src pipeline.Source, w io.Writer, opts Options) (Report, error) {
	var rep Report
	model, err := dmv.ReadParsingModel(opts.Model)
	if err != nil {
		return rep, err
	}
	dec, err := model.Decoder() // potentials exp(w) for a log-linear model (CE)
	if err != nil {
		return rep, fmt.Errorf("%s: %w", opts.Model, err)
	}
	if err := opts.Bound.Check(); err != nil {
		return rep, err
	}
	if opts.Bound.On() {
		if err := dmv.RefuseValence(model.Params.V, "the depth bound (--max-depth)"); err != nil {
			return rep, fmt.Errorf("%s: %w", opts.Model, err)
		}
	}
	workers := pipeline.Workers(opts.Workers)
	charts := make([]dmv.TreeChart, workers)
	for i := range charts {
		if opts.Bound.On() {
			charts[i] = dmv.NewBoundedChart(opts.Bound, 16)
		} else {
			charts[i] = dmv.NewChart(16)
		}
	}
	var pending []*format.Sentence
	unknownTags := map[string]bool{}
	first := true
	flush := func() error {
		// The first batch decides whether the input shares the model's tag
		// set at all: nothing is written before that is known.
		known := false
		read := make([][]string, len(pending)) // the tags as the model reads them
		for i, s := range pending {
			read[i] = model.Refined(s).Tags
			for _, t := range read[i] {
				if dec.Known(t) {
					known = true
				} else {
					unknownTags[t] = true
				}
			}
		}
		if first && !known && len(pending) > 0 {
			return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), dmv.NoTagKnown(sortedKeys(unknownTags)))
		}
		first = false
		longest := 0
		for _, s := range pending {
			longest = max(longest, len(s.Tags))
		}
		if err := dmv.CheckMemory(model.Params.V, opts.Bound, model.Tags.Len(), longest, workers, 3, opts.MaxMemory); err != nil {
			return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
		}
		unknown, fell := make([]int, len(pending)), make([]bool, len(pending))
		const per = 64
		pipeline.ForEachChunk((len(pending)+per-1)/per, workers, func(worker, k int) {
			var tags []int
			for i := k * per; i < min(len(pending), (k+1)*per); i++ {
				s := pending[i]
				tags, unknown[i] = dec.Encode(read[i], tags)
				s.Pred = make([]int, len(tags))
				_, fell[i] = dec.Decode(charts[worker], tags, s.Pred, opts.MBR)
			}
		})
		for i, s := range pending {
			rep.Sentences++
			rep.Unknown += unknown[i]
			if fell[i] {
				rep.FellBack++
			}
			if err := pipeline.WriteRecord(w, s); err != nil {
				return err
			}
		}
		pending = pending[:0]
		return nil
	}
	err = pipeline.EachSentence(src, func(s *format.Sentence) error {
		pending = append(pending, s)
		if len(pending) == batch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	rep.UnknownTags = sortedKeys(unknownTags)
	if err == nil && rep.Sentences == 0 {
		err = fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	return rep, err
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
