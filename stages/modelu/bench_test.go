package modelu

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/conll2deps"
	"github.com/grind-nlp/grind/stages/nbhd"
)

// BenchmarkObjective measures one evaluation of Model U's CE objective
// and gradient (Problem.Objective, one worker) on UD Turkish ≤10, UPOS
// (`conll2deps --tag upos tr-ud-train-nopunct-len15.conllu | filterlen
// 10`, 2,886 sentences: the profile of issue 25's multilingual grid), per
// neighbourhood, with and without spelling features. The weights are
// drawn once, N(0, 0.1²); the neighbourhoods are built before the clock
// starts, as in training. cpu-ms/op is the process's CPU time (user and
// system) per evaluation, steadier than ns/op on a loaded machine; shapes
// counts the neighbourhoods' distinct shapes (of 2,886 lattices), and
// terms/R-item the terms of an R item's sum, against arcs/R-item, the arcs
// the chart looped over before its shapes listed the terms. Built with
// GOEXPERIMENT=simd on a CPU with AVX-512 it measures the lanes
// (lanes.go), else the scalar charts.
func BenchmarkObjective(b *testing.B) {
	sents, tags := turkish(b)
	for _, c := range []struct {
		kind     string
		spelling bool
	}{{nbhd.Del1OrTrans1, false}, {nbhd.Trans2, false}, {nbhd.Del1OrTrans2, true}} {
		m := New(tags, c.spelling)
		p, err := NewProblem(m, sents, c.kind, 1, 0)
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		theta := make([]float64, len(m.Theta))
		for i := range theta {
			theta[i] = 0.1 * r.NormFloat64()
		}
		grad := make([]float64, len(theta))
		name := c.kind
		if c.spelling {
			name += "/spelling"
		}
		// the lattices' shapes: how many, and the terms of an R item's sum
		// against the arcs the chart looped over before it listed them
		seen := map[*shape]bool{}
		var items, terms, arcs int
		for _, in := range p.Nbhds {
			sh := in.Chart.sh
			if !seen[sh] {
				seen[sh] = true
			}
			items += len(sh.rCell)
			terms += len(sh.rTerm) / 2
			arcs += len(sh.rCell) * sh.A
		}
		b.Run(fmt.Sprintf("%s/features%d", name, len(theta)), func(b *testing.B) {
			cpu := testenv.CPUSeconds()
			for b.Loop() {
				p.Objective(theta, 1, 1, grad)
			}
			b.ReportMetric((testenv.CPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(len(seen)), "shapes")
			b.ReportMetric(float64(terms)/float64(items), "terms/R-item")
			b.ReportMetric(float64(arcs)/float64(items), "arcs/R-item")
		})
	}
}

// BenchmarkNewProblem measures Model U's setup (NewProblem, one worker):
// every sentence's chain and neighbourhood built, their shapes worked out
// and their pairs of symbols listed, on UD Turkish ≤10 as
// BenchmarkObjective, for the six neighbourhoods of the multilingual
// recipe, without and with spelling features. A training run pays it
// once before its first evaluation.
func BenchmarkNewProblem(b *testing.B) {
	sents, tags := turkish(b)
	for _, spelling := range []bool{false, true} {
		for _, kind := range []string{nbhd.Del1, nbhd.Trans1, nbhd.Del1OrTrans1, nbhd.Dynasearch, nbhd.Trans2, nbhd.Del1OrTrans2} {
			name := kind
			if spelling {
				name += "/spelling"
			}
			b.Run(name, func(b *testing.B) {
				cpu := testenv.CPUSeconds()
				for b.Loop() {
					if _, err := NewProblem(New(tags, spelling), sents, kind, 1, 0); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((testenv.CPUSeconds()-cpu)*1e3/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// turkish is the benchmarks' corpus, UD Turkish ≤ 10 (UPOS), and its tags.
func turkish(b *testing.B) ([]*format.Sentence, []string) {
	path := testenv.SharedData(b, "ud-nopunct", "tr-ud-train-nopunct-len15.conllu")
	sents := corpora.Converted(b, 10, func(w io.Writer) error {
		_, err := conll2deps.Convert(pipeline.Source{Names: []string{path}}, w, conll2deps.Options{Tag: conll2deps.UPOS})
		return err
	})
	return sents, corpusTags(sents)
}
