package families

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ce"
	"github.com/grind-nlp/grind/stages/eventio"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/hmmce"
)

// HMM is the hidden Markov model tagger (stages/hmm), bitag or trigram
// (the length of its trans records' prev). Its M-step is add-λ; it
// decodes "tags" (Viterbi, or with MBR each token's most probable state),
// keeping the reference tags in "gold_tags". Its gold counts (estep
// --gold) are those of the sentences' gold tags (hmm.GoldCounts).
var HMM family.Family = hmmFamily{family.Sentences{Family: hmm.Family, ReadModel: readHMM, ReadCountShards: readHMMCounts,
	Words: true, Check: hmm.CheckSentence}}

type hmmFamily struct{ family.Sentences }

// SentenceFamily is the family's family.Sentences (HMM wraps it to count
// gold tags).
func (f hmmFamily) SentenceFamily() family.Sentences { return f.Sentences }

// EStep is forward–backward's (family.Sentences), or with opts.Gold the
// counts of the gold tags.
func (f hmmFamily) EStep(src pipeline.Source, w io.Writer, opts family.EStepOptions) error {
	if !opts.Gold {
		if opts.Trigram {
			return errors.New("--trigram is the order of --gold counts: an HMM model's E-step has the model's order")
		}
		return f.Sentences.EStep(src, w, opts)
	}
	return f.goldEStep(src, w, opts)
}

// goldEStep writes the counts of the gold tags of the sentences of src
// (hmm.GoldCounts) as one shard: over the states of opts.Model and in
// its order when given (a tag that is none of them refused at its
// line), else over the gold tags, sorted (train-hmm --dict's states),
// bitag or with opts.Trigram trigram. The stats record's loglik is 0:
// no model's likelihood is measured.
func (f hmmFamily) goldEStep(src pipeline.Source, w io.Writer, opts family.EStepOptions) error {
	switch {
	case opts.Hard:
		return errors.New("--hard and --gold exclude each other")
	case opts.Reweight != nil || opts.Skew != "" || opts.SplitSkew:
		return errors.New("--gold counts the gold tags: --beta, --skew and --split-skew do not apply")
	case opts.PR.On() || opts.Dual != "":
		return errors.New("posterior regularization (--rules, --sparsity) is the DMV's, not an HMM's")
	case opts.Bound.On():
		return errors.New("--max-depth is the DMV's: an HMM has no left-corner depth bound")
	}
	order := 1
	if opts.Trigram {
		order = 2
	}
	variant := map[int]string{1: "bitag", 2: "trigram"}
	var m *hmm.Model
	model := eventio.ModelNone
	var stateOf map[string]bool
	if opts.Model != "" {
		var err error
		if m, err = hmm.ReadModel(opts.Model, opts.MaxMemory); err != nil {
			return err
		}
		if opts.Trigram && m.P.Order != 2 {
			return fmt.Errorf("%s: a %s HMM, and --trigram asks for trigram counts: with -m the model's order is the counts'", opts.Model, variant[m.P.Order])
		}
		order, model = m.P.Order, m.Hash()
		stateOf = make(map[string]bool, len(m.States))
		for _, t := range m.States {
			stateOf[t] = true
		}
	}
	read := f.Sentences
	read.Check = func(s *format.Sentence) error {
		if err := hmm.CheckSentence(s); err != nil {
			return err
		}
		if err := hmm.CheckGoldTags(s); err != nil {
			return err
		}
		if m != nil {
			for i, t := range hmm.GoldTags(s) {
				if !stateOf[t] {
					return fmt.Errorf("token %d has the gold tag %q, which is none of the %d states of %s", i+1, t, len(m.States), opts.Model)
				}
			}
		}
		return nil
	}
	sents, err := family.ReadSentences(read, src)
	if err != nil {
		return err
	}
	where := pipeline.DescribeInputs(src.Names)
	if len(sents) == 0 {
		return fmt.Errorf("%s: no sentences", where)
	}
	c, err := hmm.NewCorpus(sents)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	states := hmm.GoldStates(c)
	if m != nil {
		states = m.States
	}
	if err := (hmm.Job{Order: order, K: len(states), V: len(c.Words), MaxLen: c.MaxLen}).Check(opts.MaxMemory); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	counts, err := hmm.GoldCounts(c, order, states)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	stats := &format.Stats{Sentences: len(sents), Tokens: c.Tokens}
	return hmm.WriteCounts(w, counts, states, c.Words, model, eventio.CorpusHash(sents, true), stats)
}

