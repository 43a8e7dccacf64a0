package classes

import (
	"fmt"
	"math"

	"github.com/grind-nlp/grind/format"
)

// TrainOptions choose the method and its settings.
type TrainOptions struct {
	Method  string // MethodKlein or MethodBrown
	Classes int
	// Klein's: Contexts, Rank, MaxIter, Seed (Classes and Workers are
	// the options' own).
	Klein   KleinOptions
	Workers int
	// FunctionWords, when > 0, gives each of the FunctionWords most
	// frequent (lowercased) word forms a class of its own (FunctionPrefix).
	FunctionWords int
	// MaxMemory refuses, once the word types are counted and before the
	// tables are made, training whose MemoryBytes is over it (≤ 0: no
	// limit).
	MaxMemory int64
}

// Train induces the classes of the sentences' words and returns their
// model: Klein's on the lowercased words, Brown's on the words as they
// are. Klein's classes are named c0, c1, … (heaviest first), Brown's by
// their paths.
func Train(sents []*format.Sentence, opts TrainOptions) (*Model, error) {
	switch opts.Method {
	case MethodKlein:
		c := NewCorpus(sents, true)
		if err := checkMemory(opts, len(c.Types)); err != nil {
			return nil, err
		}
		ko := opts.Klein
		ko.Classes, ko.Workers = opts.Classes, opts.Workers
		res, err := Klein(c, ko)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(c.Types))
		for w, cl := range res.Class {
			names[w] = fmt.Sprintf("c%d", cl)
		}
		info := Info{Sentences: len(sents), Tokens: c.Tokens, Contexts: min(ko.Contexts, len(c.Types)), Rank: res.Rank,
			Seed: ko.Seed, Iterations: res.Iterations, Distortion: res.Distortion, FunctionWords: opts.FunctionWords}
		if names, err = withFunctionWords(c.Types, c.Counts, names, opts.FunctionWords); err != nil {
			return nil, err
		}
		return newModel(MethodKlein, true, c.Types, c.Counts, names, info), nil
	case MethodBrown:
		c := NewCorpus(sents, false)
		if err := checkMemory(opts, len(c.Types)); err != nil {
			return nil, err
		}
		res, err := Brown(c, BrownOptions{Classes: opts.Classes, Workers: opts.Workers})
		if err != nil {
			return nil, err
		}
		info := Info{Sentences: len(sents), Tokens: c.Tokens, AMI: res.AMI / math.Ln2, FunctionWords: opts.FunctionWords}
		names, err := withFunctionWords(c.Types, c.Counts, res.Paths, opts.FunctionWords)
		if err != nil {
			return nil, err
		}
		return newModel(MethodBrown, false, c.Types, c.Counts, names, info), nil
	}
	return nil, fmt.Errorf("method %q: %q or %q", opts.Method, MethodKlein, MethodBrown)
}

// TagTraining is the training sentences' classes under the model (the
// first prefix characters of each, when prefix > 0).
func (m *Model) TagTraining(sents []*format.Sentence, prefix int) [][]string {
	tags := make([][]string, len(sents))
	for i, s := range sents {
		tags[i] = make([]string, len(s.Words))
		for j, w := range s.Words {
			c, _ := m.Class(w)
			tags[i][j] = cut(c, prefix)
		}
	}
	return tags
}
