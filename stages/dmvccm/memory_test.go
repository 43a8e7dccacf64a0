package dmvccm

import (
	"fmt"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/stages/ccm"
)

// The estimate of training the product on a long sentence (its charts
// dominate: (n+1)²·n items a table), one iteration and the parses, is
// at least what the job holds at its end and at most twice what it
// allocates in all, garbage included.
func TestJobBytesAgainstAllocation(t *testing.T) {
	const n = 40
	s := &format.Sentence{}
	for i := range n {
		s.Tags = append(s.Tags, fmt.Sprint("T", i%9))
	}
	sents := []*format.Sentence{s, {Tags: []string{"T1", "T2"}}}
	tags := map[string]bool{}
	for _, x := range sents {
		for _, t := range x.Tags {
			tags[t] = true
		}
	}
	lengths := []int{n, 2}
	job := Job{CCM: ccm.Job{Lengths: lengths, Workers: 1, Train: true}, Tags: len(tags)}
	allocated, held := testenv.Measure(func() any {
		m, _, err := Train(sents, Options{MaxIter: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		m.Parse(0)
		return m
	})
	est := job.Bytes()
	t.Logf("%d words: estimate %d bytes, held %d, allocated %d", n, est, held, allocated)
	if est < held || est > 2*allocated {
		t.Errorf("estimate %d, not between %d held and twice %d allocated", est, held, allocated)
	}
}
