package families

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/dmvccm"
	"github.com/grind-nlp/grind/stages/family"
)

// DMVCCM is Klein's product of the DMV and the CCM (stages/dmvccm): its
// records are the DMV's events then the CCM's; its M-step is each half's
// own (the DMV unsmoothed, the CCM with Klein's pseudo-counts), not λ; it
// decodes the Viterbi derivation into "pred" and "pred_spans".
// DMVCCM(true) is the product with the DMV alone's right-first order
// (family "dmvccm-right-first").
func DMVCCM(rightFirst bool) family.Family {
	if rightFirst {
		return DMVCCMOrder(dmvccm.RightFirstOrder)
	}
	return DMVCCMOrder(dmvccm.Released)
}

// DMVCCMOrder is the product under any head order: families "dmvccm",
// "dmvccm-right-first", "dmvccm-mixture" and "dmvccm-footnote8".
func DMVCCMOrder(o dmvccm.Order) family.Family {
	return dmvccmFamily{family.Sentences{Family: dmvccm.FamilyOfOrder(o), ReadModel: readDMVCCM, ReadCountShards: readDMVCCMCounts,
		Check: ccm.CheckSentence}}
}

type dmvccmFamily struct{ family.Sentences }

func (f dmvccmFamily) Decode(src pipeline.Source, w io.Writer, opts family.DecodeOptions) (family.DecodeReport, error) {
	if opts.MBR {
		return family.DecodeReport{}, errors.New("--mbr: a dmvccm model decodes its Viterbi derivation only")
	}
	return f.Sentences.Decode(src, w, opts)
}

// readDMVCCM reads a DMV+CCM model, whose tables grow with its records
// (the DMV's are all there: t + 8t + 2t² of them).
func readDMVCCM(path string, onto family.Model, _ int64) (family.Model, error) {
	if onto == nil {
		m, err := dmvccm.ReadModel(path, nil)
		if err != nil {
			return nil, err
		}
		return dmvccmModel{m}, nil
	}
	o := onto.(dmvccmModel).m
	m, err := dmvccm.ReadModel(path, o.CCM.Sym)
	if err != nil {
		return nil, err
	}
	if m.RightFirst() != o.RightFirst() || m.Order() != o.Order() || !slices.Equal(m.Tags.Names(), o.Tags.Names()) {
		return nil, fmt.Errorf("%s: not of the family and over the tags of the model it skews", path)
	}
	return dmvccmModel{m}, nil
}

type dmvccmModel struct{ m *dmvccm.Model }

func (d dmvccmModel) Hash() string { return d.m.Hash() }

func (d dmvccmModel) Corpus(sents []*format.Sentence) (family.Corpus, error) {
	return d.m.NewCorpus(sents)
}

func (d dmvccmModel) Reweighted(beta float64, skew family.Model) family.Model {
	var s *dmvccm.Model
	if skew != nil {
		s = skew.(dmvccmModel).m
	}
	return dmvccmModel{d.m.Tempered(beta, s)}
}

func (d dmvccmModel) EStep(cor family.Corpus, workers int) family.ModelCounts {
	c := cor.(*dmvccm.Corpus)
	sh := dmvccmShard{c: c, order: d.m.Order()}
	if d.m.RightFirst() {
		sh.order = dmvccm.RightFirstOrder
	}
	sh.dmv, sh.ccm = c.EStep(d.m, workers)
	sh.fn8 = c.Fn8Counts()
	return sh
}

func (d dmvccmModel) Decode(cor family.Corpus, k int, _ bool, s *format.Sentence) bool {
	p, fellBack := cor.(*dmvccm.Corpus).Parse(d.m, k)
	s.Pred, s.PredSpans = p.Heads, p.Spans
	return fellBack
}

func (d dmvccmModel) CheckMemory(sents []*format.Sentence, workers int, estep bool, limit int64) error {
	tags := map[string]bool{}
	for _, s := range sents {
		for _, t := range s.Tags {
			tags[t] = true
		}
	}
	return dmvccm.Job{CCM: ccmJob(d.m.CCM, sents, workers, estep), Tags: d.m.Tags.Len() + len(tags), Orders: d.m.OrderTables()}.Check(limit)
}

// LogProbs is log P(s) of each sentence under the product (its inside
// probability, what estep's stats sum into loglik): tags the DMV never
// saw are its average tag, yields and contexts the CCM never saw get
// their smoothed zero-count probability.
func (d dmvccmModel) LogProbs(cor family.Corpus, workers int) []float64 {
	c := cor.(*dmvccm.Corpus)
	out := make([]float64, c.Len())
	const per = 16 // the product's chart is O(n⁴): small pieces
	pipeline.ForEachChunk((len(out)+per-1)/per, pipeline.Workers(workers), func(_, k int) {
		for i := k * per; i < min(len(out), (k+1)*per); i++ {
			out[i] = c.LogProb(d.m, i)
		}
	})
	return out
}

// Unseen is the dev tokens whose tag the DMV never saw (each scored as
// its average tag).
func (d dmvccmModel) Unseen(cor family.Corpus) (int, int, string) {
	c := cor.(*dmvccm.Corpus)
	return c.UnseenTokens(), len(c.Unseen), "tags"
}

// SentenceFamily is the family's family.Sentences (DMVCCM wraps it to
// refuse --mbr), for select-model.
func (f dmvccmFamily) SentenceFamily() family.Sentences { return f.Sentences }

type dmvccmShard struct {
	c     *dmvccm.Corpus
	order dmvccm.Order
	dmv   *dmv.Params
	fn8   *dmvccm.Fn8Params // footnote 8's counts (Footnote8)
	ccm   *ccm.Counts
}

func (s dmvccmShard) WriteShard(w io.Writer, model, corpus string) error {
	return dmvccm.WriteOrderCounts(w, s.order, s.c.Tags, s.dmv, s.fn8, s.ccm, s.c.Sym(), model, corpus)
}

// readDMVCCMCounts reads DMV+CCM counts. The DMV's dense tables could
// be far larger than the records that name their tags: limit bounds them.
func readDMVCCMCounts(src pipeline.Source, limit int64) (family.Counts, error) {
	t, err := dmvccm.ReadCounts(src, limit)
	if err != nil {
		return nil, err
	}
	return dmvccmCounts{t, pipeline.DescribeInputs(src.Names)}, nil
}

type dmvccmCounts struct {
	t     *dmvccm.CountTable
	where string // the inputs, for errors
}

func (c dmvccmCounts) Stats() format.Stats { return *c.t.CCM.Shards.Stats }
func (c dmvccmCounts) Corpus() string      { return c.t.CCM.Shards.Corpus }
func (c dmvccmCounts) Shards() int         { return c.t.CCM.Shards.Shards }

func (c dmvccmCounts) WriteCounts(w io.Writer) error {
	s := c.t.CCM.Shards
	return dmvccm.WriteOrderCounts(w, c.t.Order, c.t.Tags, c.t.DMV, c.t.Fn8, c.t.CCM.Counts, c.t.CCM.Sym, s.Model, s.Corpus)
}

func (c dmvccmCounts) WriteMStep(w io.Writer, lambda float64) error {
	if lambda != 0 {
		return fmt.Errorf("--lambda %v: DMV+CCM's M-step is Klein's, the DMV unsmoothed and the CCM with its pseudo-counts (2 and 8), not λ", lambda)
	}
	m, err := c.t.MStep()
	if err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	return dmvccm.WriteModel(w, m)
}
