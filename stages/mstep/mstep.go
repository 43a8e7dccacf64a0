// Package mstep is the M-step as a stage: counts (one stream or several
// shards) of any model family in, a model out. The family is the one the
// counts' header names (family.Registry).
package mstep

import (
	"fmt"
	"io"
	"math"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/estep"
	"github.com/grind-nlp/grind/stages/family"
)

// Options of the M-step.
type Options = family.MStepOptions

// Run normalises the counts of src into a model of their family.
func Run(reg family.Registry, src pipeline.Source, w io.Writer, opts Options) error {
	if !(opts.Lambda >= 0) || math.IsInf(opts.Lambda, 1) {
		return fmt.Errorf("--lambda must be a finite number ≥ 0, not %v", opts.Lambda)
	}
	fam, src, err := reg.ForSource(src)
	if err != nil {
		return err
	}
	counts, err := fam.ReadCounts(src, opts.MaxMemory)
	if err != nil {
		return err
	}
	if err := family.CheckCounts(counts, pipeline.DescribeInputs(src.Names), opts.ExpectSentences, opts.ExpectCorpus, corpusHash); err != nil {
		return err
	}
	return counts.WriteMStep(w, opts.Lambda)
}

func corpusHash(path string) (string, error) {
	return estep.CorpusHash(pipeline.Source{Names: []string{path}})
}
