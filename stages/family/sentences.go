package family

import (
	"errors"
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/eventio"
)

// Model is a model in memory of a family whose E-step and decoder take
// sentence records and know no variants but annealing's β and skew (the
// CCM, the HMM). Sentences turns such a family into a Family: the
// stage plumbing around the model (reading, hashing, re-weighting,
// workers, writing) is written there once.
type Model interface {
	// Hash identifies the model by its content, for count headers.
	Hash() string
	// Corpus interns the sentences in the model's symbols; what the model
	// has not seen gets its unseen probabilities.
	Corpus(sents []*format.Sentence) (Corpus, error)
	// Reweighted is the model whose probabilities p are p^β·skew^(1−β)
	// (skew nil: p^β), for deterministic annealing; not normalised.
	Reweighted(beta float64, skew Model) Model
	// EStep is the expected counts of c, and their log-likelihood, the
	// same for any number of workers.
	EStep(c Corpus, workers int) ModelCounts
	// Decode writes the prediction of sentence k of c into s (Viterbi,
	// or minimum Bayes risk with mbr) and says whether the model gives
	// the sentence probability 0, which it then decodes as the DMV's
	// decoder does: every impossible event at dmv.Floor, so the
	// prediction uses as few of them as it can. Safe for concurrent
	// calls.
	Decode(c Corpus, k int, mbr bool, s *format.Sentence) (fellBack bool)
	// CheckMemory refuses, before Corpus or a pass allocates it, a pass
	// over sents (estep: with counts) whose memory would be over limit
	// bytes (≤ 0: no limit): the family's estimate of its charts and
	// tables for these sentence lengths, workers at a time.
	CheckMemory(sents []*format.Sentence, workers int, estep bool, limit int64) error
}

// SplitSkewer is a Model whose skewed DA can lean toward the random-split
// tree distribution (the CCM's: Smith & Eisner 2004 §6).
type SplitSkewer interface {
	// SplitSkewed is the model whose E-step's posterior is
	// P(y|x)^β·p̀(y)^(1−β) renormalised, p̀ the random-split trees.
	SplitSkewed(beta float64) Model
}

// Corpus is a family's corpus, made by its Model.
type Corpus any

// ModelCounts are an E-step's counts before they are written.
type ModelCounts interface {
	// WriteShard writes them as one shard with the model and corpus
	// hashes of its header, and their stats record.
	WriteShard(w io.Writer, model, corpus string) error
}

// Sentences is a Family made of a model reader and a count reader.
type Sentences struct {
	Family string
	// ReadModel reads a model file; with onto not nil, onto the symbols
	// of onto (a skew model) and refusing a model of another family. Its
	// tables are refused over limit bytes (≤ 0: no limit).
	ReadModel func(path string, onto Model, limit int64) (Model, error)
	// ReadCountShards reads and adds count shards, refusing tables over
	// limit bytes.
	ReadCountShards func(src pipeline.Source, limit int64) (Counts, error)
	// Words says that the family reads the sentences' words (the HMM):
	// the corpus hash of its counts covers them, and a sentence of words
	// needs no tags (format.Sentence.ValidateWords).
	Words bool
	// Check, when not nil, refuses a sentence the family cannot read (the
	// HMM's without words, the CCM's with its boundary tag among its
	// tags), as the sentence is read: the error names file and line.
	Check func(s *format.Sentence) error
	// NoReweighting, when not "", is why the family's E-step takes none
	// of annealing's re-weightings (--beta, --skew, --split-skew).
	NoReweighting string
}

func (f Sentences) Name() string { return f.Family }

// ReadsWords says whether the family reads words.
func (f Sentences) ReadsWords() bool { return f.Words }

// CheckSentence is the family's Check (nil without one).
func (f Sentences) CheckSentence(s *format.Sentence) error {
	if f.Check == nil {
		return nil
	}
	return f.Check(s)
}

// ReadsWords says whether fam reads the sentences' words (Sentences.Words),
// so that its corpus hash covers them.
func ReadsWords(fam Family) bool {
	f, ok := fam.(interface{ ReadsWords() bool })
	return ok && f.ReadsWords()
}

