package ccm

import (
	"fmt"

	"github.com/grind-nlp/grind/stages/memory"
)

// Job is the shape of a CCM job, for its memory estimate: what it holds
// in proportion to its sentences' lengths. A sentence of n tokens has
// (n+1)² span entries and up to n(n+1)/2 yields of its own, of n³/6 tags
// in all, which the symbols keep as keys: a corpus of long sentences
// needs far more memory than its file.
type Job struct {
	Lengths []int // of the sentences
	// Yields and Contexts are those the symbols hold already (a model
	// read; 0 when training).
	Yields, Contexts int
	TagBytes         int // the longest tag's bytes, for the model's text
	Workers          int // charts (≥ 1)
	// Train is a training loop: four models' tables (the current, the
	// next, the tempered and the start), the start's posteriors. EStep is
	// one pass with counts (the posteriors buffer); Decode one that
	// parses, a parse's buffers per worker.
	Train, EStep, Decode bool
	// Text: the model is made as text in memory (train-ccm --save-model,
	// --run-dir).
	Text bool
	// Classes is the multi-class CCM's number of constituent classes (0
	// or 1: the CCM): each beyond the first adds a yield and a context
	// table to every model and to the counts.
	Classes int
}

// Bytes is the estimate.
func (j Job) Bytes() int64 {
	var spans, nonEmpty, yieldTags, contexts, laned, long int64
	longest := int64(0)
	lengths := map[int64]bool{}
	for _, n := range j.Lengths {
		n := int64(n)
		if n > batchMaxLen {
			long = memory.Add(long, memory.Mul(n+1, n+1)) // its posteriors in the lanes' buffer
		} else {
			// A batched sentence's spans, empty ones too, in laneSpans's
			// layout; a length's short batch repeats a sentence up to 7 times.
			laned = memory.Add(laned, memory.Mul(n+1, n+2)/2)
			if !lengths[n] {
				lengths[n] = true
				laned = memory.Add(laned, memory.Mul(lanes-1, n+1, n+2)/2)
			}
		}
		spans = memory.Add(spans, memory.Mul(n+1, n+1))
		nonEmpty = memory.Add(nonEmpty, memory.Mul(n, n+1)/2)
		yieldTags = memory.Add(yieldTags, memory.Mul(n, n+1, n+2)/6)
		contexts = memory.Add(contexts, memory.Mul(n+1, n+2)/2)
		longest = max(longest, n)
	}
	yields := memory.Add(int64(j.Yields), nonEmpty, 1)
	contexts = memory.Add(int64(j.Contexts), contexts)
	copies := int64(2)
	perSpan := int64(8 + 8) // yield and context ids; the lists of each id's spans
	switch {
	case j.Train:
		copies, perSpan = 4, perSpan+16 // the posteriors, and the start's
	case j.EStep:
		perSpan += 8
	}
	total := memory.Add(
		memory.Mul(spans, perSpan),
		// A yield: its key (two bytes a tag), map entry and slices; the
		// corpus's and the counts' tables; each model's two.
		memory.Mul(yieldTags, 2), memory.Mul(yields, 90+12+16+16*copies),
		memory.Mul(contexts, 60+12+16+16*copies))
	if j.Classes > 1 {
		total = memory.Add(total, memory.Mul(memory.Add(yields, contexts), 8*(copies+1), int64(j.Classes-1)))
	}
	chart := memory.Mul(longest+1, longest+1, 24)
	if j.Decode {
		chart = memory.Mul(longest+1, longest+1, 24+32) // and a parse's scores, best, split, posteriors
	}
	if kernel != "" && (j.Train || j.EStep) {
		// The batched E-step's lane chart (three tables of 8 lanes),
		// each sentence's log P(s), place in length order and batch; its
		// spans' ids and posteriors in the lanes' layout (16 bytes a span;
		// a longer sentence's posteriors, 8), their places (lanePlaces: 8
		// bytes a non-empty span and up to 8 an id) and the model's tables
		// paired by id (pairTables).
		batched := min(longest, batchMaxLen) + 1
		chart = memory.Add(chart, memory.Mul(batched, batched, 24*lanes))
		total = memory.Add(total, memory.Mul(int64(len(j.Lengths)), 16), memory.Mul(laned, 16), memory.Mul(long, 8),
			memory.Mul(nonEmpty, 8), memory.Mul(memory.Add(yields, contexts), 16+8))
	}
	total = memory.Add(total, memory.Mul(chart, int64(max(j.Workers, 1))))
	if j.Text {
		// Two lines per yield and per context, ~80 bytes and a quoted tag
		// each, in a buffer grown by doubling.
		tag := int64(j.TagBytes) + 3
		text := memory.Add(memory.Mul(yields, 2*80), memory.Mul(yieldTags, 2*tag), memory.Mul(contexts, 2*(80+2*tag)))
		total = memory.Add(total, memory.Mul(text, 2))
	}
	return total
}

// Check refuses the job when its estimate is over limit bytes.
func (j Job) Check(limit int64) error {
	return memory.Check(j.Bytes(), limit, func() string {
		longest := 0
		for _, n := range j.Lengths {
			longest = max(longest, n)
		}
		return fmt.Sprintf("a CCM of %d sentences, the longest %d words,", len(j.Lengths), longest)
	}, "leave long sentences out (filterlen)")
}

// LengthsOf are the lengths of tag sequences.
func LengthsOf(tags [][]string) []int {
	out := make([]int, len(tags))
	for i, t := range tags {
		out[i] = len(t)
	}
	return out
}

// TagBytes is the length of the longest tag of tags.
func TagBytes(tags [][]string) int {
	n := 0
	for _, ts := range tags {
		for _, t := range ts {
			n = max(n, len(t))
		}
	}
	return n
}
