package families

import (
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/hmmce"
)

// HMMCE is the log-linear HMM tagger that contrastive estimation trains
// (stages/hmmce; train-hmm --estimator ce --save-model): weights, not
// probabilities, so it has no E-step, counts or M-step; it decodes
// "tags" by Viterbi, as train-hmm does, keeping the reference tags in
// "gold_tags". select-model ranks such taggers --by contrast (or --by
// accuracy).
var HMMCE family.Family = hmmceFamily{family.Sentences{Family: hmmce.Family, ReadModel: readHMMCE,
	ReadCountShards: func(pipeline.Source, int64) (family.Counts, error) { return nil, errNoCounts },
	Words:           true, Check: hmm.CheckSentence}}

var errNoCounts = fmt.Errorf("a %s model is log-linear: it has no counts and no M-step (train-hmm --estimator ce trains it)", hmmce.Family)

type hmmceFamily struct{ family.Sentences }

func (hmmceFamily) EStep(pipeline.Source, io.Writer, family.EStepOptions) error { return errNoCounts }

func (f hmmceFamily) SentenceFamily() family.Sentences { return f.Sentences }

func readHMMCE(path string, onto family.Model, limit int64) (family.Model, error) {
	if onto != nil {
		return nil, fmt.Errorf("%s: a %s model is not annealed (--skew)", path, hmmce.Family)
	}
	t, err := hmmce.ReadTagger(path, limit)
	if err != nil {
		return nil, err
	}
	return hmmceModel{t}, nil
}

// hmmceModel is a CE tagger as a family.Model: it decodes, and scores
// nothing (it has no likelihood).
type hmmceModel struct{ t *hmmce.Tagger }

// hmmceCorpus is the sentences as word ids over the tagger extended to
// their words.
type hmmceCorpus struct {
	m     *hmmce.Model
	theta []float64
	ids   [][]int
}

func (h hmmceModel) Hash() string { return hmmce.Hash(h.t) }

func (h hmmceModel) Corpus(sents []*format.Sentence) (family.Corpus, error) {
	words := make([][]string, len(sents))
	for i, s := range sents {
		words[i] = s.Words
	}
	m, theta, ids := h.t.Extend(words)
	return &hmmceCorpus{m, theta, ids}, nil
}

// Reweighted is the model scaled by β: exp(β·θ) is exp(θ)^β.
func (h hmmceModel) Reweighted(beta float64, _ family.Model) family.Model {
	t := *h.t
	t.Theta = make([]float64, len(h.t.Theta))
	for i, v := range h.t.Theta {
		t.Theta[i] = beta * v
	}
	return hmmceModel{&t}
}

// EStep is never reached: the family refuses E-steps first.
func (h hmmceModel) EStep(family.Corpus, int) family.ModelCounts { return noCounts{} }

type noCounts struct{}

func (noCounts) WriteShard(io.Writer, string, string) error { return errNoCounts }

func (h hmmceModel) Decode(cor family.Corpus, k int, _ bool, s *format.Sentence) bool {
	c := cor.(*hmmceCorpus)
	tags := c.m.Viterbi(c.theta, c.ids[k])
	s.GoldTags = hmm.GoldTags(s)
	s.Tags = make([]string, len(tags))
	for i, t := range tags {
		s.Tags[i] = h.t.States[t]
	}
	return false
}

func (h hmmceModel) CheckMemory(sents []*format.Sentence, workers int, _ bool, limit int64) error {
	return h.t.CheckDecode(sents, workers, limit)
}

// Contrast is the tagger's contrastive objective on the sentences of c,
// a word it never saw weighted as Extend does.
func (h hmmceModel) Contrast(cor family.Corpus, kind string, workers int) (float64, error) {
	c := cor.(*hmmceCorpus)
	return hmmce.Contrast(c.m, c.theta, c.ids, kind, workers)
}
