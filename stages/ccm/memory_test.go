package ccm

import (
	"fmt"
	"testing"

	"github.com/grind-nlp/grind/internal/testenv"
)

// The estimate of training on a long sentence of distinct tags (whose
// n(n+1)/2 yields are all distinct, as the estimate assumes), one
// iteration and the decoding, is at least what the job holds at its end
// (the corpus, the symbols, the model) and at most twice what it
// allocates in all, garbage included.
func TestJobBytesAgainstAllocation(t *testing.T) {
	for _, tc := range []struct {
		n    int
		v    Variant
		text bool
	}{{120, Model1, false}, {120, Model2, false}, {80, Model1, true}} {
		tags := make([]string, tc.n)
		for i := range tags {
			tags[i] = fmt.Sprint("T", i)
		}
		corpus := [][]string{tags, {"T1", "T2"}}
		job := Job{Lengths: LengthsOf(corpus), TagBytes: TagBytes(corpus), Workers: 1, Train: true, Text: tc.text}
		allocated, held := testenv.Measure(func() any {
			c, err := NewCorpus(corpus, nil)
			if err != nil {
				t.Fatal(err)
			}
			m, _, err := Train(c, Options{Variant: tc.v, MaxIter: 1, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if tc.text {
				var b countingWriter
				if err := WriteModel(&b, m); err != nil {
					t.Fatal(err)
				}
			}
			m.Parse(c, 0, Viterbi)
			return m
		})
		est := job.Bytes()
		t.Logf("%d words, variant %d, text %v: estimate %d bytes, held %d, allocated %d", tc.n, tc.v, tc.text, est, held, allocated)
		if est < held || est > 2*allocated {
			t.Errorf("%d words, variant %d: estimate %d, not between %d held and twice %d allocated", tc.n, tc.v, est, held, allocated)
		}
	}
}

// countingWriter stands for the buffer train-ccm writes a model to.
type countingWriter struct{ buf []byte }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}
