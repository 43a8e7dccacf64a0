package families

import (
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/family"
)

// CCM is the constituent-context model (stages/ccm) of variant v: "ccm",
// or Smith & Eisner's model 2, "ccm2". Its M-step smooths with Klein's
// pseudo-counts (2 per constituent, 8 per distituent event), not with λ;
// it decodes "pred_spans".
func CCM(v ccm.Variant) family.Family {
	return family.Sentences{Family: ccm.FamilyOf(v), ReadModel: readCCM, ReadCountShards: readCCMCounts, Check: ccm.CheckSentence}
}

// CCMClasses is Klein's multi-class CCM (§5.3.2, "ccm-classes"): the
// CCM's records with a class on each constituent event, its M-step the
// classes' (pseudo-counts 2/(K − 1) each); EM only, as train-ccm
// --classes.
var CCMClasses family.Family = family.Sentences{Family: ccm.FamilyClasses, ReadModel: readCCM, ReadCountShards: readCCMCounts, Check: ccm.CheckSentence,
	NoReweighting: "the multi-class CCM trains by EM only (train-ccm --classes)"}

// readCCM reads a CCM model, whose tables grow with its records: the
// file bounds them, so the limit is the passes' (CheckMemory).
func readCCM(path string, onto family.Model, _ int64) (family.Model, error) {
	var sym *ccm.Symbols
	if onto != nil {
		sym = onto.(ccmModel).m.Sym
	}
	m, err := ccm.ReadModel(path, sym)
	if err != nil {
		return nil, err
	}
	if onto != nil && m.Family() != onto.(ccmModel).m.Family() {
		return nil, fmt.Errorf("%s: a %s model where a %s is due", path, m.Family(), onto.(ccmModel).m.Family())
	}
	return ccmModel{m}, nil
}

type ccmModel struct{ m *ccm.Model }

func (c ccmModel) Hash() string { return c.m.Hash() }

func (c ccmModel) Corpus(sents []*format.Sentence) (family.Corpus, error) {
	tags := make([][]string, len(sents))
	for i, s := range sents {
		tags[i] = s.Tags
	}
	cor, err := ccm.NewCorpus(tags, c.m.Sym)
	if err != nil {
		return nil, err
	}
	c.m.Grow() // once, before workers share the model
	return cor, nil
}

func (c ccmModel) Reweighted(beta float64, skew family.Model) family.Model {
	var s *ccm.Model
	if skew != nil {
		s = skew.(ccmModel).m
	}
	return ccmModel{c.m.Tempered(beta, s)}
}

// SplitSkewed: SDA toward the random-split trees (ccm.SkewSplit).
func (c ccmModel) SplitSkewed(beta float64) family.Model {
	return ccmModel{c.m.SplitSkewed(beta)}
}

func (c ccmModel) EStep(cor family.Corpus, workers int) family.ModelCounts {
	x := cor.(*ccm.Corpus)
	return ccmShard{c.m.EStep(x, workers), x.Sym, c.m.Variant}
}

func (c ccmModel) Decode(cor family.Corpus, k int, mbr bool, s *format.Sentence) bool {
	dec := ccm.Viterbi
	if mbr {
		dec = ccm.MBR
	}
	var fellBack bool
	s.PredSpans, _, fellBack = c.m.Parse(cor.(*ccm.Corpus), k, dec)
	return fellBack
}

func (c ccmModel) CheckMemory(sents []*format.Sentence, workers int, estep bool, limit int64) error {
	return ccmJob(c.m, sents, workers, estep).Check(limit)
}

// ccmJob is a pass of m over sents, for its memory estimate.
func ccmJob(m *ccm.Model, sents []*format.Sentence, workers int, estep bool) ccm.Job {
	tags := make([][]string, len(sents))
	for i, s := range sents {
		tags[i] = s.Tags
	}
	return ccm.Job{Lengths: ccm.LengthsOf(tags), Yields: m.Sym.NumYields(), Contexts: m.Sym.NumContexts(),
		Workers: workers, EStep: estep, Decode: !estep, Classes: len(m.Classes)}
}

type ccmShard struct {
	cnt *ccm.Counts
	sym *ccm.Symbols
	v   ccm.Variant
}

func (s ccmShard) WriteShard(w io.Writer, model, corpus string) error {
	return ccm.WriteCounts(w, s.cnt, s.sym, s.v, model, corpus)
}

func (s ccmShard) Zero() int { return s.cnt.Zero }

// readCCMCounts reads CCM counts, whose tables grow with their records.
func readCCMCounts(src pipeline.Source, _ int64) (family.Counts, error) {
	t, err := ccm.ReadCounts(src)
	if err != nil {
		return nil, err
	}
	return ccmCounts{t, pipeline.DescribeInputs(src.Names)}, nil
}

type ccmCounts struct {
	t     *ccm.CountTable
	where string // the inputs, for errors
}

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
		return fmt.Errorf("%s: %w", c.where, err)
	}
	return ccm.WriteModel(w, m)
}

// LogProbs is log P(s) of each sentence (ccm.Model.LogProb: P_bin's
// uniform bracketing times the tables, the likelihood EM raises), unseen
// yields and contexts with their smoothed zero-count probability.
func (c ccmModel) LogProbs(cor family.Corpus, workers int) []float64 {
	x := cor.(*ccm.Corpus)
	out := make([]float64, len(x.Sentences))
	const per = 64
	pipeline.ForEachChunk((len(out)+per-1)/per, pipeline.Workers(workers), func(_, k int) {
		for i := k * per; i < min(len(out), (k+1)*per); i++ {
			out[i] = c.m.LogProb(x, i)
		}
	})
	return out
}

// Unseen: the CCM smooths every yield and context alike, seen or not.
func (c ccmModel) Unseen(family.Corpus) (int, int, string) { return 0, 0, "" }
