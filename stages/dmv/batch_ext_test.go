package dmv_test

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/headrules"
)

// kernels are the E-step kernels to compare: the scalar chart and this
// build's lane kernel, when the machine has one.
func kernels() []string {
	if k := dmv.LaneKernel(); k != "" {
		return []string{"", k}
	}
	return []string{""}
}

func kernelName(k string) string {
	if k == "" {
		return "scalar"
	}
	return k
}

// sameEStep fails unless the lane kernel's E-step of c under the K&M
// model (then after 3 EM iterations) equals the scalar chart's within
// 1e-12 relative, with 1 and 2 workers.
func sameEStep(t *testing.T, c *dmv.Corpus) {
	lane := dmv.LaneKernel()
	if lane == "" {
		t.Skip("no lane kernel on this machine")
	}
	w, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for iter := range 4 {
		var res [2]dmv.EStepResult
		for j, k := range []string{"", lane} {
			restore := dmv.SetKernel(k)
			res[j] = dmv.NewEStepper(c).Run(w, dmv.EStepOptions{Workers: 1 + j})
			restore()
		}
		worst := math.Abs(res[0].LogLik-res[1].LogLik) / math.Abs(res[0].LogLik)
		a, b := res[0].Counts.Tables(), res[1].Counts.Tables()
		for k := range a {
			for i := range a[k] {
				if d := math.Abs(a[k][i] - b[k][i]); d > 0 {
					worst = max(worst, d/math.Max(math.Abs(a[k][i]), math.Abs(b[k][i])))
				}
			}
		}
		if worst > 1e-12 {
			t.Fatalf("iteration %d: the %s kernel's E-step differs from the scalar chart's by %g", iter, lane, worst)
		}
		t.Logf("iteration %d: log-likelihood %.6f, largest relative difference %g", iter, res[1].LogLik, worst)
		w = dmv.MStep(res[1].Counts, 0)
	}
}

// On the sentences of examples/treebank (what the demo and the shell
// loops train on) the lane kernel's E-steps are the scalar chart's.
func TestLanesOnExamples(t *testing.T) {
	names, _ := filepath.Glob("../../examples/treebank/*.mrg")
	if len(names) == 0 {
		t.Fatal("no examples/treebank")
	}
	sents := corpora.Converted(t, 1000, func(w io.Writer) error {
		_, err := headrules.Convert(pipeline.Source{Names: names}, w, headrules.Options{Rules: headrules.Collins})
		return err
	})
	c, err := dmv.NewCorpus(sents, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameEStep(t, c)
}

// On UD English ≤ 15 (../shared/data) too.
func TestLanesOnUDEnglish(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	sameEStep(t, corpora.UDEnglish(t, 15))
}

// BenchmarkOneShotEStep is the E-step as estep runs it, once per
// process: a new EStepper each time, so its charts, lane charts and
// count tables are made (and their pages first touched) in the run. UD
// English ≤ 10, XPOS, from the K&M model; with 1 worker the bytes
// allocated are the same every run (with 2, a worker that falls behind
// makes the other take more count tables).
func BenchmarkOneShotEStep(b *testing.B) {
	c := corpora.UDEnglish(b, 10)
	start, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range kernels() {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers%d", kernelName(k), workers), func(b *testing.B) {
				defer dmv.SetKernel(k)()
				b.ReportAllocs()
				for b.Loop() {
					dmv.NewEStepper(c).Run(start, dmv.EStepOptions{Workers: workers})
				}
			})
		}
	}
}

// BenchmarkEMIterationKernels is BenchmarkEMIteration (stages/train: one
// E-step and M-step on UD English ≤ 10 and ≤ 15, XPOS, from the K&M
// model) on the scalar chart and on this build's lane kernel, 1 and 2
// workers. Besides the mean wall time it reports the median iteration's
// (median-ms) and the process's CPU time an iteration (cpu-ms, both
// workers' together), which a machine busy with other jobs inflates
// less.
func BenchmarkEMIterationKernels(b *testing.B) {
	for _, maxLen := range []int{10, 15} {
		c := corpora.UDEnglish(b, maxLen)
		start, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, k := range kernels() {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("len%d/%s/workers%d", maxLen, kernelName(k), workers), func(b *testing.B) {
					defer dmv.SetKernel(k)()
					e := dmv.NewEStepper(c)
					var took []time.Duration
					cpu := testenv.CPUSeconds()
					for b.Loop() {
						t0 := time.Now()
						res := e.Run(start, dmv.EStepOptions{Workers: workers})
						dmv.MStep(res.Counts, 0)
						took = append(took, time.Since(t0))
					}
					cpu = testenv.CPUSeconds() - cpu
					slices.Sort(took)
					b.ReportMetric(float64(took[len(took)/2])/1e6, "median-ms")
					b.ReportMetric(cpu*1e3/float64(len(took)), "cpu-ms")
				})
			}
		}
	}
}
