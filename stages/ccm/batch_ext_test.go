package ccm_test

import (
	"io"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/ptbstrip"
	"github.com/grind-nlp/grind/stages/treebanks"
)

// sameEStepOnLanes checks, over three EM iterations from Klein's start on
// sents, that the lanes' E-step gives the scalar chart's counts and
// log-likelihood within 1e-12 relative (they are the same to the bit),
// and the same for 1 and 3 workers.
func sameEStepOnLanes(t *testing.T, sents []*format.Sentence) {
	k := ccm.LaneKernel()
	if k == "" {
		t.Skip("no lane kernel on this machine")
	}
	c := corpusOf(t, sents)
	m, _, err := ccm.Train(c, ccm.Options{MaxIter: 0})
	if err != nil {
		t.Fatal(err)
	}
	estep := func(kernel string, workers int) *ccm.Counts {
		defer ccm.SetKernel(kernel)()
		return m.EStep(c, workers)
	}
	for iter := range 3 {
		scalar := estep("", 1)
		for _, workers := range []int{1, 3} {
			lanes := estep(k, workers)
			worst := relDiff(lanes.LogLik, scalar.LogLik)
			for _, p := range [][2][]float64{{lanes.SpanT, scalar.SpanT}, {lanes.ContextT, scalar.ContextT}, {lanes.SpanN, scalar.SpanN}} {
				for i := range p[0] {
					worst = max(worst, relDiff(p[0][i], p[1][i]))
				}
			}
			if worst > 1e-12 {
				t.Fatalf("iteration %d, %d workers: lanes and scalar chart differ by %g", iter, workers, worst)
			}
			if lanes.LogLik != scalar.LogLik || !slices.Equal(lanes.SpanT, scalar.SpanT) || !slices.Equal(lanes.ContextT, scalar.ContextT) {
				t.Logf("iteration %d, %d workers: lanes and scalar chart differ by %g", iter, workers, worst)
			}
		}
		if m, err = ccm.MStep(scalar, c.Sym, ccm.Model1, ccm.KleinSmoothing); err != nil {
			t.Fatal(err)
		}
	}
}

func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / max(math.Abs(a), math.Abs(b))
}

// On the PTB trees grind ships (examples/treebank): 110 sentences of 1 to
// 37 words, most lengths a partial batch.
func TestLanesOnExamples(t *testing.T) {
	names, _ := filepath.Glob("../../examples/treebank/*.mrg")
	if len(names) == 0 {
		t.Fatal("no examples/treebank")
	}
	sents := corpora.Converted(t, 1000, func(w io.Writer) error {
		_, err := ptbstrip.Strip(pipeline.Source{Names: names}, w, ptbstrip.Options{})
		return err
	})
	sameEStepOnLanes(t, sents)
}

// On the Chinese sample ≤ 10 (../shared/data), bench/floor's input.
func TestLanesOnChinese10(t *testing.T) {
	sameEStepOnLanes(t, corpora.TreebankTrees(t, treebanks.Sinica, 10))
}