func readHMM(path string, onto family.Model, limit int64) (family.Model, error) {
	m, err := hmm.ReadModel(path, limit)
	if err != nil {
		return nil, err
	}
	if onto != nil {
		o := onto.(hmmModel).m
		if m.P.Order != o.P.Order || !slices.Equal(m.States, o.States) || !slices.Equal(m.Words, o.Words) {
			return nil, fmt.Errorf("%s: not over the order, states and words (in order) of the model it skews", path)
		}
	}
	return hmmModel{m}, nil
}

type hmmModel struct{ m *hmm.Model }

// hmmCorpus is the sentences numbered over the model's words, and the
// model extended to the words it had not seen.
type hmmCorpus struct {
	sents []*format.Sentence
	c     *hmm.Corpus
	ext   *hmm.Model
	dec   *hmm.Decoder
	fbs   sync.Pool
}

func (h hmmModel) Hash() string { return h.m.Hash() }

func (h hmmModel) Corpus(sents []*format.Sentence) (family.Corpus, error) {
	ext, ids, _, err := h.m.Extend(sents)
	if err != nil {
		return nil, err
	}
	c := &hmmCorpus{sents: sents, c: hmm.CorpusOf(sents, ids, ext.Words), ext: ext, dec: hmm.NewDecoder(ext.P)}
	c.fbs.New = func() any { return new(hmm.FB) }
	return c, nil
}

func (h hmmModel) Reweighted(beta float64, skew family.Model) family.Model {
	var s *hmm.Model
	if skew != nil {
		s = skew.(hmmModel).m
	}
	return hmmModel{h.m.Reweighted(beta, s)}
}

func (h hmmModel) EStep(cor family.Corpus, workers int) family.ModelCounts {
	c := cor.(*hmmCorpus)
	ext, _, _, err := h.m.Extend(c.sents) // the words were checked by Corpus
	if err != nil {
		panic(err)
	}
	r := hmm.NewEStepper(c.c, ext.P.Space, workers).Run(ext.P)
	return hmmShard{r, ext, c.c}
}

func (h hmmModel) Decode(cor family.Corpus, k int, mbr bool, s *format.Sentence) bool {
	c := cor.(*hmmCorpus)
	fb := c.fbs.Get().(*hmm.FB)
	defer c.fbs.Put(fb)
	words := c.c.Sents[k]
	tags := make([]int, len(words))
	var gamma []float64
	if mbr {
		gamma = make([]float64, len(words)*c.ext.P.K)
	}
	fellBack := c.dec.Tag(fb, words, tags, mbr, gamma)
	s.GoldTags = hmm.GoldTags(s)
	s.Tags = make([]string, len(tags))
	for i, t := range tags {
		s.Tags[i] = c.ext.States[t]
	}
	return fellBack
}

// CheckMemory numbers the words first, to know the vocabulary a pass
// will hold (the model's and the new ones) and the emission rows of the
// E-step's chunks.
func (h hmmModel) CheckMemory(sents []*format.Sentence, workers int, estep bool, limit int64) error {
	words, ids, _, err := h.m.Number(sents)
	if err != nil {
		return err
	}
	c := hmm.CorpusOf(sents, ids, words)
	j := hmm.Job{Order: h.m.P.Order, K: h.m.P.K, V: len(words), MaxLen: c.MaxLen, Workers: workers, EStep: estep}
	if estep {
		j.Rows = hmm.ChunkRows(c)
	}
	return j.Check(limit)
}

type hmmShard struct {
	r   hmm.EStepResult
	m   *hmm.Model
	cor *hmm.Corpus
}

