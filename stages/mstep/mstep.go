// Package mstep is the M-step as a stage: counts (one stream or several
// shards) of any model family in, a model out. The family is the one the
// counts' header names (family.Registry).
package mstep

import (
	"fmt"
	"io"
	"math"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/estep"
	"github.com/grind-nlp/grind/stages/family"
)

// Options of the M-step.
type Options = family.MStepOptions

// Run normalises the counts of src into a model of their family, or with
// opts.VBAlpha makes the DMV's model of variational Bayes.
func Run(reg family.Registry, src pipeline.Source, w io.Writer, opts Options) error {
	if !(opts.Lambda >= 0) || math.IsInf(opts.Lambda, 1) {
		return fmt.Errorf("--lambda must be a finite number ≥ 0, not %v", opts.Lambda)
	}
	if opts.VBAlpha != 0 {
		if err := dmv.CheckAlpha(opts.VBAlpha); err != nil {
			return err
		}
	}
	if err := dmv.CheckBackoff(opts.ChildBackoff); err != nil {
		return err
	}
	if opts.VBAlpha > 0 && opts.ChildBackoff > 0 {
		return fmt.Errorf("--child-backoff interpolates add-λ M-steps; with --vb the M-step is variational Bayes's")
	}
	fam, src, err := reg.ForSource(src)
	if err != nil {
		return err
	}
	counts, err := fam.ReadCounts(src, opts.MaxMemory)
	if err != nil {
		return err
	}
	corpusHash := func(path string) (string, error) {
		return estep.CorpusHash(pipeline.Source{Names: []string{path}}, family.ReadsWords(fam))
	}
	if err := family.CheckCounts(counts, pipeline.DescribeInputs(src.Names), opts.ExpectSentences, opts.ExpectCorpus, corpusHash); err != nil {
		return err
	}
	prior := dmv.DefaultLearnedBackoff
	if opts.LearnedBackoff != nil {
		if err := opts.LearnedBackoff.Check(); err != nil {
			return fmt.Errorf("--backoff-prior: %v", err)
		}
		prior = *opts.LearnedBackoff
	}
	if lb, ok := counts.(family.LearnedBackoffCounts); ok && lb.LearnsBackoff() {
		where := pipeline.DescribeInputs(src.Names)
		switch {
		case opts.VBAlpha > 0:
			return fmt.Errorf("%s: these counts carry the choices of a learned back-off (backoff events); --vb does not learn one", where)
		case opts.ChildBackoff != 0:
			return fmt.Errorf("%s: these counts carry the choices of a learned back-off (backoff events); --child-backoff fixes one instead", where)
		}
		return lb.WriteMStepLearned(w, opts.Lambda, prior)
	}
	if opts.LearnedBackoff != nil {
		return fmt.Errorf("%s: --backoff-prior is for counts whose model learns its back-off (backoff events: dmv-init or train-em --learn-backoff); these have none", pipeline.DescribeInputs(src.Names))
	}
	if opts.VBAlpha > 0 {
		vb, ok := counts.(family.VBCounts)
		if !ok {
			return fmt.Errorf("%s: --vb is the DMV's M-step, not the %s family's (train-hmm --estimator vb trains an HMM by VB)", pipeline.DescribeInputs(src.Names), fam.Name())
		}
		return vb.WriteVB(w, opts.VBAlpha, opts.Model)
	}
	if opts.ChildBackoff != 0 {
		b, ok := counts.(family.BackoffCounts)
		if !ok {
			return fmt.Errorf("--child-backoff backs off the DMV's child distributions; these are counts of family %q", fam.Name())
		}
		return b.WriteMStepBackoff(w, opts.Lambda, opts.ChildBackoff)
	}
	return counts.WriteMStep(w, opts.Lambda)
}
