// Package dmvsample draws sentences with their trees from a DMV: synthetic
// corpora with known gold trees, for recovery tests and scale benchmarks.
package dmvsample

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/memory"
)

// Options of the sampler.
type Options struct {
	Model          string
	N              int
	Seed           uint64
	MinLen, MaxLen int // lengths kept; MaxLen ≤ 0: up to DefaultMaxLen
	// MaxMemory refuses, before any draw, a MaxLen whose sentence would
	// need more bytes (MemoryBytes; ≤ 0: no limit).
	MaxMemory int64
}

// tokenBytes is what a draw holds per token (TestSampleMemory): its
// node in the tree, the stacks that grow and lay it out, the tags, heads
// and names, and the record, which spells a tag's name in a few copies.
const tokenBytes = 400

// MemoryBytes estimates what drawing a sentence of up to maxLen tokens
// over tag names of at most nameLen bytes holds.
func MemoryBytes(maxLen, nameLen int) int64 {
	return memory.Mul(int64(maxLen), tokenBytes+8*int64(nameLen))
}

// DefaultMaxLen is the longest sentence drawn when no --max-len is given:
// a draw that grows beyond it is abandoned and drawn again, so that a
// model that rarely stops cannot run away.
const DefaultMaxLen = 1000

// maxTries and maxTokens bound the draws for one sentence, and the
// tokens they generate in all: a length window the model almost never
// produces is an error, not an endless loop.
const (
	maxTries  = 100000
	maxTokens = 10000000
)

// Run writes opts.N sampled sentences to w, with tags and gold heads
// (no words); ids are "sample#k".
func Run(w io.Writer, opts Options) error {
	model, err := dmv.ReadModel(opts.Model)
	if err != nil {
		return err
	}
	if model.Unit != format.Prob {
		return fmt.Errorf("%s: sampling needs a probability model (\"p\")", opts.Model)
	}
	if model.VB != nil {
		return fmt.Errorf("%s: a model of variational Bayes (vb_alpha %v): its weights exp E[log θ] sum to less than 1, no distribution to sample from (train-em --final-lambda α writes the posterior mean, a normalised model)", opts.Model, model.VB.Alpha)
	}
	if err := dmv.CheckSampleable(model.Params, model.Tags.Name); err != nil {
		return fmt.Errorf("%s: cannot sample: %w", opts.Model, err)
	}
	maxLen := opts.MaxLen
	if maxLen <= 0 {
		maxLen = max(DefaultMaxLen, opts.MinLen)
	}
	nameLen := 0
	for _, t := range model.Tags.Names() {
		nameLen = max(nameLen, len(t))
	}
	if err := memory.Check(MemoryBytes(maxLen, nameLen), opts.MaxMemory, func() string {
		return fmt.Sprintf("drawing sentences of up to %d tags (--max-len)", maxLen)
	}, "lower --max-len"); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0xd3f))
	for k := 1; k <= opts.N; k++ {
		var tags, heads []int
		for try, tokens := 0, 0; ; try++ {
			if try == maxTries || tokens >= maxTokens {
				return fmt.Errorf("after %d draws (%d tokens) no sentence of length %d..%d: the model rarely makes such sentences", try, tokens, opts.MinLen, maxLen)
			}
			var ok bool
			tags, heads, ok = dmv.Sample(rng, model.Params, maxLen)
			if ok && len(tags) >= opts.MinLen {
				break
			}
			if ok {
				tokens += len(tags)
			} else {
				tokens += maxLen + 1 // abandoned as it grew past maxLen
			}
		}
		names := make([]string, len(tags))
		for i, t := range tags {
			names[i] = model.Tags.Name(t)
		}
		s := format.Sentence{ID: fmt.Sprintf("sample#%d", k), Tags: names, Heads: heads}
		if err := pipeline.WriteRecord(w, s); err != nil {
			return err
		}
	}
	return nil
}