// HashesWords says whether the corpus hash of counts c of fam covers
// the sentences' words: a family that reads them (ReadsWords), or counts
// that say so of themselves (Model U's with spelling features, whose
// family reads words only then).
func HashesWords(fam Family, c Counts) bool {
	if f, ok := c.(interface{ CorpusWords() bool }); ok {
		return f.CorpusWords()
	}
	return ReadsWords(fam)
}

// CheckSentence is fam's own check of a sentence (Sentences.Check); nil
// for a family without one.
func CheckSentence(fam Family, s *format.Sentence) error {
	if f, ok := fam.(interface {
		CheckSentence(*format.Sentence) error
	}); ok {
		return f.CheckSentence(s)
	}
	return nil
}

// ReadSentences reads every sentence of src for fam: each validated and
// checked by fam (CheckSentence), a refused one named by file and line.
func ReadSentences(fam Family, src pipeline.Source) ([]*format.Sentence, error) {
	check := func(s *format.Sentence) error { return CheckSentence(fam, s) }
	if ReadsWords(fam) {
		return pipeline.ReadWordSentences(src, check)
	}
	return pipeline.ReadSentencesChecked(src, check)
}

// eachSentence is pipeline.EachSentence, or for a family that reads words
// pipeline.EachWordSentence: a sentence of words needs no tags.
func eachSentence(fam Family, src pipeline.Source, fn func(*format.Sentence) error) error {
	if ReadsWords(fam) {
		return pipeline.EachWordSentence(src, fn)
	}
	return pipeline.EachSentence(src, fn)
}

func (f Sentences) ReadCounts(src pipeline.Source, limit int64) (Counts, error) {
	return f.ReadCountShards(src, limit)
}

// EStep reads the model and the sentences and writes one count shard.
// Of the re-weightings --beta and --skew apply; the stats record's loglik
// is then the re-weighted model's.
func (f Sentences) EStep(src pipeline.Source, w io.Writer, opts EStepOptions) error {
	r := dmv.Plain()
	if opts.Reweight != nil {
		r = *opts.Reweight
	}
	switch {
	case opts.Hard || opts.Gold:
		return fmt.Errorf("--hard and --gold are the DMV's: a %s E-step counts posteriors", f.Family)
	case opts.PR.On():
		return fmt.Errorf("posterior regularization (--rules, --sparsity) is the DMV's, not a %s model's", f.Family)
	case r.Delta != 0 || r.Segmented:
		return fmt.Errorf("--delta and --seg-beta are the DMV's: of the re-weightings a %s model takes --beta and --skew", f.Family)
	case opts.Bound.On():
		return fmt.Errorf("--max-depth is the DMV's: a %s E-step has no left-corner depth bound", f.Family)
	case !(r.Beta > 0 && r.Beta <= 1):
		return fmt.Errorf("--beta must be in (0, 1], not %v", r.Beta)
	case opts.SplitSkew && opts.Skew != "":
		return fmt.Errorf("--skew and --split-skew are two skews: give one")
	case f.NoReweighting != "" && (r.Beta != 1 || opts.Skew != "" || opts.SplitSkew):
		return fmt.Errorf("--beta, --skew and --split-skew anneal, and a %s model takes none: %s", f.Family, f.NoReweighting)
	}
	m, err := f.ReadModel(opts.Model, nil, opts.MaxMemory)
	if err != nil {
		return err
	}
	splitter, canSplit := m.(SplitSkewer)
	if opts.SplitSkew && !canSplit {
		return fmt.Errorf("--split-skew is the CCM's (its bracketings' random-split distribution): a %s model takes --skew MODEL", f.Family)
	}
	hash := m.Hash()
	sents, c, err := f.corpus(src, m, opts.Workers, opts.MaxMemory)
	if err != nil {
		return err
	}
	e := m
	switch {
	case opts.SplitSkew:
		e = splitter.SplitSkewed(r.Beta)
		hash = eventio.HashStrings(hash, fmt.Sprintf("beta=%v", r.Beta), "split-skew")
	case r.Beta != 1 || opts.Skew != "":
		var skew Model
		skewHash := ""
		if opts.Skew != "" {
			if skew, err = f.ReadModel(opts.Skew, m, opts.MaxMemory); err != nil {
				return err
			}
			skewHash = skew.Hash()
		}
		e = m.Reweighted(r.Beta, skew)
		// Shards of different re-weightings do not mix.
		hash = eventio.HashStrings(hash, fmt.Sprintf("beta=%v", r.Beta), skewHash)
	}
	counts := e.EStep(c, opts.Workers)
	if z, ok := counts.(interface{ Zero() int }); ok && z.Zero() > 0 && opts.Warn != nil {
		fmt.Fprintf(opts.Warn, "estep: %d sentences of probability 0 under the model left out of the counts\n", z.Zero())
	}
	return counts.WriteShard(w, hash, eventio.CorpusHash(sents, f.Words))
}

