// Package score measures predicted dependency trees against gold ones:
// directed and undirected attachment accuracy under both conventions of the
// literature, root counted (Klein, Spitkovsky) and root excluded (Smith),
// micro-averaged over the corpus, with a breakdown by sentence length. It
// reads sentences carrying both "heads" and "pred"; it does not parse.
package score

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// Convention says whether the root attachment is scored.
type Convention string

const (
	// RootCounted scores n attachments per sentence, the root's included.
	RootCounted Convention = "count"
	// RootExcluded scores only the arcs between words (Smith 2006), as
	// precision, recall and F1 since gold may have several roots.
	RootExcluded Convention = "exclude"
)

// ParseConvention reads the value of --root.
func ParseConvention(s string) (Convention, error) {
	switch c := Convention(s); c {
	case RootCounted, RootExcluded:
		return c, nil
	}
	return "", fmt.Errorf("--root must be %q or %q, not %q", RootCounted, RootExcluded, s)
}

func (c Convention) describe() string {
	if c == RootExcluded {
		return "root excluded"
	}
	return "root counted"
}

// Tally holds the raw counts of one set of sentences; every figure of a
// report is computed from tallies, so they can be added up by length.
type Tally struct {
	Sentences, Tokens int
	// Root counted: correct attachments among Tokens.
	Directed, Undirected int
	// Root excluded: correct non-root predicted arcs, and how many non-root
	// arcs the prediction and gold have.
	DirectedArcs, UndirectedArcs int
	PredictedArcs, GoldArcs      int
}

// Add scores one sentence. gold and pred are head arrays of the same length
// (1-based, 0 = root), already validated as trees.
func (t *Tally) Add(gold, pred []int) {
	t.Sentences++
	for i := range pred {
		t.AddToken(gold, pred, i)
	}
}

// AddToken scores the attachment of token i (0-based) of a sentence alone,
// without counting a sentence: breakdowns by tag or arc length group tokens
// rather than sentences.
func (t *Tally) AddToken(gold, pred []int, i int) {
	t.Tokens++
	p, g := pred[i], gold[i]
	if g != 0 {
		t.GoldArcs++
	}
	directed := p == g
	// The reversed arc: gold makes this token the head of p. A predicted
	// root attachment has no reverse, so it counts only when directed.
	reversed := p != 0 && gold[p-1] == i+1
	if directed {
		t.Directed++
	}
	if directed || reversed {
		t.Undirected++
	}
	if p == 0 {
		return
	}
	t.PredictedArcs++
	if directed {
		t.DirectedArcs++
	}
	if directed || reversed {
		t.UndirectedArcs++
	}
}

// Merge adds the counts of u to t.
func (t *Tally) Merge(u Tally) {
	t.Sentences += u.Sentences
	t.Tokens += u.Tokens
	t.Directed += u.Directed
	t.Undirected += u.Undirected
	t.DirectedArcs += u.DirectedArcs
	t.UndirectedArcs += u.UndirectedArcs
	t.PredictedArcs += u.PredictedArcs
	t.GoldArcs += u.GoldArcs
}

// Accuracy is the root-counted score.
type Accuracy struct {
	Correct  int     `json:"correct"`
	Total    int     `json:"total"`
	Accuracy float64 `json:"accuracy"`
}

