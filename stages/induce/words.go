package induce

import (
	"fmt"
	"slices"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/classes"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/pr"
	"github.com/grind-nlp/grind/stages/schedule"
	"github.com/grind-nlp/grind/stages/selectmodel"
)

// WordOptions make RunWords start from words alone: word classes first
// (Brown clustering, the most frequent words each a class of its own),
// then the grammar over them.
type WordOptions struct {
	Method        string // classes.MethodBrown or classes.MethodKlein
	Classes       int
	FunctionWords int
	// MaxLen bounds the sentences the grammar is trained and chosen on;
	// the classes are learnt from every sentence.
	MaxLen int
}

// DefaultWordOptions are induce --words's defaults (docs/results.md,
// "From words to trees", says how they were set).
func DefaultWordOptions() WordOptions {
	return WordOptions{Method: classes.MethodBrown, Classes: 64, FunctionWords: 50, MaxLen: 10}
}

// WordGrid is the preset's candidates from words: EM and structural
// annealing from km and zero, each constrained by the content-head rule
// (no function word heads a dependency) at share 0.95 — and, in full,
// at 0.9 and with λ = 0 too.
func WordGrid(preset string) ([]Candidate, error) {
	sa, _ := schedule.Linear(-0.6, 0.2, 0)
	var out []Candidate
	add := func(lambdas, shares []float64, deltas []float64) {
		for _, l := range lambdas {
			for _, s := range shares {
				for _, init := range []string{dmv.InitKM, dmv.InitZero} {
					out = append(out, Candidate{Init: init, Lambda: l, Share: s, Deltas: deltas})
				}
			}
		}
	}
	switch preset {
	case "quick":
		add([]float64{1}, []float64{0.95}, nil)
	case "medium":
		add([]float64{1}, []float64{0.95}, nil)
		add([]float64{1}, []float64{0.95}, sa)
	case "full":
		add([]float64{0, 1}, []float64{0.9, 0.95}, nil)
		add([]float64{0, 1}, []float64{0.9, 0.95}, sa)
	default:
		return nil, fmt.Errorf("no preset %q (want %s)", preset, joinPresets())
	}
	return out, nil
}

// WordsResult is RunWords's choice: the tagger and the grammar over its
// classes.
type WordsResult struct {
	*Result
	Tagger *classes.Model
}

// RunWords learns word classes from the words of the training and dev
// sentences (every one: tags and heads, when present, are never read),
// tags them, and trains and ranks the word grid's candidates on those of
// at most MaxLen words by dev likelihood.
func RunWords(opts Options, wo WordOptions) (*WordsResult, error) {
	began := time.Now()
	grid, err := WordGrid(opts.Preset)
	if err != nil {
		return nil, err
	}
	trainSents, err := classes.ReadSentences(opts.Train)
	if err != nil {
		return nil, err
	}
	devSents, err := classes.ReadSentences(opts.Dev)
	if err != nil {
		return nil, err
	}
	tagger, err := classes.Train(slices.Concat(trainSents, devSents), classes.TrainOptions{
		Method: wo.Method, Classes: wo.Classes, FunctionWords: wo.FunctionWords, Workers: opts.Workers, MaxMemory: opts.MaxMemory,
		Klein: classes.KleinOptions{Contexts: 500, Rank: 50, MaxIter: 100, Seed: 1},
	})
	if err != nil {
		return nil, fmt.Errorf("%s and %s: %w", pipeline.DescribeInputs(opts.Train.Names), pipeline.DescribeInputs(opts.Dev.Names), err)
	}
	train, err := classed(tagger, trainSents, wo.MaxLen, opts.Train)
	if err != nil {
		return nil, err
	}
	dev, err := classed(tagger, devSents, wo.MaxLen, opts.Dev)
	if err != nil {
		return nil, err
	}
	corpus, err := dmv.NewCorpus(train, nil)
	if err != nil {
		return nil, err
	}
	rules, _ := pr.Builtin(pr.ContentHeads)
	res, err := choose(corpus, dev, pipeline.DescribeInputs(opts.Dev.Names), grid, rules, selectmodel.Likelihood, "", opts)
	if err != nil {
		return nil, err
	}
	res.Classes = fmt.Sprintf("%s, %d classes (%d of them the %d most frequent words') of %d word types, from %d training and %d dev sentences; the grammar on those of ≤ %d words",
		tagger.Method, len(tagger.Classes), wo.FunctionWords, wo.FunctionWords, len(tagger.Words), len(trainSents), len(devSents), wo.MaxLen)
	res.Seconds = time.Since(began).Seconds()
	return &WordsResult{Result: res, Tagger: tagger}, nil
}

// classed is the sentences of at most maxLen words with their classes
// as tags (and nothing else but their ids and words).
func classed(m *classes.Model, sents []*format.Sentence, maxLen int, src pipeline.Source) ([]*format.Sentence, error) {
	var out []*format.Sentence
	for _, s := range sents {
		if maxLen > 0 && len(s.Words) > maxLen {
			continue
		}
		t := &format.Sentence{ID: s.ID, Words: s.Words, Tags: make([]string, len(s.Words))}
		for i, w := range s.Words {
			t.Tags[i], _ = m.Class(w)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no sentence of at most %d words", pipeline.DescribeInputs(src.Names), maxLen)
	}
	return out, nil
}

// WriteModel writes the grammar over the tagger's classes.
func (r *WordsResult) WriteModel(w *pipeline.Output) error {
	return dmv.WriteTable(w, r.Tags, r.Best.Model, format.Prob, nil)
}