func (f Sentences) corpus(src pipeline.Source, m Model, workers int, limit int64) ([]*format.Sentence, Corpus, error) {
	sents, err := ReadSentences(f, src)
	if err != nil {
		return nil, nil, err
	}
	if len(sents) == 0 {
		return nil, nil, fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	if err := m.CheckMemory(sents, pipeline.Workers(workers), true, limit); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	c, err := m.Corpus(sents)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	return sents, c, nil
}

// DecodeBatch is how many sentences Decode parses between writes: it
// streams in bounded memory, in input order, as the DMV's decoder does.
var DecodeBatch = 4096

// Decode writes each sentence of src with the model's prediction, in
// input order, a batch at a time.
func (f Sentences) Decode(src pipeline.Source, w io.Writer, opts DecodeOptions) (DecodeReport, error) {
	var rep DecodeReport
	if opts.Model == "" {
		return rep, errors.New("a model is needed (-m MODEL)")
	}
	if opts.Bound.On() {
		return rep, fmt.Errorf("--max-depth is the DMV's: a %s model decodes without a left-corner depth bound", f.Family)
	}
	m, err := f.ReadModel(opts.Model, nil, opts.MaxMemory)
	if err != nil {
		return rep, err
	}
	var batch []*format.Sentence
	workers := pipeline.Workers(opts.Workers)
	fellBack := make([]int, workers)
	flush := func() error {
		if err := m.CheckMemory(batch, workers, false, opts.MaxMemory); err != nil {
			return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
		}
		c, err := m.Corpus(batch)
		if err != nil {
			return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
		}
		const per = 64
		pipeline.ForEachChunk((len(batch)+per-1)/per, workers, func(worker, k int) {
			for i := k * per; i < min(len(batch), (k+1)*per); i++ {
				if m.Decode(c, i, opts.MBR, batch[i]) {
					fellBack[worker]++
				}
			}
		})
		for _, s := range batch {
			if err := pipeline.WriteRecord(w, s); err != nil {
				return err
			}
		}
		rep.Sentences += len(batch)
		batch = batch[:0]
		return nil
	}
	err = eachSentence(f, src, func(s *format.Sentence) error {
		if err := f.CheckSentence(s); err != nil {
			return pipeline.BadRecord(err)
		}
		if batch = append(batch, s); len(batch) == DecodeBatch {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	if err == nil && rep.Sentences == 0 {
		err = fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	for _, n := range fellBack {
		rep.FellBack += n
	}
	return rep, err
}

// Scorer is what select-model asks of a Model to rank it by likelihood
// (a family without it is ranked by accuracy only).
type Scorer interface {
	// LogProbs is log P(x) of each sentence of c under the model, the
	// family's own likelihood (−Inf: probability 0), the same for any
	// number of workers.
	LogProbs(c Corpus, workers int) []float64
	// Unseen is how many tokens of c the model had not seen, how many
	// distinct ones, and what they are ("words"); 0 and "" when the
	// family gives them no probability of their own to report.
	Unseen(c Corpus) (tokens, types int, what string)
}

// Contraster is what select-model asks of a Model to rank it by Smith's
// contrastive objective (--by contrast): the taggers' (the HMM's, the CE
// tagger's), the DMV's being ranked by its own code.
type Contraster interface {
	// Contrast is Σ log Z(x) − log Z(N(x)) over the sentences of c under
	// the word neighbourhood kind, without a prior; the same for any
	// number of workers.
	Contrast(c Corpus, kind string, workers int) (float64, error)
}
