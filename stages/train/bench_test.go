package train_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/grind-nlp/grind/commands"
	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/train"
)

// udEnglish is UD English v1.4 train without punctuation, XPOS tags, of
// length ≤ maxLen: (a) of the DMV issue at 10, the whole ≤15 file at 15.
func udEnglish(b *testing.B, maxLen int) *dmv.Corpus {
	path := testenv.SharedData(b, "ud-nopunct", "en-ud-train-nopunct-len15.conllu")
	var out, errs bytes.Buffer
	if code := commands.Run("conll2deps", []string{"conll2deps", "--tag", "xpos", path}, nil, &out, &errs); code != 0 {
		b.Fatal(errs.String())
	}
	var sents []*format.Sentence
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		s := new(format.Sentence)
		if err := format.Unmarshal(line, s); err != nil {
			b.Fatal(err)
		}
		if s.Len() <= maxLen {
			sents = append(sents, s)
		}
	}
	c, err := dmv.NewCorpus(sents, nil)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkEMIteration is one iteration of train-em (E-step and M-step)
// on UD English ≤10 (5,387 sentences) and ≤15 (7,647), from the km model.
func BenchmarkEMIteration(b *testing.B) {
	for _, maxLen := range []int{10, 15} {
		c := udEnglish(b, maxLen)
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
	c := udEnglish(b, 10)
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