// PRF is the root-excluded score.
type PRF struct {
	Correct   int     `json:"correct"`
	Predicted int     `json:"predicted"`
	Gold      int     `json:"gold"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// Counted is the root-counted pair of scores.
type Counted struct {
	Directed   Accuracy `json:"directed"`
	Undirected Accuracy `json:"undirected"`
}

// Excluded is the root-excluded pair of scores.
type Excluded struct {
	Directed   PRF `json:"directed"`
	Undirected PRF `json:"undirected"`
}

// LengthRow is the score of the sentences of one length, under the
// report's convention.
type LengthRow struct {
	Length     int     `json:"length"`
	Sentences  int     `json:"sentences"`
	Tokens     int     `json:"tokens"`
	Directed   float64 `json:"directed"`
	Undirected float64 `json:"undirected"`
}

// Heads is the part of a scores record for predicted heads against gold
// ones: the headline fractions under Root (accuracy when counted, F1 when
// excluded) and both conventions. score, select-model and report write it
// alike (README, Conventions: one record of scores).
type Heads struct {
	Root       Convention `json:"root"`
	Directed   float64    `json:"directed"`
	Undirected float64    `json:"undirected"`
	Counted    Counted    `json:"counted"`
	Excluded   Excluded   `json:"excluded"`
}

// HeadsOf is t's scores with root as the headline convention.
func HeadsOf(t Tally, root Convention) *Heads {
	h := &Heads{Root: root, Counted: t.Counted(), Excluded: t.Excluded()}
	h.Directed, h.Undirected = t.headline(root)
	return h
}

// Report is score's output, one JSON line: the sentences and tokens
// scored, their scores on heads (absent when no sentence had gold heads
// and a prediction) by sentence length too, and on brackets.
type Report struct {
	Sentences int `json:"sentences"`
	Tokens    int `json:"tokens"`
	*Heads
	ByLength []LengthRow `json:"by_length,omitempty"`
	// Brackets is present when sentences carried "tree" and a prediction
	// (brackets.go).
	Brackets *BracketReport `json:"brackets,omitempty"`
	// The error analyses of --analysis.
	ErrorAnalyses
	// SignTest is the comparison with --against (signtest.go).
	SignTest *SignTest `json:"sign_test,omitempty"`
}

// ErrorAnalyses are the fields of the error analyses of --analysis
// (analysis.go, constituents.go), each absent unless asked for; report
// --json writes them too.
type ErrorAnalyses struct {
	Links      *Links         `json:"links,omitempty"`
	ByDistance *[]DistanceRow `json:"by_distance,omitempty"`
	Paths      *Paths         `json:"paths,omitempty"`
	ByLabel    *[]LabelRow    `json:"by_label,omitempty"`
	Sequences  *[]SequenceRow `json:"sequences,omitempty"`
}

// ratio is a/b, or 0 when there is nothing to score (no NaN in reports).
func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func accuracy(correct, total int) Accuracy {
	return Accuracy{Correct: correct, Total: total, Accuracy: ratio(correct, total)}
}

// NewPRF is the precision, recall and F1 of correct items among
// predicted ones and gold ones (0 where there is nothing to divide).
func NewPRF(correct, predicted, gold int) PRF {
	return PRF{Correct: correct, Predicted: predicted, Gold: gold,
		Precision: ratio(correct, predicted), Recall: ratio(correct, gold),
		F1: ratio(2*correct, predicted+gold)}
}

// Counted is t's root-counted score.
func (t Tally) Counted() Counted {
	return Counted{accuracy(t.Directed, t.Tokens), accuracy(t.Undirected, t.Tokens)}
}

// Excluded is t's root-excluded score.
func (t Tally) Excluded() Excluded {
	return Excluded{NewPRF(t.DirectedArcs, t.PredictedArcs, t.GoldArcs), NewPRF(t.UndirectedArcs, t.PredictedArcs, t.GoldArcs)}
}

// headline is t's directed and undirected score under root.
func (t Tally) headline(root Convention) (directed, undirected float64) {
	if root == RootExcluded {
		e := t.Excluded()
		return e.Directed.F1, e.Undirected.F1
	}
	c := t.Counted()
	return c.Directed.Accuracy, c.Undirected.Accuracy
}

// Scorer accumulates sentences, overall and by length.
type Scorer struct {
	all      Tally
	byLength map[int]*Tally
}

// NewScorer starts an empty score.
func NewScorer() *Scorer { return &Scorer{byLength: map[int]*Tally{}} }

// Add scores one sentence's prediction against its gold heads.
func (s *Scorer) Add(gold, pred []int) {
	s.all.Add(gold, pred)
	t := s.byLength[len(gold)]
	if t == nil {
		t = &Tally{}
		s.byLength[len(gold)] = t
	}
	t.Add(gold, pred)
}

// Total is the tally of every sentence added.
func (s *Scorer) Total() Tally { return s.all }

// Report summarises the sentences added, with root as the headline
// convention and the one of the length table; no Heads when none was.
func (s *Scorer) Report(root Convention) Report {
	r := Report{Sentences: s.all.Sentences, Tokens: s.all.Tokens}
	if s.all.Sentences == 0 {
		return r
	}
	r.Heads = HeadsOf(s.all, root)
	lengths := make([]int, 0, len(s.byLength))
	for n := range s.byLength {
		lengths = append(lengths, n)
	}
	sort.Ints(lengths)
	for _, n := range lengths {
		t := s.byLength[n]
		row := LengthRow{Length: n, Sentences: t.Sentences, Tokens: t.Tokens}
		row.Directed, row.Undirected = t.headline(root)
		r.ByLength = append(r.ByLength, row)
	}
	return r
}

// Options control Score.
type Options struct {
	Root Convention // headline convention; "" means RootCounted
	JSON bool       // one JSON line instead of the table for people
	// Gold, when set, is a file of sentences whose heads are the gold
	// trees of the input's predictions, matched by order.
	Gold string
	// Against, when set, is a file of another parser's predictions of the
	// same sentences in the same order: the report adds the sign test of
	// the input's against them (signtest.go).
	Against string
	// UndirectedSign makes that test count undirected attachments (a gold
	// attachment found in either direction), for parsers of undirected
	// trees such as Model U.
	UndirectedSign bool
	// Analyses are the error analyses to add (--analysis); MinCount leaves
	// out their rows of fewer items (arcs, nodes, brackets), and Top is how
	// many rows each table for people shows (0: all; JSON has every row).
	Analyses []Analysis
	// AllAnalyses (--analysis all) leaves out, rather than refuses, the
	// analyses the sentences have nothing for (no gold heads, no trees).
	AllAnalyses bool
	MinCount    int
	Top         int
}

// ErrNoSentences is the error of an input with nothing to score.
var ErrNoSentences = errors.New("no sentences to score")

// Score reads sentences with gold heads and predictions from src and writes
// one report to w.
func Score(src pipeline.Source, w io.Writer, opts Options) error {
	if opts.Root == "" {
		opts.Root = RootCounted
	}
	var gold *goldFile
	if opts.Gold != "" {
		var err error
		if gold, err = readGold(opts.Gold, src.Stdin); err != nil {
			return err
		}
	}
	var against *againstFile
	var signs *signTally
	if opts.Against != "" {
		var err error
		if against, err = readAgainst(opts.Against, src.Stdin); err != nil {
			return err
		}
		signs = &signTally{root: opts.Root, undirected: opts.UndirectedSign}
	}
	sc := NewScorer()
	var brackets bracketScorer
	var deps *depAnalyzer
	var cons *constituentAnalyzer
	for _, a := range opts.Analyses {
		switch a {
		case AnalysisLinks, AnalysisDistance, AnalysisPaths:
			deps = newDepAnalyzer()
		case AnalysisLabels, AnalysisSequences:
			cons = newConstituentAnalyzer()
		}
	}
	seen := 0 // input records read, to match --against by order
	next := 0 // the gold sentence of the next input record

	sentences, tokens := 0, 0 // scored, on heads or on brackets
	err := pipeline.EachRecord(src, func(s *format.Sentence, _ *pipeline.Lines) error {
		heads := s.Heads
		if gold != nil {
			if next >= len(gold.sentences) {
				return pipeline.BadRecord(fmt.Errorf("more sentences than gold file %s has (%d)", gold.name, len(gold.sentences)))
			}
			g := gold.sentences[next]
			next++
			if err := sameTags(g.Tags, s.Tags); err != nil {
				return pipeline.BadRecord(fmt.Errorf("does not match sentence %d of gold file %s (line %d): %w", next, gold.name, g.line, err))
			}
			heads = g.Heads
		}
		if against != nil {
			seen++
			if seen > len(against.tags) {
				return pipeline.BadRecord(fmt.Errorf("more sentences than --against file %s has (%d)", against.name, len(against.tags)))
			}
			if err := sameTags(against.tags[seen-1], s.Tags); err != nil {
				return pipeline.BadRecord(fmt.Errorf("does not match sentence %d of --against file %s: %w", seen, against.name, err))
			}
		}
		// Validated after taking the gold (and --against) sentence, so that
		// a skipped bad record keeps the rest matched.
		if err := s.Validate(); err != nil {
			return pipeline.BadRecord(err)
		}
		bracketed, goldSpans, predSpans, err := brackets.add(s)
		if err != nil {
			return pipeline.BadRecord(err)
		}
		if against != nil && goldSpans != nil {
			b := against.spans[seen-1]
			if b == nil {
				return pipeline.BadRecord(fmt.Errorf("sentence %d of --against file %s has no prediction (pred_spans or pred) to compare brackets with", seen, against.name))
			}
			signs.addBrackets(goldSpans, predSpans, b)
		}
		if cons != nil && goldSpans != nil {
			nodes, n, err := GoldConstituents(s.Tree)
			if err != nil {
				return pipeline.BadRecord(fmt.Errorf("tree: %w", err))
			}
			cons.addLabels(nodes, predSpans, n)
			cons.addSequences(s.Tags, goldSpans, predSpans)
		}
		switch {
		case bracketed && (heads == nil || s.Pred == nil):
			sentences, tokens = sentences+1, tokens+s.Len()
			return nil
		case heads == nil && s.Pred == nil:
			return pipeline.BadRecord(errors.New(`sentence has neither gold "heads" nor "pred" to score`))
		case heads == nil:
			return pipeline.BadRecord(errors.New(`sentence has no gold "heads" to score against`))
		case s.Pred == nil:
			return pipeline.BadRecord(errors.New(`sentence has no prediction "pred" to score`))
		}
		switch {
		case against == nil || !against.heads: // a bracketer's file: brackets only
		case against.pred[seen-1] == nil:
			return pipeline.BadRecord(fmt.Errorf(`sentence %d of --against file %s has no prediction "pred" to compare with`, seen, against.name))
		default:
			signs.add(heads, s.Pred, against.pred[seen-1])
			if slices.Contains(opts.Analyses, AnalysisPaths) {
				signs.addPaths(heads, s.Pred, against.pred[seen-1])
			}
		}
		sc.Add(heads, s.Pred)
		if deps != nil {
			deps.add(s.Tags, heads, s.Pred)
		}
		sentences, tokens = sentences+1, tokens+s.Len()
		return nil
	})
	if err != nil {
		return err
	}
	if sc.all.Sentences == 0 && brackets.report() == nil {
		return ErrNoSentences
	}
	if gold != nil && next < len(gold.sentences) {
		return fmt.Errorf("input ended after %d sentences, but gold file %s has %d", next, gold.name, len(gold.sentences))
	}
	if against != nil && seen < len(against.tags) {
		return fmt.Errorf("input ended after %d sentences, but --against file %s has %d", seen, against.name, len(against.tags))
	}
	r := sc.Report(opts.Root)
	r.Sentences, r.Tokens = sentences, tokens
	r.Brackets = brackets.report()
	if signs != nil {
		r.SignTest = signs.report(opts.Against)
	}
	if err := addAnalyses(&r, opts, deps, cons); err != nil {
		return err
	}
	if opts.JSON {
		return pipeline.WriteRecord(w, r)
	}
	if err := WriteTable(w, r); err != nil {
		return err
	}
	_, err = w.Write(AppendAnalyses(nil, r, opts.Top))
	return err
}

// addAnalyses puts the analyses asked for in r, or says which has no
// sentence to analyse.
func addAnalyses(r *Report, opts Options, deps *depAnalyzer, cons *constituentAnalyzer) error {
	for _, a := range opts.Analyses {
		switch a {
		case AnalysisLinks, AnalysisDistance, AnalysisPaths:
			if deps.pathSentences == 0 && opts.AllAnalyses {
				continue
			}
			if deps.pathSentences == 0 {
				return fmt.Errorf("--analysis %s: no sentence has gold \"heads\" and \"pred\" to analyse", a)
			}
		case AnalysisLabels, AnalysisSequences:
			if cons.sentences == 0 && opts.AllAnalyses {
				continue
			}
			if cons.sentences == 0 {
				return fmt.Errorf("--analysis %s: no sentence of two or more tokens has a gold \"tree\" and a prediction (\"pred_spans\" or \"pred\") to analyse", a)
			}
		}
		switch a {
		case AnalysisLinks:
			r.Links = deps.links(opts.MinCount)
		case AnalysisDistance:
			rows := deps.byDistance()
			r.ByDistance = &rows
		case AnalysisPaths:
			r.Paths = deps.paths()
		case AnalysisLabels:
			rows := cons.byLabel(opts.MinCount)
			r.ByLabel = &rows
		case AnalysisSequences:
			rows := cons.sequenceRows(opts.MinCount)
			r.Sequences = &rows
		}
	}
	return nil
}

// goldSentence is what --gold keeps of a gold record.
type goldSentence struct {
	Tags  []string
	Heads []int
	line  int
}

type goldFile struct {
	name      string
	sentences []goldSentence
}

// readGold loads the gold file whole: predictions are matched to it by
// order, and treebanks are small next to memory.
func readGold(name string, stdin io.Reader) (*goldFile, error) {
	g := &goldFile{name: name}
	src := pipeline.Source{Names: []string{name}, Stdin: stdin}
	err := pipeline.EachRecord(src, func(s *format.Sentence, at *pipeline.Lines) error {
		if err := s.Validate(); err != nil {
			return pipeline.BadRecord(err)
		}
		if s.Heads == nil {
			return pipeline.BadRecord(errors.New(`gold sentence has no "heads"`))
		}
		g.sentences = append(g.sentences, goldSentence{Tags: s.Tags, Heads: s.Heads, line: at.Line()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gold: %w", err)
	}
	if len(g.sentences) == 0 {
		return nil, fmt.Errorf("gold file %s has no sentences", name)
	}
	return g, nil
}

func sameTags(gold, pred []string) error {
	if len(gold) != len(pred) {
		return fmt.Errorf("%d tags, gold has %d", len(pred), len(gold))
	}
	for i := range gold {
		if gold[i] != pred[i] {
			return fmt.Errorf("tag %d is %q, gold has %q", i+1, pred[i], gold[i])
		}
	}
	return nil
}

// WriteTable writes r for people: the headline, the other convention, the
// sizes and the per-length table, percentages to one decimal.
func WriteTable(w io.Writer, r Report) error {
	var b []byte
	if r.Brackets != nil {
		b = writeBracketTable(b, r.Brackets)
		if r.Heads == nil {
			_, err := w.Write(b)
			return err
		}
		b = append(b, '\n')
	}
	add := func(format string, args ...any) { b = fmt.Appendf(b, format, args...) }
	pct := func(f float64) float64 { return 100 * f }
	c, e := r.Counted, r.Excluded
	counted := func() {
		add("root counted (Klein, Spitkovsky)  accuracy  correct    total\n")
		for _, row := range []struct {
			name string
			a    Accuracy
		}{{"directed", c.Directed}, {"undirected", c.Undirected}} {
			add("  %-10s                       %6.1f  %7d  %7d\n", row.name, pct(row.a.Accuracy), row.a.Correct, row.a.Total)
		}
	}
	excluded := func() {
		add("root excluded (Smith)  precision  recall     F1  correct  predicted     gold\n")
		for _, row := range []struct {
			name string
			s    PRF
		}{{"directed", e.Directed}, {"undirected", e.Undirected}} {
			add("  %-10s              %6.1f  %6.1f %6.1f  %7d    %7d  %7d\n", row.name,
				pct(row.s.Precision), pct(row.s.Recall), pct(row.s.F1), row.s.Correct, row.s.Predicted, row.s.Gold)
		}
	}
	measure := "accuracy"
	if r.Root == RootExcluded {
		measure = "F1"
	}
	sentences := 0 // scored on heads
	for _, row := range r.ByLength {
		sentences += row.Sentences
	}
	add("directed %.1f, undirected %.1f (%% %s, %s); %d sentences, %d tokens\n\n",
		pct(r.Directed), pct(r.Undirected), measure, r.Root.describe(), sentences, c.Directed.Total)
	if r.Root == RootExcluded {
		excluded()
		add("\n")
		counted()
	} else {
		counted()
		add("\n")
		excluded()
	}
	add("\nby length (%% %s, %s)\n", measure, r.Root.describe())
	add("  length  sentences   tokens  directed  undirected\n")
	for _, row := range r.ByLength {
		if r.Root == RootExcluded && row.Length == 1 {
			// One word has no arc between words to score.
			add("  %6d  %9d  %7d         -           -\n", row.Length, row.Sentences, row.Tokens)
			continue
		}
		add("  %6d  %9d  %7d    %6.1f      %6.1f\n", row.Length, row.Sentences, row.Tokens, pct(row.Directed), pct(row.Undirected))
	}
	if r.SignTest != nil {
		writeSignTest(add, r.SignTest)
	}
	_, err := w.Write(b)
	return err
}
