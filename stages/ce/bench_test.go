package ce

import (
	"fmt"
	"testing"
	"time"

	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// udEnglish10 is the accuracy tables' training set, UD English ≤10.
func udEnglish10(b *testing.B) *dmv.Corpus { return corpora.UDEnglish(b, 10) }

// BenchmarkCE compares one objective-and-gradient evaluation of CE on UD
// English ≤10, per neighbourhood, with one EM iteration (E-step and
// M-step) on the same corpus and workers, the two run by turns so that
// the machine's drift touches both alike: ns/op is the CE evaluation,
// em-ms the EM iteration and x-em their ratio (targets: ≤ 8 for
// del1ortrans1, ≤ 15 for length). Each case reports the memory of the
// largest lattice chart it used (chart-MiB) and of the lattice shapes
// the charts keep (shapes-MiB, the corpus's; an instance of a template
// shares its template's). The weights are the log-probabilities of the
// km model; the lattices are built, and their shapes worked out, before
// the clock starts, as in training.
func BenchmarkCE(b *testing.B) {
	c := udEnglish10(b)
	model, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{})
	if err != nil {
		b.Fatal(err)
	}
	w := LogWeights(model)
	for _, workers := range []int{1, 2} {
		for _, kind := range []string{nbhd.Del1OrTrans1, nbhd.Length, nbhd.Trans1, nbhd.Dynasearch} {
			p, err := NewProblem(c, kind, workers)
			if err != nil {
				b.Fatal(err)
			}
			e := dmv.NewEStepper(c)
			b.Run(fmt.Sprintf("%s/workers%d", kind, workers), func(b *testing.B) {
				p.Evaluate(w, Settings{Workers: workers}) // lattice shapes are worked out once
				var em, ce time.Duration
				for b.Loop() {
					start := time.Now()
					res := e.Run(model, dmv.EStepOptions{Workers: workers})
					dmv.MStep(res.Counts, 0)
					em += time.Since(start)
					start = time.Now()
					p.Evaluate(w, Settings{Workers: workers})
					ce += time.Since(start)
				}
				b.ReportMetric(float64(ce.Nanoseconds())/float64(b.N), "ns/op")
				b.ReportMetric(float64(em.Microseconds())/1e3/float64(b.N), "em-ms")
				b.ReportMetric(float64(ce)/float64(em), "x-em")
				largest, shapes := 0, 0
				for _, lc := range p.lat {
					largest = max(largest, lc.Bytes())
				}
				var shapesSeen []*dmv.Lattice
			lattices:
				for _, l := range append(p.Lattices, p.lengthLattices...) {
					for _, m := range shapesSeen {
						if m.SharesShape(l) {
							continue lattices
						}
					}
					shapesSeen = append(shapesSeen, l)
					shapes += l.ShapeBytes()
				}
				b.ReportMetric(float64(largest)/(1<<20), "chart-MiB")
				b.ReportMetric(float64(shapes)/(1<<20), "shapes-MiB")
			})
		}
	}
}
