package ccm_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/treebanks"
)

// floorInput is the E-step that bench/floor's C kernels are the floor
// of: the Chinese sample ≤ 10 under the model after one EM iteration
// from Klein's start, which BenchmarkEMIterationSinica10 iterates from.
func floorInput(t testing.TB) (*ccm.Corpus, *ccm.Model) {
	sents := corpora.TreebankTrees(t, treebanks.Sinica, 10)
	c := corpusOf(t, sents)
	m, _, err := ccm.Train(c, ccm.Options{MaxIter: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

// BenchmarkEStepSinica10 is the E-step alone (inside–outside and the sums
// into counts, no M-step) over the Chinese sample ≤ 10: grind's side of
// bench/floor/run.sh.
func BenchmarkEStepSinica10(b *testing.B) {
	c, m := floorInput(b)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			cpu := testenv.CPUSeconds()
			for b.Loop() {
				m.EStep(c, workers)
			}
			b.ReportMetric((testenv.CPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// TestWriteFloorInput writes the corpus, the model and grind's E-step
// result to $GRIND_FLOOR_OUT/ccm.bin for bench/floor's C kernels, which
// must reproduce them; skipped unless GRIND_FLOOR_OUT is set
// (bench/floor/run.sh sets it). The layout, all little-endian: int32
// sentences, yields, contexts, spans; int32 length n of each sentence;
// int32 yield and int32 context ids of the spans, (n+1)² a sentence,
// span [i, j) at i·(n+1) + j (−1 where i > j); float64 P(yield |
// distituent), P(yield | constituent), P(context | distituent),
// P(context | constituent); float64 log-likelihood; float64 expected
// constituent counts of the yields and of the contexts.
func TestWriteFloorInput(t *testing.T) {
	dir := os.Getenv("GRIND_FLOOR_OUT")
	if dir == "" {
		t.Skip("set GRIND_FLOOR_OUT to write bench/floor's input")
	}
	c, m := floorInput(t)
	cnt := m.EStep(c, 0)
	lengths := make([]int32, len(c.Sentences))
	for i, s := range c.Sentences {
		lengths[i] = int32(s.N)
	}
	err := testenv.WriteBinary(filepath.Join(dir, "ccm.bin"),
		[]int32{int32(len(c.Sentences)), int32(c.Sym.NumYields()), int32(c.Sym.NumContexts()), int32(len(c.Yield))},
		lengths, c.Yield, c.Context,
		m.Span[ccm.Distituent], m.Span[ccm.Constituent], m.Context[ccm.Distituent], m.Context[ccm.Constituent],
		cnt.LogLik, cnt.SpanT, cnt.ContextT)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sentences, %d tokens, %d yields, %d contexts, log-likelihood %.10f",
		len(c.Sentences), c.Tokens, c.Sym.NumYields(), c.Sym.NumContexts(), cnt.LogLik)
}

// BenchmarkEStepKernels is BenchmarkEStepSinica10 on the scalar chart and
// on the lanes (the plain-Go lanes of a build without GOEXPERIMENT=simd
// too, which the E-step does not use), to compare the two in one binary.
func BenchmarkEStepKernels(b *testing.B) {
	c, m := floorInput(b)
	for _, k := range []string{"", ccm.LaneKernel()} {
		name := k
		if k == "" {
			name = "scalar"
		}
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(b *testing.B) {
				defer ccm.SetKernel(k)()
				cpu := testenv.CPUSeconds()
				for b.Loop() {
					m.EStep(c, workers)
				}
				b.ReportMetric((testenv.CPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
