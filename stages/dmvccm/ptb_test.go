package dmvccm

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/internal/testenv"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/headrules"
	"github.com/grind-nlp/grind/stages/score"
)

// ptb10 is `ptb2deps --tree wsj/*/*.mrg | filterlen 10`.
func ptb10(t *testing.T) []*format.Sentence {
	dir := testenv.SharedData(t, "ptb-sample", "wsj")
	names, _ := filepath.Glob(filepath.Join(dir, "*", "*.mrg"))
	return corpora.Converted(t, 10, func(w io.Writer) error {
		_, err := headrules.Convert(pipeline.Source{Names: names}, w, headrules.Options{Rules: headrules.Collins, Tree: true})
		return err
	})
}

// TestDMVCCMOnPTB10 trains DMV+CCM on the PTB sample ≤ 10 (Collins heads;
// train = test, as Klein) and logs bracket F1 and directed accuracy (root
// counted). Klein, full WSJ10: F1 77.6, directed 47.5. Run with -v.
func TestDMVCCMOnPTB10(t *testing.T) {
	if testing.Short() {
		t.Skip("EM run")
	}
	sents := ptb10(t)
	m, iters, err := Train(sents, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var tally score.BracketTally
	sc := score.NewScorer()
	for k, s := range sents {
		p := m.Parse(k)
		gold, n, err := score.GoldBrackets(s.Tree)
		if err != nil {
			t.Fatal(err)
		}
		tally.Add(gold, p.Spans, n)
		sc.Add(s.Heads, p.Heads)
	}
	r := tally.Report("pred_spans")
	acc := sc.Total().Counted()
	t.Logf("DMV+CCM, %d iterations: brackets UP/UR/F1 %.1f/%.1f/%.1f; directed %.1f, undirected %.1f (root counted)",
		iters, 100*r.Standard.Precision, 100*r.Standard.Recall, 100*r.Standard.F1,
		100*acc.Directed.Accuracy, 100*acc.Undirected.Accuracy)
	// The CCM alone, from the same start, on the same sentences.
	var alone score.BracketTally
	ccmAlone, _, err := ccm.Train(m.ccmData, ccm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k, s := range sents {
		gold, n, _ := score.GoldBrackets(s.Tree)
		spans, _, _ := ccmAlone.Parse(m.ccmData, k, ccm.Viterbi)
		alone.Add(gold, spans, n)
	}
	ra := alone.Report("pred_spans")
	t.Logf("CCM alone: F1 %.1f", 100*ra.Standard.F1)
	if r.Standard.F1 <= ra.Standard.F1 {
		t.Errorf("DMV+CCM F1 %.3f not above the CCM's %.3f", r.Standard.F1, ra.Standard.F1)
	}
}
