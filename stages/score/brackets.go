package score

import (
	"fmt"
	"slices"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/bintree"
	"github.com/grind-nlp/grind/stages/ptbstrip"
)

// Brackets are unlabelled spans [i, j) of two or more tokens, 0-based and
// half-open, sorted and without repeats: Klein's bracket sets (§2.2), in
// which a unary chain is one bracket.

// GoldBrackets reads a one-line PTB tree (the "tree" field) and returns
// its brackets and its number of tokens. Empty elements (-NONE-) and the
// constituents they leave empty are removed first, as ptbstrip does;
// punctuation is kept, so the tree must have been stripped the way the
// sentence's tokens were.
func GoldBrackets(tree string) (spans [][2]int, n int, err error) {
	t, err := format.ParseTree(tree)
	if err != nil {
		return nil, 0, err
	}
	t = ptbstrip.StripTree(t, true)
	if t == nil {
		return nil, 0, fmt.Errorf("tree has no tokens")
	}
	n = t.EachPhrase(func(ends []int) {
		if i, j := ends[0], ends[len(ends)-1]; j-i >= 2 {
			spans = append(spans, [2]int{i, j})
		}
	})
	return normalize(spans), n, nil
}

// DependencyBrackets are the brackets of a dependency tree (Smith 2006
// §7.3): for every word, the span from its leftmost to its rightmost
// descendant, itself included, when that covers two or more words. heads
// are 1-based with 0 for the root and must form a tree.
func DependencyBrackets(heads []int) [][2]int {
	n := len(heads)
	lo, hi := make([]int, n), make([]int, n)
	for i := range heads {
		lo[i], hi[i] = i, i+1
	}
	// Every word widens the span of each of its ancestors.
	for i := range heads {
		for h := heads[i]; h != 0; h = heads[h-1] {
			lo[h-1] = min(lo[h-1], i)
			hi[h-1] = max(hi[h-1], i+1)
		}
	}
	var spans [][2]int
	for i := range heads {
		if hi[i]-lo[i] >= 2 {
			spans = append(spans, [2]int{lo[i], hi[i]})
		}
	}
	return normalize(spans)
}

