package hmm

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/internal/testenv"
)

// The E-step that bench/floor's C kernels are the floor of: forward–
// backward with all expected counts over Brown at K = 45 under the fixed
// model NoisyUniform(0.1, 1), the start of BenchmarkEMIterationBrown.
func floorModel(c *Corpus) (*Space, *Params) {
	s, _ := NewSpace(1, 45, len(c.Words), nil)
	return s, s.NoisyUniform(0.1, 1)
}

// BenchmarkEStepBrown is the E-step alone (counts merged, no M-step) over
// Brown at K = 45: grind's side of bench/floor/run.sh.
func BenchmarkEStepBrown(b *testing.B) {
	c := brownCorpus(b)
	s, p := floorModel(c)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			es := NewEStepper(c, s, workers)
			cpu := testenv.CPUSeconds()
			for b.Loop() {
				es.Run(p)
			}
			b.ReportMetric((testenv.CPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// TestWriteFloorInput writes the corpus, the model and grind's E-step
// result (log-likelihood and expected counts) to $GRIND_FLOOR_OUT/hmm.bin
// for bench/floor's C kernels, which must reproduce them; skipped unless
// GRIND_FLOOR_OUT is set (bench/floor/run.sh sets it). The layout, all
// little-endian: int32 K, V, sentences, tokens; int32 length of each
// sentence; int32 word ids; float64 Trans ((K+1)·(K+1), row = previous
// state or start K, entry K = stop) and Emit (V·K, word-major); float64
// log-likelihood; float64 expected Trans and Emit counts.
func TestWriteFloorInput(t *testing.T) {
	dir := os.Getenv("GRIND_FLOOR_OUT")
	if dir == "" {
		t.Skip("set GRIND_FLOOR_OUT to write bench/floor's input")
	}
	c := brownCorpus(t)
	s, p := floorModel(c)
	r := NewEStepper(c, s, 0).Run(p)
	lengths := make([]int32, len(c.Sents))
	var words []int32
	for i, sent := range c.Sents {
		lengths[i] = int32(len(sent))
		words = append(words, sent...)
	}
	err := testenv.WriteBinary(filepath.Join(dir, "hmm.bin"),
		[]int32{int32(s.K), int32(s.V), int32(len(c.Sents)), int32(len(words))},
		lengths, words, p.Trans, p.Emit, r.LogLik, r.Counts.Trans, r.Counts.Emit)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sentences, %d tokens, V = %d, log-likelihood %.10f", len(c.Sents), len(words), s.V, r.LogLik)
}
