package families

import (
	"errors"
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/modelu"
)

// ModelU is Smith's Model U (stages/modelu; train-ce --family modelu):
// log-linear weights of undirected edges. Its E-step (modelu.EStep)
// writes the expected count of every feature over the sentences, or over
// their neighbourhoods from nbhd: the two halves of CE's gradient, which
// ce-step takes; sumcounts adds its shards; it has no M-step. It decodes
// "pred" by Viterbi: the best undirected tree, its edges oriented away
// from the first word (the root its chart fixes, as Smith's does), so
// score's undirected accuracy is Model U's and its directed accuracy
// that of this reading.
var ModelU family.Family = modeluFamily{family.Sentences{Family: modelu.Family, ReadModel: readModelU,
	ReadCountShards: func(src pipeline.Source, _ int64) (family.Counts, error) {
		c, err := modelu.ReadCounts(src)
		if err != nil {
			return nil, err
		}
		return modeluCounts{c}, nil
	},
	Check: func(s *format.Sentence) error {
		if len(s.Tags) == 0 {
			return errors.New("no tags: Model U reads tags")
		}
		return nil
	}}}

var errNoMStep = fmt.Errorf("a %s model is log-linear: its counts are CE's gradient, which ce-step takes; it has no M-step (train-ce --family modelu trains it)", modelu.Family)

type modeluFamily struct{ family.Sentences }

// EStep is modelu.EStep: the model's options are its, and the annealing,
// hard, gold, bound and posterior-regularization ones are refused.
func (modeluFamily) EStep(src pipeline.Source, w io.Writer, opts family.EStepOptions) error {
	if opts.Hard || opts.Gold || opts.Reweight != nil || opts.Skew != "" || opts.SplitSkew || opts.Bound.On() || opts.PR.On() || opts.Dual != "" {
		return fmt.Errorf("%s: Model U's E-step sums over every tree: --hard, --gold, --beta, --skew, --split-skew, --delta, --seg-beta, --max-depth and posterior regularization do not apply", opts.Model)
	}
	return modelu.EStep(src, w, modelu.EStepOptions{Model: opts.Model, Workers: opts.Workers, MaxMemory: opts.MaxMemory, Warn: opts.Warn})
}

// modeluCounts are Model U's counts as sumcounts adds them.
type modeluCounts struct{ c *modelu.Counts }

func (c modeluCounts) Stats() format.Stats                 { return c.c.Stats }
func (c modeluCounts) Corpus() string                      { return c.c.Corpus }
func (c modeluCounts) Shards() int                         { return c.c.Shards }
func (c modeluCounts) WriteCounts(w io.Writer) error       { return c.c.Write(w) }
func (c modeluCounts) WriteMStep(io.Writer, float64) error { return errNoMStep }

// CorpusWords: with spelling features the counts' corpus hash covers the
// words (sumcounts --expect-corpus hashes the shard so).
func (c modeluCounts) CorpusWords() bool { return c.c.Spelling }

func (f modeluFamily) Decode(src pipeline.Source, w io.Writer, opts family.DecodeOptions) (family.DecodeReport, error) {
	if opts.MBR {
		return family.DecodeReport{}, fmt.Errorf("--mbr: a %s model decodes by Viterbi only", modelu.Family)
	}
	return f.Sentences.Decode(src, w, opts)
}

func (f modeluFamily) SentenceFamily() family.Sentences { return f.Sentences }

func readModelU(path string, onto family.Model, _ int64) (family.Model, error) {
	if onto != nil {
		return nil, fmt.Errorf("%s: a %s model is not annealed (--skew)", path, modelu.Family)
	}
	m, err := modelu.Read(path)
	if err != nil {
		return nil, err
	}
	return modeluModel{m, m.Theta}, nil
}

type modeluModel struct {
	m     *modelu.Model
	theta []float64
}

func (u modeluModel) Hash() string { return u.m.Hash() }

func (u modeluModel) Corpus(sents []*format.Sentence) (family.Corpus, error) {
	out := make([]modelu.Sentence, len(sents))
	for i, s := range sents {
		var err error
		if out[i], err = modelu.Symbols(u.m, s, false); err != nil {
			return nil, fmt.Errorf("sentence %d (%s): %w", i+1, s.ID, err)
		}
	}
	return out, nil
}

func (u modeluModel) Reweighted(beta float64, _ family.Model) family.Model {
	t := make([]float64, len(u.theta))
	for i, v := range u.theta {
		t[i] = beta * v
	}
	return modeluModel{u.m, t}
}

// EStep is never reached: the family's E-step is modelu.EStep.
func (u modeluModel) EStep(family.Corpus, int) family.ModelCounts { return noCounts{} }

func (u modeluModel) Decode(cor family.Corpus, k int, _ bool, s *format.Sentence) bool {
	s.Pred = u.m.Parse(u.theta, cor.([]modelu.Sentence)[k])
	return false
}

// CheckMemory: a chain chart of n words holds about 9n² numbers.
func (u modeluModel) CheckMemory(sents []*format.Sentence, workers int, _ bool, limit int64) error {
	n := 0
	for _, s := range sents {
		n = max(n, len(s.Tags))
	}
	if need := int64(workers) * 80 * int64(n) * int64(n); limit > 0 && need > limit {
		return fmt.Errorf("Model U's charts for sentences of %d words need about %d bytes, more than --max-memory %d", n, need, limit)
	}
	return nil
}