func (s hmmShard) WriteShard(w io.Writer, model, corpus string) error {
	stats := &format.Stats{Sentences: len(s.cor.Sents), Tokens: s.cor.Tokens, Loglik: s.r.LogLik}
	return hmm.WriteCounts(w, s.r.Counts, s.m.States, s.m.Words, model, corpus, stats)
}

func readHMMCounts(src pipeline.Source, limit int64) (family.Counts, error) {
	t, err := hmm.ReadCounts(src, limit)
	if err != nil {
		return nil, err
	}
	return hmmCounts{t, pipeline.DescribeInputs(src.Names)}, nil
}

type hmmCounts struct {
	t     *hmm.CountTable
	where string // the inputs, for errors
}

func (c hmmCounts) Stats() format.Stats { return *c.t.Shards.Stats }
func (c hmmCounts) Corpus() string      { return c.t.Shards.Corpus }
func (c hmmCounts) Shards() int         { return c.t.Shards.Shards }

func (c hmmCounts) WriteCounts(w io.Writer) error {
	return hmm.WriteCounts(w, c.t.Counts, c.t.States, c.t.Words, c.t.Shards.Model, c.t.Shards.Corpus, c.t.Shards.Stats)
}

func (c hmmCounts) WriteMStep(w io.Writer, lambda float64) error {
	if !(lambda >= 0) {
		return fmt.Errorf("--lambda %v: must be ≥ 0", lambda)
	}
	m, err := c.t.MStep(lambda)
	if err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	return hmm.WriteModel(w, m)
}

// LogProbs is log P(x) of each sentence by forward–backward, a word the
// model never saw emitted with its unseen_word weight; when those are all
// 0 (EM without λ) such a sentence has probability 0.
func (h hmmModel) LogProbs(cor family.Corpus, workers int) []float64 {
	c := cor.(*hmmCorpus)
	noUnseen := !slices.ContainsFunc(h.m.Unseen, func(u float64) bool { return u != 0 })
	out := make([]float64, len(c.c.Sents))
	const per = 64
	pipeline.ForEachChunk((len(out)+per-1)/per, pipeline.Workers(workers), func(_, k int) {
		fb := c.fbs.Get().(*hmm.FB)
		defer c.fbs.Put(fb)
		for i := k * per; i < min(len(out), (k+1)*per); i++ {
			words := c.c.Sents[i]
			if noUnseen && slices.ContainsFunc(words, func(w int32) bool { return int(w) >= len(h.m.Words) }) {
				out[i] = math.Inf(-1)
				continue
			}
			out[i] = fb.Sentence(c.ext.P, words, nil, nil, nil)
		}
	})
	return out
}

// Unseen counts the tokens and distinct words of c the model never saw.
func (h hmmModel) Unseen(cor family.Corpus) (tokens, types int, what string) {
	c := cor.(*hmmCorpus)
	for _, s := range c.c.Sents {
		for _, w := range s {
			if int(w) >= len(h.m.Words) {
				tokens++
			}
		}
	}
	return tokens, len(c.ext.Words) - len(h.m.Words), "words"
}

// Contrast is the contrastive objective of the HMM as a log-linear
// model — its log probabilities, clamped at ce.MinWeight as train-ce's
// start and select-model's DMV models — on the sentences of c, a word the
// model never saw emitted with its unseen_word weight.
func (h hmmModel) Contrast(cor family.Corpus, kind string, workers int) (float64, error) {
	c := cor.(*hmmCorpus)
	p := c.ext.P
	m := &hmmce.Model{K: p.K, V: p.V, Order: p.Order, Allowed: p.Allowed}
	theta := make([]float64, m.Dim())
	m.SetFromProbs(theta, p.Trans, p.Emit, ce.MinWeight)
	ids := make([][]int, len(c.c.Sents))
	for i, s := range c.c.Sents {
		ids[i] = make([]int, len(s))
		for j, w := range s {
			ids[i][j] = int(w)
		}
	}
	return hmmce.Contrast(m, theta, ids, kind, workers)
}
