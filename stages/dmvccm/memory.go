package dmvccm

import (
	"fmt"

	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/memory"
)

// Job is the shape of a DMV+CCM job, for its memory estimate: the CCM
// half's (its sentences, workers and kind of pass), the DMV's tags, and
// the product's charts, whose items (i, j, head) make (n+1)²·n entries
// per table for a sentence of n words.
type Job struct {
	CCM  ccm.Job
	Tags int // the DMV's, its average tag included
	// Orders, when not 0, is the general program's number of open tables
	// (Options.Order Mixture: 2; Footnote8 or a flat CCM: 1), whose
	// E-step holds 6 + 2·Orders tables of items (and, settling a sentence
	// of probability 0, a Viterbi parse's 5 + 2·Orders besides).
	Orders int
}

// Bytes is the estimate.
func (j Job) Bytes() int64 {
	total := j.CCM.Bytes()
	t := int64(j.Tags) + 1
	tables := memory.Of(memory.Add(memory.Mul(2, t, t), memory.Mul(9, t)), 8)
	copies := int64(2)
	if j.CCM.Train || j.CCM.EStep {
		copies += chunks // the E-step's per-chunk counts
	}
	if j.CCM.Train {
		copies += 4 // the next, tempered and start models, the counts
	}
	total = memory.Add(total, memory.Mul(tables, copies))
	longest := int64(0)
	for _, n := range j.CCM.Lengths {
		longest = max(longest, int64(n))
	}
	items := memory.Mul(longest+1, longest+1, longest)
	// Inside and outside hold eight tables of items, a Viterbi parse four
	// and two of back-pointers.
	perWorker := memory.Mul(items, 6*8)
	if j.CCM.Train || j.CCM.EStep {
		perWorker = memory.Mul(items, 8*8)
	}
	parse := int64(6 * 8)
	if k := int64(j.Orders); k > 0 {
		parse = (5 + 2*k) * 8
		perWorker = memory.Mul(items, parse)
		if j.CCM.Train || j.CCM.EStep {
			perWorker = memory.Mul(items, (11+4*k)*8)
		}
	}
	total = memory.Add(total, memory.Mul(perWorker, int64(max(j.CCM.Workers, 1))))
	if j.CCM.Train {
		total = memory.Add(total, memory.Mul(items, parse)) // the log's parses, one at a time
	}
	return total
}

// Check refuses the job when its estimate is over limit bytes.
func (j Job) Check(limit int64) error {
	return memory.Check(j.Bytes(), limit, func() string {
		longest := 0
		for _, n := range j.CCM.Lengths {
			longest = max(longest, n)
		}
		return fmt.Sprintf("a DMV+CCM of %d sentences, the longest %d words,", len(j.CCM.Lengths), longest)
	}, "leave long sentences out (filterlen)")
}

// OrderTables is Job.Orders for m: the general program's number of open
// tables (0: the product's own chart).
func (m *Model) OrderTables() int {
	switch {
	case m.order == Mixture:
		return 2
	case m.order == Footnote8 || m.flat:
		return 1
	}
	return 0
}
