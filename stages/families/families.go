// Package families is the one registry of model families: every stage
// that reads a model or counts (estep, sumcounts, mstep, decode) finds
// the family by the header's name here.
//
// Adding a family (as the CCM and the HMM were): give format its event kinds and fields
// (README, Records); in the family's package read and write them through
// eventio (a Kind: the header names and how to add one event; the shard
// and model checks and the writer are eventio's); implement family.Model
// (Hash, Corpus, Reweighted, EStep, Decode) and family.Counts (Stats,
// Corpus, Shards, WriteCounts, WriteMStep) as ccm.go here does; and add
// one family.Sentences line to All. estep, sumcounts, mstep and decode
// then take its models and counts with no change.
package families

import (
	"errors"
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/decode"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/dmvccm"
	"github.com/grind-nlp/grind/stages/estep"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/hmmce"
)

// All are the families grind knows; the DMV, the first, is what a
// stream without a header is read as (its reader says what is wrong).
var All = family.Registry{DMV{}, CCM(ccm.Model1), CCM(ccm.Model2), CCMClasses, DMVCCM(false), DMVCCM(true), DMVCCMOrder(dmvccm.Mixture), DMVCCMOrder(dmvccm.Footnote8), HMM, HMMCE, ModelU}

// EStep runs the E-step of the family of opts.Model (the DMV for --gold
// counts without a model).
func EStep(src pipeline.Source, w io.Writer, opts family.EStepOptions) error {
	if opts.Model == "-" || opts.Skew == "-" {
		return errStdinModel
	}
	if hmm.IsWeights(opts.Model) { // a log-linear HMM (ce-step's)
		return hmmce.EStep(src, w, opts)
	}
	fam := All[0]
	var err error
	switch {
	case opts.Family != "" && (!opts.Gold || opts.Model != ""):
		return fmt.Errorf("--family %s names the family of --gold counts made without a model (a model's header names its own)", opts.Family)
	case opts.Model != "":
		fam, err = All.ForFile(opts.Model)
	case opts.Family != "":
		fam, err = All.Lookup(opts.Family)
	}
	if err != nil {
		return err
	}
	if opts.Trigram && fam.Name() != hmm.Family {
		return fmt.Errorf("--trigram is an HMM's order, and these are %s counts (--gold --family hmm --trigram)", fam.Name())
	}
	return fam.EStep(src, w, opts)
}

// Decode decodes with the family of opts.Model.
func Decode(src pipeline.Source, w io.Writer, opts family.DecodeOptions) (family.DecodeReport, error) {
	if opts.Model == "-" {
		return family.DecodeReport{}, errStdinModel
	}
	fam, err := All.ForFile(opts.Model)
	if err != nil {
		return family.DecodeReport{}, err
	}
	return fam.Decode(src, w, opts)
}

var errStdinModel = errors.New("-m -: a model is read from a file (stdin is for the sentences)")

// DMV is the dependency model with valence (stages/dmv; its E-step is
// stages/estep, its decoder stages/decode).
type DMV struct{}

func (DMV) Name() string { return dmv.Family }

func (DMV) EStep(src pipeline.Source, w io.Writer, opts family.EStepOptions) error {
	return estep.Run(src, w, opts)
}

func (DMV) Decode(src pipeline.Source, w io.Writer, opts family.DecodeOptions) (family.DecodeReport, error) {
	return decode.Run(src, w, opts)
}

func (DMV) ReadCounts(src pipeline.Source, limit int64) (family.Counts, error) {
	t, err := dmv.ReadCounts(src, limit)
	if err != nil {
		return nil, err
	}
	return dmvCounts{t, pipeline.DescribeInputs(src.Names)}, nil
}

type dmvCounts struct {
	t     *dmv.Table
	where string // the inputs, for errors
}

func (c dmvCounts) Stats() format.Stats { return *c.t.Stats }
func (c dmvCounts) Corpus() string      { return c.t.Corpus }
func (c dmvCounts) Shards() int         { return c.t.Shards }

func (c dmvCounts) WriteCounts(w io.Writer) error {
	return dmv.WriteCounts(w, c.t.Tags, c.t.Params, c.t.Model, c.t.Corpus, c.t.Stats)
}

func (c dmvCounts) WriteMStep(w io.Writer, lambda float64) error {
	if err := dmv.CheckTotals(c.t.Tags, c.t.Params, lambda); err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	return dmv.WriteTable(w, c.t.Tags, dmv.MStep(c.t.Params, lambda), format.Prob, nil)
}

func (c dmvCounts) WriteVB(w io.Writer, alpha float64, model string) error {
	// VB is the plain DMV's M-step, as train-em --estimator vb and
	// dmv-init --vb have it.
	if err := dmv.RefuseValence(c.t.Params.V, "--vb"); err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	if err := dmv.CheckTotals(c.t.Tags, c.t.Params, alpha); err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	vb := dmv.VB{Alpha: alpha}
	if model != "" {
		m, err := dmv.ReadModel(model)
		if err != nil {
			return err
		}
		if h := m.Hash(); h != c.t.Model {
			return fmt.Errorf("%s: the counts' E-step ran with model %s, and %s is %s: the bound needs the model estep -m had (not re-weighted)", c.where, c.t.Model, model, h)
		}
		weights, err := m.EStepWeights(c.t.Tags)
		if err != nil {
			return fmt.Errorf("%s: %w", model, err)
		}
		bound, err := dmv.VBBound(c.t.Stats.Loglik, c.t.Params, weights, alpha)
		if err != nil {
			return fmt.Errorf("%s: %w", c.where, err)
		}
		vb.Bound = &bound
	}
	return dmv.WriteVB(w, c.t.Tags, dmv.VariationalBayes(c.t.Params, alpha), vb)
}

func (c dmvCounts) LearnsBackoff() bool { return c.t.Params.Backoff != nil }

func (c dmvCounts) WriteMStepLearned(w io.Writer, lambda float64, prior dmv.LearnedBackoff) error {
	if err := errors.Join(prior.CheckFor(c.t.Params.V), dmv.CheckTotals(c.t.Tags, c.t.Params, lambda)); err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	return dmv.WriteTable(w, c.t.Tags, dmv.MStepLearnedBackoff(c.t.Params, lambda, prior), format.Prob, nil)
}

func (c dmvCounts) WriteMStepBackoff(w io.Writer, lambda, backoff float64) error {
	if err := dmv.CheckTotals(c.t.Tags, c.t.Params, lambda); err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	return dmv.WriteTable(w, c.t.Tags, dmv.MStepBackoff(c.t.Params, lambda, backoff), format.Prob, nil)
}
