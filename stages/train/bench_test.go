package train_test

import (
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/train"
)

// BenchmarkEMIteration is one iteration of train-em (E-step and M-step)
// on UD English ≤10 (5,387 sentences) and ≤15 (7,647), from the km model.
func BenchmarkEMIteration(b *testing.B) {
	for _, maxLen := range []int{10, 15} {
		c := corpora.UDEnglish(b, maxLen)
		start, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("len%d/workers%d", maxLen, workers), func(b *testing.B) {
				e := dmv.NewEStepper(c)
				for b.Loop() {
					res := e.Run(start, dmv.EStepOptions{Workers: workers})
					dmv.MStep(res.Counts, 0)
				}
			})
		}
	}
}

// BenchmarkTrainEM is train-em --init km to convergence on UD English
// ≤10, reading and writing excluded; it reports the iterations taken and
// the heap in use at the end.
func BenchmarkTrainEM(b *testing.B) {
	c := corpora.UDEnglish(b, 10)
	iterations := 0
	for b.Loop() {
		start, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
		if err != nil {
			b.Fatal(err)
		}
		res, err := (&train.EM{Corpus: c}).Run(start)
		if err != nil {
			b.Fatal(err)
		}
		iterations = res.Iterations
		dmv.WriteTable(io.Discard, c.Tags, res.Model, format.Prob, nil)
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(iterations), "iterations")
	b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MiB")
}

// BenchmarkBoundedEStep is one E-step (counts and log-likelihood) on UD
// English ≤10 and ≤15 from the km model, one worker: the plain chart
// and the bounded one at depth 1, depth 2 and depth 1 with chunks of 3
// (Noji et al.'s best).
func BenchmarkBoundedEStep(b *testing.B) {
	for _, maxLen := range []int{10, 15} {
		c := corpora.UDEnglish(b, maxLen)
		start, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, bound := range []dmv.DepthBound{{}, {Max: 1, Chunk: 1}, {Max: 2, Chunk: 1}, {Max: 1, Chunk: 3}} {
			name := "plain"
			if bound.On() {
				name = fmt.Sprintf("depth%d-chunk%d", bound.Max, bound.Chunk)
			}
			b.Run(fmt.Sprintf("len%d/%s", maxLen, name), func(b *testing.B) {
				e := dmv.NewEStepper(c)
				for b.Loop() {
					e.Run(start, dmv.EStepOptions{Workers: 1, Bound: bound})
				}
			})
		}
	}
}
