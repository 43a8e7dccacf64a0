package ce

import (
	"fmt"
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"

	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// udEnglish10 is the accuracy tables' training set, UD English ≤10.
func udEnglish10(b *testing.B) *dmv.Corpus { return corpora.UDEnglish(b, 10) }

// BenchmarkCE compares one objective-and-gradient evaluation of CE on UD
// English ≤10, per neighbourhood, with one EM iteration (E-step and
// M-step) on the same corpus and workers; the targets are ≤ 8× for
// del1ortrans1 and ≤ 15× for length. Each case reports the memory of
// the largest lattice chart it used (chart-MiB) and of what the charts
// keep with every lattice (shapes-MiB, the corpus's). The weights are the
// log-probabilities of the km model; the lattices are built, and their
// shapes worked out, before the clock starts, as in training.
func BenchmarkCE(b *testing.B) {
	c := udEnglish10(b)
	model, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	if err != nil {
		b.Fatal(err)
	}
	w := LogWeights(model)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("em-iteration/workers%d", workers), func(b *testing.B) {
			e := dmv.NewEStepper(c)
			for b.Loop() {
				res := e.Run(model, dmv.EStepOptions{Workers: workers})
				dmv.MStep(res.Counts, 0)
			}
		})
		for _, kind := range []string{nbhd.Del1OrTrans1, nbhd.Length, nbhd.Trans1, nbhd.Dynasearch} {
			p, err := NewProblem(c, kind, workers)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/workers%d", kind, workers), func(b *testing.B) {
				p.Evaluate(w, Settings{Workers: workers}) // lattice shapes are worked out once
				for b.Loop() {
					p.Evaluate(w, Settings{Workers: workers})
				}
				largest, shapes := 0, 0
				for _, lc := range p.lat {
					largest = max(largest, lc.Bytes())
				}
				for _, l := range append(p.Lattices, p.lengthLattices...) {
					shapes += l.ShapeBytes()
				}
				b.ReportMetric(float64(largest)/(1<<20), "chart-MiB")
				b.ReportMetric(float64(shapes)/(1<<20), "shapes-MiB")
			})
		}
	}
}