// normalize sorts spans and removes repeats.
func normalize(spans [][2]int) [][2]int {
	slices.SortFunc(spans, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return slices.Compact(spans)
}

// crosses says whether a and b overlap without one containing the other.
func crosses(a, b [2]int) bool {
	return a[0] < b[0] && b[0] < a[1] && a[1] < b[1] || b[0] < a[0] && a[0] < b[1] && b[1] < a[1]
}

// BracketTally holds the raw counts of a bracket evaluation.
type BracketTally struct {
	Sentences int // scored sentences (two or more tokens)
	Skipped   int // one-token sentences, not scored (Klein)
	// Standard (Klein): micro-averaged, the whole-sentence bracket counted.
	Correct, Predicted, Gold int
	// Smith & Eisner: neither whole-sentence nor one-word spans count.
	InnerCorrect, InnerPredicted, InnerGold int
	// Sums over sentences of Klein's UP′ and UR′ (top bracket dropped, 0/0
	// = 1), of sentence-level F1 (standard brackets) and of crossing
	// brackets (predicted brackets that cross some gold bracket).
	PrimeP, PrimeR, SentenceF1, Crossing float64
	// Gold-only references: the expected matches of a binary tree drawn
	// uniformly (RANDOM, Klein §2.3.1) and the binary trees' bracket count
	// (n − 1 per sentence, which UBOUND's precision divides by).
	RandomCorrect, BinaryPredicted float64
}

// Add scores one sentence of n tokens: gold and pred are bracket sets.
func (t *BracketTally) Add(gold, pred [][2]int, n int) {
	if n < 2 {
		t.Skipped++
		return
	}
	gold, pred = normalize(slices.Clone(gold)), normalize(slices.Clone(pred))
	t.Sentences++
	whole := [2]int{0, n}
	inGold := make(map[[2]int]bool, len(gold))
	for _, g := range gold {
		inGold[g] = true
	}
	correct, innerCorrect, innerPred, crossing := 0, 0, 0, 0
	for _, p := range pred {
		if inGold[p] {
			correct++
		}
		if p != whole {
			innerPred++
			if inGold[p] {
				innerCorrect++
			}
		}
		for _, g := range gold {
			if crosses(p, g) {
				crossing++
				break
			}
		}
	}
	innerGold := len(gold)
	if inGold[whole] {
		innerGold--
	}
	t.Correct += correct
	t.Predicted += len(pred)
	t.Gold += len(gold)
	t.InnerCorrect += innerCorrect
	t.InnerPredicted += innerPred
	t.InnerGold += innerGold
	t.PrimeP += ratioOr1(innerCorrect, innerPred)
	t.PrimeR += ratioOr1(innerCorrect, innerGold)
	t.SentenceF1 += ratioOr1(2*correct, len(pred)+len(gold))
	t.Crossing += float64(crossing)
	for _, g := range gold {
		t.RandomCorrect += bintree.BracketProb(g[1]-g[0], n)
	}
	t.BinaryPredicted += float64(n - 1)
}

// ratioOr1 is a/b with 0/0 = 1, Klein's convention for UP′ and UR′.
func ratioOr1(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// BracketPRF is one bracket score.
type BracketPRF struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

func bracketPRF(correct, predicted, gold float64) BracketPRF {
	r := BracketPRF{}
	if predicted > 0 {
		r.Precision = correct / predicted
	}
	if gold > 0 {
		r.Recall = correct / gold
	}
	if r.Precision+r.Recall > 0 {
		r.F1 = 2 * r.Precision * r.Recall / (r.Precision + r.Recall)
	}
	return r
}

// BracketReport is the "brackets" object of score's report; fractions are
// 0..1. See README "score" for the definitions.
type BracketReport struct {
	// Source is "pred_spans", or "pred" when brackets came from predicted
	// dependency trees, or "mixed".
	Source    string `json:"source"`
	Sentences int    `json:"sentences"`
	Skipped   int    `json:"skipped_one_word"`
	Correct   int    `json:"correct"`
	Predicted int    `json:"predicted"`
	Gold      int    `json:"gold"`
	// Standard: micro-averaged, whole-sentence bracket counted.
	Standard BracketPRF `json:"standard"`
	// Prime: Klein's UP′/UR′, macro-averaged, top bracket dropped; F1 of
	// the two averages.
	Prime BracketPRF `json:"prime"`
	// SmithEisner: micro-averaged without whole-sentence brackets.
	SmithEisner BracketPRF `json:"smith_eisner"`
	SentenceF1  float64    `json:"sentence_f1"`
	// Crossing is the mean number of crossing brackets per sentence.
	Crossing float64 `json:"crossing"`
	// Random and UBound are references computed from gold alone, in the
	// standard measure: the expected score of a uniformly drawn binary
	// tree, and the best binary tree's (all gold brackets, n − 1 in all).
	Random BracketPRF `json:"random_expected"`
	UBound BracketPRF `json:"ubound"`
}

// Report summarises the tally.
func (t BracketTally) Report(source string) BracketReport {
	s := float64(max(t.Sentences, 1))
	r := BracketReport{Source: source, Sentences: t.Sentences, Skipped: t.Skipped,
		Correct: t.Correct, Predicted: t.Predicted, Gold: t.Gold,
		Standard:    bracketPRF(float64(t.Correct), float64(t.Predicted), float64(t.Gold)),
		SmithEisner: bracketPRF(float64(t.InnerCorrect), float64(t.InnerPredicted), float64(t.InnerGold)),
		SentenceF1:  t.SentenceF1 / s,
		Crossing:    t.Crossing / s,
		Random:      bracketPRF(t.RandomCorrect, t.BinaryPredicted, float64(t.Gold)),
		UBound:      bracketPRF(float64(t.Gold), t.BinaryPredicted, float64(t.Gold)),
	}
	r.Prime = BracketPRF{Precision: t.PrimeP / s, Recall: t.PrimeR / s}
	if p, q := r.Prime.Precision, r.Prime.Recall; p+q > 0 {
		r.Prime.F1 = 2 * p * q / (p + q)
	}
	return r
}

// bracketScorer is the bracket half of a score run.
type bracketScorer struct {
	tally   BracketTally
	sources map[string]bool
}

// add scores s's brackets when it has a gold tree and a prediction
// (pred_spans, else brackets of pred); it reports whether it did, and the
// gold and predicted brackets of a scored sentence of two or more tokens
// (nil for a skipped one). A one-token sentence with a tree is counted as
// skipped: it has no bracket to predict, so its record carries no
// pred_spans.
func (b *bracketScorer) add(s *format.Sentence) (bracketed bool, gold, pred [][2]int, err error) {
	if s.Tree != "" && s.Len() == 1 && s.PredSpans == nil {
		b.tally.Skipped++
		return true, nil, nil, nil
	}
	if s.Tree == "" || s.PredSpans == nil && s.Pred == nil {
		return false, nil, nil, nil
	}
	gold, n, err := GoldBrackets(s.Tree)
	if err != nil {
		return false, nil, nil, fmt.Errorf("tree: %w", err)
	}
	if n != s.Len() {
		return false, nil, nil, fmt.Errorf("tree has %d tokens but the sentence %d", n, s.Len())
	}
	pred, source := PredictedBrackets(s)
	if b.sources == nil {
		b.sources = map[string]bool{}
	}
	b.sources[source] = true
	b.tally.Add(gold, pred, n)
	if n < 2 {
		return true, nil, nil, nil
	}
	return true, gold, pred, nil
}

// PredictedBrackets are a sentence's predicted brackets, and the field
// they come from: pred_spans, else the brackets of pred (nil, "" when it
// has neither).
func PredictedBrackets(s *format.Sentence) ([][2]int, string) {
	switch {
	case s.PredSpans != nil:
		return s.PredSpans, "pred_spans"
	case s.Pred != nil:
		return DependencyBrackets(s.Pred), "pred"
	}
	return nil, ""
}

func (b *bracketScorer) report() *BracketReport {
	if b.tally.Sentences+b.tally.Skipped == 0 {
		return nil
	}
	source := "mixed"
	for s := range b.sources {
		if len(b.sources) == 1 {
			source = s
		}
	}
	r := b.tally.Report(source)
	return &r
}

// writeBracketTable writes r for people.
func writeBracketTable(b []byte, r *BracketReport) []byte {
	add := func(format string, args ...any) { b = fmt.Appendf(b, format, args...) }
	add("brackets from %s: %d sentences scored, %d of one word skipped\n", r.Source, r.Sentences, r.Skipped)
	add("  measure                              UP      UR      F1\n")
	for _, row := range []struct {
		name string
		s    BracketPRF
	}{
		{"standard (micro, whole sentence)", r.Standard},
		{"Klein UP'/UR' (macro, no top)", r.Prime},
		{"Smith & Eisner (micro, no top)", r.SmithEisner},
		{"RANDOM expected (standard)", r.Random},
		{"UBOUND (standard)", r.UBound},
	} {
		add("  %-34s %6.1f  %6.1f  %6.1f\n", row.name, 100*row.s.Precision, 100*row.s.Recall, 100*row.s.F1)
	}
	add("  sentence-level F1 %.1f, crossing brackets per sentence %.2f\n", 100*r.SentenceF1, r.Crossing)
	return b
}
