package score

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// The paired sign test Smith (2006) marks his tables with: the input's
// parses (A) against another parser's parses of the same sentences (B,
// score --against), counting where A is right and B wrong (a win), the
// reverse (a loss), and the rest (ties); under the null hypothesis that
// neither is better, wins among wins + losses are Binomial(n, 1/2).

// Signs are the wins, losses and ties of A against B at one level, and
// the exact two-sided binomial p-value of wins among wins + losses.
type Signs struct {
	Wins   int     `json:"wins"`
	Losses int     `json:"losses"`
	Ties   int     `json:"ties"`
	P      float64 `json:"p"`
}

// SignTest is score's comparison with --against: directed attachments
// under the report's root convention (a root-excluded token is right when
// its predicted head is a word and the gold one), or with Undirected each
// token's gold attachment found in either direction. Sentence level
// compares the numbers of right attachments per sentence; token level
// each token.
type SignTest struct {
	Against string     `json:"against"`
	Root    Convention `json:"root"`
	// Undirected says the test counts undirected attachments (score
	// --against --undirected: for parsers of undirected trees, Model U).
	Undirected bool `json:"undirected,omitempty"`
	// AgainstDirected is B's directed score under Root, for reference;
	// AgainstUndirected its undirected score, given with Undirected.
	AgainstDirected   float64 `json:"against_directed"`
	AgainstUndirected float64 `json:"against_undirected,omitempty"`
	Sentences         Signs   `json:"sentences"`
	Tokens            Signs   `json:"tokens"`
	// Brackets is the same test on brackets, when the sentences have a
	// gold tree (bracket scoring): sentence level compares the numbers of
	// right brackets (standard: the whole sentence's counted), bracket
	// level each gold bracket found by one and not the other.
	Brackets *BracketSigns `json:"brackets,omitempty"`
	// Paths, with --analysis paths, compares the undirected path lengths
	// from each token to its gold parent (Smith 2006, Tables 4.5, 6.6: a
	// win is a shorter path): per sentence their mean, per token its own.
	Paths *PathSigns `json:"paths,omitempty"`
}

// PathSigns is the sign test on path lengths.
type PathSigns struct {
	Sentences Signs `json:"sentences"`
	Tokens    Signs `json:"tokens"`
}

// BracketSigns is the sign test on brackets.
type BracketSigns struct {
	Sentences Signs `json:"sentences"`
	Brackets  Signs `json:"brackets"`
}

// signTally accumulates a sign test.
type signTally struct {
	root              Convention
	undirected        bool
	sentences, tokens Signs
	b                 Tally
	brackets          *BracketSigns
	paths             *PathSigns
}

// right says whether the prediction pred finds token i's gold attachment
// (head gold[i]). Directed, pred[i] must be that head; undirected, the arc
// may also be reversed (pred makes the gold head a dependent of i), so that
// summed over tokens the right ones are the Tally's undirected count.
func (t *signTally) right(gold, pred []int, i int) bool {
	g := gold[i]
	if t.root == RootExcluded && g == 0 {
		return false
	}
	return pred[i] == g || t.undirected && g != 0 && pred[g-1] == i+1
}

func (t *signTally) add(gold, a, b []int) {
	t.b.Add(gold, b)
	ra, rb := 0, 0
	for i := range gold {
		ya, yb := t.right(gold, a, i), t.right(gold, b, i)
		if ya {
			ra++
		}
		if yb {
			rb++
		}
		t.tokens.tally(ya && !yb, yb && !ya)
	}
	t.sentences.tally(ra > rb, rb > ra)
}

// addPaths compares A's and B's undirected paths from each token to its
// gold parent: shorter wins.
func (t *signTally) addPaths(gold, a, b []int) {
	if t.paths == nil {
		t.paths = &PathSigns{}
	}
	pa, _ := TokenPaths(gold, a)
	pb, _ := TokenPaths(gold, b)
	sa, sb := 0, 0
	for i := range gold {
		sa, sb = sa+pa[i], sb+pb[i]
		t.paths.Tokens.tally(pa[i] < pb[i], pb[i] < pa[i])
	}
	t.paths.Sentences.tally(sa < sb, sb < sa)
}

// addBrackets compares A's and B's brackets of one sentence with gold.
func (t *signTally) addBrackets(gold, a, b [][2]int) {
	if t.brackets == nil {
		t.brackets = &BracketSigns{}
	}
	inA, inB := spanSet(a), spanSet(b)
	ra, rb := 0, 0
	for _, g := range gold {
		ya, yb := inA[g], inB[g]
		if ya {
			ra++
		}
		if yb {
			rb++
		}
		t.brackets.Brackets.tally(ya && !yb, yb && !ya)
	}
	t.brackets.Sentences.tally(ra > rb, rb > ra)
}

func spanSet(spans [][2]int) map[[2]int]bool {
	set := make(map[[2]int]bool, len(spans))
	for _, sp := range spans {
		set[sp] = true
	}
	return set
}

func (s *Signs) tally(win, loss bool) {
	switch {
	case win:
		s.Wins++
	case loss:
		s.Losses++
	default:
		s.Ties++
	}
}

