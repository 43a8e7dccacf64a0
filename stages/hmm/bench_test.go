package hmm

import (
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/internal/vec8"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/tagged2sents"
)

// BenchmarkForwardBackward_K45 reports ns per token·K² (trigram: K³) for
// one forward–backward with counts over a 25-token sentence, one core, on
// fb.go's path and on this build's vector kernel (when the machine runs
// it).
func BenchmarkForwardBackward_K45(b *testing.B) {
	for _, c := range []struct {
		name   string
		order  int
		kernel string
	}{{"bitag/scalar", 1, ""}, {"bitag/" + vec8.Kernel, 1, vec8.Kernel}, {"trigram/scalar", 2, ""}, {"trigram/" + vec8.Kernel, 2, vec8.Kernel}} {
		b.Run(c.name, func(b *testing.B) {
			const k, v, n = 45, 5000, 25
			rng := rand.New(rand.NewPCG(1, 1))
			s, _ := NewSpace(c.order, k, v, nil)
			p := s.NoisyUniform(1, 3)
			words := make([]int32, n)
			for i := range words {
				words[i] = int32(rng.IntN(v))
			}
			acc := &Accum{Trans: make([]float64, len(p.Trans)), Emit: make([]float64, len(p.Emit))}
			var fb FB
			withKernel(b, c.kernel, func() {
				d := denseFor(p, new(denseModel))
				b.ResetTimer()
				for b.Loop() {
					fb.sentence(p, d, words, acc, words, nil)
				}
			})
			per := float64(n * k * k)
			if c.order == 2 {
				per *= k
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/per, "ns/token·K^order+1")
		})
	}
}

func brownCorpus(b testing.TB) *Corpus {
	dir := testenv.SharedData(b, "brown")
	files, _ := filepath.Glob(filepath.Join(dir, "c[a-r][0-9][0-9]"))
	var sents []*format.Sentence
	r, w := newPipe()
	go func() {
		_, err := tagged2sents.Convert(pipeline.Source{Names: files}, w, tagged2sents.Options{Format: tagged2sents.Brown})
		w.CloseWithError(err)
	}()
	err := pipeline.EachSentence(pipeline.Source{Stdin: r}, func(s *format.Sentence) error {
		sents = append(sents, s)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	c, err := NewCorpus(sents)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkEMIterationBrown is one E-step and M-step over the Brown
// corpus (1.16M tokens) at K = 45, two workers.
func BenchmarkEMIterationBrown(b *testing.B) {
	c := brownCorpus(b)
	s, _ := NewSpace(1, 45, len(c.Words), nil)
	p := s.NoisyUniform(0.1, 1)
	es := NewEStepper(c, s, 2)
	b.ResetTimer()
	for b.Loop() {
		r := es.Run(p)
		p = s.Normalize(r.Counts, 0)
	}
}

// BenchmarkGibbsSweepBrown is one sweep of the collapsed sampler over
// Brown at K = 45.
func BenchmarkGibbsSweepBrown(b *testing.B) {
	c := brownCorpus(b)
	s, _ := NewSpace(1, 45, len(c.Words), nil)
	g, err := NewSampler(c, s, 0.1, 0.1, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		g.Sweep(1)
	}
}

func newPipe() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }
