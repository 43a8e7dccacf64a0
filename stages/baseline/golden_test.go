package baseline_test

import (
	"fmt"
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/baseline"
	"github.com/grind-nlp/grind/stages/score"
)

// TestBracketBaselinesPTB10 is the golden acceptance of the bracket scorer
// on the PTB sample ≤ 10 (542 sentences of two or more tokens): LBRANCH
// 29.3, RBRANCH 63.3, expected RANDOM 35.1, UBOUND 88.2 F1 (Klein, full
// WSJ10: 28.7 / 61.7 / 34.7 / 88.1).
func TestBracketBaselinesPTB10(t *testing.T) {
	sents := corpora.PTBTrees(t, 10)
	if len(sents) != 555 {
		t.Fatalf("%d sentences, want 555", len(sents))
	}
	scoreWith := func(predict func(tree string, n int) [][2]int) score.BracketReport {
		var tally score.BracketTally
		for _, s := range sents {
			gold, n, err := score.GoldBrackets(s.Tree)
			if err != nil || n != s.Len() {
				t.Fatalf("%s: %v (%d tokens, tree %d)", s.ID, err, s.Len(), n)
			}
			tally.Add(gold, predict(s.Tree, n), n)
		}
		return tally.Report("pred_spans")
	}
	f1 := func(f float64) string { return fmt.Sprintf("%.1f", 100*f) }
	left := scoreWith(func(_ string, n int) [][2]int { return baseline.LeftSpans(n) })
	right := scoreWith(func(_ string, n int) [][2]int { return baseline.RightSpans(n) })
	ubound := scoreWith(func(tree string, _ int) [][2]int {
		spans, _, err := baseline.UpperBoundSpans(tree)
		if err != nil {
			t.Fatal(err)
		}
		return spans
	})
	if left.Sentences != 542 || left.Skipped != 13 {
		t.Errorf("%d sentences scored, %d skipped; want 542 and 13", left.Sentences, left.Skipped)
	}
	for _, c := range []struct {
		name string
		got  float64
		want string
	}{
		{"LBRANCH", left.Standard.F1, "29.3"},
		{"RBRANCH", right.Standard.F1, "63.3"},
		{"RANDOM expected", left.Random.F1, "35.1"},
		{"UBOUND", ubound.Standard.F1, "88.2"},
		{"UBOUND reported", left.UBound.F1, "88.2"},
	} {
		if f1(c.got) != c.want {
			t.Errorf("%s F1 %s, want %s", c.name, f1(c.got), c.want)
		}
		t.Logf("%-16s F1 %s", c.name, f1(c.got))
	}
	if ubound.Standard.Recall != 1 || ubound.Crossing != 0 {
		t.Errorf("UBOUND recall %v, crossing %v; want 1 and 0", ubound.Standard.Recall, ubound.Crossing)
	}
	// Sampled random trees average near the expectation.
	sampler := baseline.NewTreeSampler(1)
	var sum float64
	const draws = 20
	for range draws {
		sum += scoreWith(func(_ string, n int) [][2]int { return sampler.Spans(n) }).Standard.F1
	}
	if mean := sum / draws; mean < left.Random.F1-0.01 || mean > left.Random.F1+0.01 {
		t.Errorf("sampled RANDOM F1 %.4f, expected %.4f", mean, left.Random.F1)
	}
}

// TestTreeSamplerUniform draws many trees over 5 leaves: each of the 14
// binary trees should come up about equally often.
func TestTreeSamplerUniform(t *testing.T) {
	s := baseline.NewTreeSampler(3)
	counts := map[string]int{}
	const draws = 70000
	for range draws {
		counts[fmt.Sprint(s.Spans(5))]++
	}
	if len(counts) != 14 {
		t.Fatalf("%d distinct trees, want 14", len(counts))
	}
	for tree, c := range counts {
		if c < draws/14*9/10 || c > draws/14*11/10 {
			t.Errorf("tree %s drawn %d times of %d, want about %d", tree, c, draws, draws/14)
		}
	}
}
