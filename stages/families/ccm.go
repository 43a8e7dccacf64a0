package families

import (
	"errors"
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/family"
)

// CCM is the constituent-context model (stages/ccm), "ccm" or, Smith &
// Eisner's model 2, "ccm2". Its M-step smooths with Klein's pseudo-counts
// (2 per constituent, 8 per distituent event), not with λ.
type CCM struct{ Variant ccm.Variant }

func (f CCM) Name() string { return ccm.FamilyOf(f.Variant) }

// EStep is the CCM's E-step: the bracket posteriors of each sentence's
// tags summed into expected counts. --beta and --skew re-weight it as
// train-ccm's DA and SDA do (p^β·skew^(1−β)); the stats record's loglik
// is then the re-weighted model's.
func (f CCM) EStep(src pipeline.Source, w io.Writer, opts family.EStepOptions) error {
	r := dmv.Plain()
	if opts.Reweight != nil {
		r = *opts.Reweight
	}
	switch {
	case opts.Hard || opts.Gold:
		return errors.New("--hard and --gold are the DMV's: a CCM E-step counts bracket posteriors")
	case r.Delta != 0 || r.Segmented:
		return errors.New("--delta and --seg-beta are the DMV's: of the re-weightings a CCM takes --beta and --skew")
	case !(r.Beta > 0 && r.Beta <= 1):
		return fmt.Errorf("--beta must be in (0, 1], not %v", r.Beta)
	}
	m, err := ccm.ReadModel(opts.Model, nil)
	if err != nil {
		return err
	}
	hash := m.Hash()
	sents, err := pipeline.ReadSentences(src)
	if err != nil {
		return err
	}
	corpus, err := corpusOf(src, sents, m.Sym)
	if err != nil {
		return err
	}
	e := m
	if r.Beta != 1 || opts.Skew != "" {
		var skew *ccm.Model
		skewHash := ""
		if opts.Skew != "" {
			if skew, err = ccm.ReadModel(opts.Skew, m.Sym); err != nil {
				return err
			}
			if skew.Variant != m.Variant {
				return fmt.Errorf("%s: a %s skew model for a %s model", opts.Skew, ccm.FamilyOf(skew.Variant), ccm.FamilyOf(m.Variant))
			}
			skewHash = skew.Hash()
		}
		e = m.Tempered(r.Beta, skew)
		hash = dmv.HashStrings(hash, fmt.Sprintf("beta=%v", r.Beta), skewHash)
	}
	cnt := e.EStep(corpus, opts.Workers)
	return ccm.WriteCounts(w, cnt, corpus.Sym, m.Variant, hash, dmv.CorpusHash(sents))
}

// corpusOf interns the tags of sents in sym.
func corpusOf(src pipeline.Source, sents []*format.Sentence, sym *ccm.Symbols) (*ccm.Corpus, error) {
	if len(sents) == 0 {
		return nil, fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	tags := make([][]string, len(sents))
	for i, s := range sents {
		tags[i] = s.Tags
	}
	c, err := ccm.NewCorpus(tags, sym)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	return c, nil
}

func (f CCM) ReadCounts(src pipeline.Source) (family.Counts, error) {
	t, err := ccm.ReadCounts(src)
	if err != nil {
		return nil, err
	}
	return ccmCounts{t}, nil
}

type ccmCounts struct{ t *ccm.CountTable }

func (c ccmCounts) Stats() format.Stats { return *c.t.Shards.Stats }
func (c ccmCounts) Corpus() string      { return c.t.Shards.Corpus }
func (c ccmCounts) Shards() int         { return c.t.Shards.Shards }

func (c ccmCounts) WriteCounts(w io.Writer) error {
	return ccm.WriteCounts(w, c.t.Counts, c.t.Sym, c.t.Variant, c.t.Shards.Model, c.t.Shards.Corpus)
}

func (c ccmCounts) WriteMStep(w io.Writer, lambda float64) error {
	if lambda != 0 {
		return fmt.Errorf("--lambda %v: the CCM smooths with Klein's pseudo-counts (2 and 8), not λ", lambda)
	}
	m, err := ccm.MStep(c.t.Counts, c.t.Sym, c.t.Variant, ccm.KleinSmoothing)
	if err != nil {
		return err
	}
	return ccm.WriteModel(w, m)
}

// Decode writes each sentence with "pred_spans", its Viterbi (or, with
// MBR, maximum expected recall) binary bracketing.
func (f CCM) Decode(src pipeline.Source, w io.Writer, opts family.DecodeOptions) (family.DecodeReport, error) {
	var rep family.DecodeReport
	m, err := ccm.ReadModel(opts.Model, nil)
	if err != nil {
		return rep, err
	}
	sents, err := pipeline.ReadSentences(src)
	if err != nil {
		return rep, err
	}
	corpus, err := corpusOf(src, sents, m.Sym)
	if err != nil {
		return rep, err
	}
	m.Grow() // once, before the workers share m
	dec := ccm.Viterbi
	if opts.MBR {
		dec = ccm.MBR
	}
	const per = 64
	pipeline.ForEachChunk((len(sents)+per-1)/per, pipeline.Workers(opts.Workers), func(_, k int) {
		for i := k * per; i < min(len(sents), (k+1)*per); i++ {
			spans, _ := m.Parse(corpus, i, dec)
			sents[i].PredSpans = spans
		}
	})
	for _, s := range sents {
		if err := pipeline.WriteRecord(w, s); err != nil {
			return rep, err
		}
	}
	rep.Sentences = len(sents)
	return rep, nil
}