func (t *signTally) report(against string) *SignTest {
	st := &SignTest{Against: against, Root: t.root, Undirected: t.undirected, Sentences: t.sentences, Tokens: t.tokens}
	var undirected float64
	st.AgainstDirected, undirected = t.b.headline(t.root)
	if t.undirected {
		st.AgainstUndirected = undirected
	}
	st.Sentences.P = SignTestP(st.Sentences.Wins, st.Sentences.Losses)
	st.Tokens.P = SignTestP(st.Tokens.Wins, st.Tokens.Losses)
	if t.brackets != nil {
		b := *t.brackets
		b.Sentences.P = SignTestP(b.Sentences.Wins, b.Sentences.Losses)
		b.Brackets.P = SignTestP(b.Brackets.Wins, b.Brackets.Losses)
		st.Brackets = &b
	}
	if t.paths != nil {
		p := *t.paths
		p.Sentences.P = SignTestP(p.Sentences.Wins, p.Sentences.Losses)
		p.Tokens.P = SignTestP(p.Tokens.Wins, p.Tokens.Losses)
		st.Paths = &p
	}
	return st
}

// CompareHeads is the sign test of predictions a against predictions b
// of the same sentences (gold heads gold), as score --against runs it
// under root; against names b. report --json compares runs with it.
func CompareHeads(against string, root Convention, gold, a, b [][]int) *SignTest {
	t := &signTally{root: root}
	for k := range gold {
		t.add(gold[k], a[k], b[k])
	}
	return t.report(against)
}

// SignTestP is the exact two-sided p-value of the sign test: the
// probability under Binomial(n, 1/2), n = wins + losses, of a split at
// least as uneven as the one seen, 2·Σ_{i ≤ min} C(n, i)/2ⁿ capped at 1.
// Computed in log space (log C(n, i) by Lgamma, summed with the largest
// term factored out), so that n in the hundreds of thousands neither
// overflows nor underflows to 0 before the end.
func SignTestP(wins, losses int) float64 {
	n, k := wins+losses, min(wins, losses)
	if n == 0 {
		return 1
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	logTerm := func(i int) float64 { return lg(n) - lg(i) - lg(n-i) - float64(n)*math.Ln2 }
	// The terms grow with i up to n/2, so the last (i = k) is the largest.
	top := logTerm(k)
	sum := 0.0
	for i := k; i >= 0; i-- {
		d := logTerm(i) - top
		if d < -745 { // e^d underflows: the rest adds nothing
			break
		}
		sum += math.Exp(d)
	}
	return math.Min(1, math.Exp(math.Ln2+top+math.Log(sum)))
}

// againstFile is what --against keeps of B's sentences.
type againstFile struct {
	name  string
	tags  [][]string
	pred  [][]int    // nil for a sentence with pred_spans only
	spans [][][2]int // B's brackets: pred_spans, else those of pred
	// heads says whether B has "pred" at all: a bracketer's file
	// (pred_spans only) is compared on brackets alone.
	heads bool
}

// readAgainst loads B's parses whole, to be matched by order.
func readAgainst(name string, stdin io.Reader) (*againstFile, error) {
	f := &againstFile{name: name}
	src := pipeline.Source{Names: []string{name}, Stdin: stdin}
	err := pipeline.EachRecord(src, func(s *format.Sentence, at *pipeline.Lines) error {
		if err := s.Validate(); err != nil {
			return pipeline.BadRecord(err)
		}
		spans, _ := PredictedBrackets(s)
		if spans == nil && s.Pred == nil && s.Len() > 1 { // one word has no bracket to predict
			return pipeline.BadRecord(errors.New(`sentence has no prediction ("pred" or "pred_spans") to compare with`))
		}
		f.tags = append(f.tags, s.Tags)
		f.pred = append(f.pred, s.Pred)
		f.spans = append(f.spans, spans)
		f.heads = f.heads || s.Pred != nil
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("against: %w", err)
	}
	if len(f.tags) == 0 {
		return nil, fmt.Errorf("file %s (--against) has no sentences", name)
	}
	return f, nil
}

// writeSignTest adds the sign test to the table for people.
func writeSignTest(add func(string, ...any), st *SignTest) {
	type row struct {
		name string
		s    Signs
	}
	table := func(rows ...row) {
		add("  level        wins   losses     ties  p (two-sided)\n")
		for _, r := range rows {
			add("  %-9s %7d  %7d  %7d  %.3g\n", r.name, r.s.Wins, r.s.Losses, r.s.Ties, r.s.P)
		}
	}
	if n := st.Sentences; n.Wins+n.Losses+n.Ties > 0 {
		kind, against := "directed", st.AgainstDirected
		if st.Undirected {
			kind, against = "undirected", st.AgainstUndirected
		}
		add("\nsign test against %s (%s, %s; it scores %.1f)\n", st.Against, kind, st.Root.describe(), 100*against)
		table(row{"sentences", st.Sentences}, row{"tokens", st.Tokens})
	}
	if b := st.Brackets; b != nil {
		add("\nsign test against %s on brackets (standard: the whole sentence counted)\n", st.Against)
		table(row{"sentences", b.Sentences}, row{"brackets", b.Brackets})
	}
	if p := st.Paths; p != nil {
		add("\nsign test against %s on undirected path lengths to the gold parent (Smith 2006 Table 4.5; a win is shorter: per sentence the mean)\n", st.Against)
		table(row{"sentences", p.Sentences}, row{"tokens", p.Tokens})
	}
}
