// Package induce is grind's answer to "a grammar for my language, without
// annotation": given unannotated training and dev sentences (gold heads,
// when present, are never read), it trains the estimators the held-out
// tables recommend (docs/results.md, "A new language") and picks one model
// by a criterion that needs no gold trees: the share of universal rules
// in the dev parses (selectmodel's --by rules), then the dev likelihood.
// The recommendation is the tables', not a fixed favourite: when they
// change, the candidates here change with them.
package induce

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/anneal"
	"github.com/grind-nlp/grind/stages/baseline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/memory"
	"github.com/grind-nlp/grind/stages/pr"
	"github.com/grind-nlp/grind/stages/schedule"
	"github.com/grind-nlp/grind/stages/selectmodel"
	"github.com/grind-nlp/grind/stages/train"
)

// Options of a run.
type Options struct {
	Train, Dev pipeline.Source
	// Rules is the rule table (a built-in name or a file); "" detects it
	// from the corpus's tags (DetectRules).
	Rules string
	// Preset chooses the candidates: "quick", "medium" or "full".
	Preset  string
	Workers int
	// Notes, when not nil, hears progress (a line per trained candidate).
	Notes io.Writer
	// SaveDir, when not "", receives every candidate's model as
	// FileName().jsonl (for select-model, or to look at what lost).
	SaveDir string
	// MaxMemory refuses, before any is trained, candidates whose tables
	// and charts would need more bytes (MemoryBytes; ≤ 0: no limit), and
	// a ranking on the dev sentences that would (select-model's check).
	MaxMemory int64
	// ChainLimit is the share of rules in attach-right's parses of the
	// dev sentences from which Run trains over the words' endings
	// instead (≤ 0: DefaultChainLimit; above 1: never).
	ChainLimit float64
}

// DefaultChainLimit is where the rules stop telling a chain from a
// grammar: attach-right's parses of the UD languages' selection halves
// meet 39–57% of ud1's rules, except Japanese's, 74–77% (bunsetsu words,
// 70% of them NOUN, and NOUN → NOUN a rule), where the share of rules
// picks noun chains below attach-right. Set between them after seeing
// Japanese fail (docs/results.md, "A chain that meets the rules"): one
// language on its side.
const DefaultChainLimit = 0.65

// MinEnding is how often a tag and ending must occur in training to be
// kept as a refined tag (dmv.FrequentEndings).
const MinEnding = 100

// EndingsValence is the family trained over the endings: three stop
// valences (no child yet, one, more) and child distributions that tell
// the first child from the later ones.
var EndingsValence = dmv.Valence{Stop: 3, Child: 2}

// MemoryBytes estimates what Run holds for the candidates of a grid in
// the family v over a corpus of tags tags whose longest sentence has n
// words: the candidates trained at once (one per worker), each with a
// training run's tables, the rules' copy of the weights and their mask,
// and a chart; and every candidate's model, kept for the ranking.
func MemoryBytes(v dmv.Valence, tags, n, workers, candidates int) int64 {
	parallel := min(workers, candidates)
	return dmv.MemoryBytes(v, dmv.DepthBound{}, tags, n, parallel, parallel*(dmv.TrainTables(1)+2)+candidates)
}

// Presets are the names of the candidate grids, smallest first.
func Presets() []string { return []string{"quick", "medium", "full"} }

// DefaultPreset is the grid for tagged text: full, whose pick by the share
// of rules scored above medium's on the selection halves of the UD
// languages, at ≤ 10 and ≤ 15 words (docs/results.md, "induce's
// presets"). DefaultWordPreset is that of --words, whose larger grid was
// not measured.
const (
	DefaultPreset     = "full"
	DefaultWordPreset = "medium"
)

func joinPresets() string { return strings.Join(Presets(), ", ") }

// Candidate is one training run: an initializer, add-λ, universal rules
// at share τ (posterior regularization; τ = 0: none), for structural
// annealing Model L's δ schedule (nil: EM), and the family's valences
// (zero: the DMV's).
type Candidate struct {
	Init    string
	Lambda  float64
	Share   float64
	Deltas  []float64
	Valence dmv.Valence
}

// Name says what the candidate is, as the report lists it.
func (c Candidate) Name() string {
	est := "em"
	if c.Deltas != nil {
		est = fmt.Sprintf("sa(δ %+.1f→%+.1f)", c.Deltas[0], c.Deltas[len(c.Deltas)-1])
	}
	name := fmt.Sprintf("%s init=%s λ=%g", est, c.Init, c.Lambda)
	if c.Share > 0 {
		name += fmt.Sprintf(" rules τ=%g", c.Share)
	}
	if v := c.Valence; !v.OrDMV().IsDMV() {
		name += fmt.Sprintf(" valences %d/%d", v.Stop, v.Child)
	}
	return name
}

// FileName names the candidate's model in a save directory:
// em-km-l1-r0.9, sa-zero-l1-r0.8 (r0: no rules).
func (c Candidate) FileName() string {
	est := "em"
	if c.Deltas != nil {
		est = fmt.Sprintf("sa%+.1f", c.Deltas[0])
	}
	name := fmt.Sprintf("%s-%s-l%g-r%g", est, c.Init, c.Lambda, c.Share)
	if v := c.Valence; !v.OrDMV().IsDMV() {
		name += fmt.Sprintf("-v%d%d", v.Stop, v.Child)
	}
	return name
}

// Grid is the preset's candidates. Plain EM and SA (τ = 0) are in every
// grid: the estimators the rules improve on, so the report shows what the
// rules bring.
func Grid(preset string) ([]Candidate, error) {
	var out []Candidate
	add := func(inits []string, lambdas, shares []float64, deltas []float64) {
		for _, init := range inits {
			for _, l := range lambdas {
				for _, s := range shares {
					out = append(out, Candidate{Init: init, Lambda: l, Share: s, Deltas: deltas})
				}
			}
		}
	}
	sa := func(start float64) []float64 {
		d, _ := schedule.Linear(start, 0.2, 0)
		return d
	}
	both := []string{dmv.InitKM, dmv.InitZero}
	switch preset {
	case "quick":
		add([]string{dmv.InitZero}, []float64{1}, []float64{0, 0.8, 0.9}, nil)
	case "medium":
		add(both, []float64{0, 1}, []float64{0, 0.7, 0.8, 0.9}, nil)
		add(both, []float64{1}, []float64{0.8, 0.9}, sa(-0.6))
	case "full":
		add([]string{dmv.InitKM, dmv.InitZero, dmv.InitUniform}, []float64{0, 0.1, 1, 10}, []float64{0, 0.6, 0.7, 0.8, 0.9, 0.95}, nil)
		add(both, []float64{1}, []float64{0, 0.8, 0.9}, sa(-0.6))
		add(both, []float64{1}, []float64{0, 0.8, 0.9}, sa(-0.4))
	default:
		return nil, fmt.Errorf("no preset %q (want %s)", preset, joinPresets())
	}
	return out, nil
}

// EndingsGrid is the preset's candidates over the words' endings (Run's
// fallback where a chain already meets the rules): EM in EndingsValence
// from the starts and with the λ of the preset's grid, without rules,
// ranked by dev likelihood.
func EndingsGrid(preset string) ([]Candidate, error) {
	var out []Candidate
	add := func(inits []string, lambdas []float64) {
		for _, init := range inits {
			for _, l := range lambdas {
				out = append(out, Candidate{Init: init, Lambda: l, Valence: EndingsValence})
			}
		}
	}
	switch preset {
	case "quick":
		add([]string{dmv.InitZero}, []float64{1})
	case "medium":
		add([]string{dmv.InitKM, dmv.InitZero}, []float64{0, 1})
	case "full":
		add([]string{dmv.InitKM, dmv.InitZero, dmv.InitUniform}, []float64{0, 0.1, 1, 10})
	default:
		return nil, fmt.Errorf("no preset %q (want %s)", preset, joinPresets())
	}
	return out, nil
}

var (
	udV2 = []string{"ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X"}
	udV1 = []string{"ADJ", "ADP", "ADV", "AUX", "CONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X"}
	penn = []string{"CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NN", "NNS", "NNP", "NNPS", "PDT", "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB", "#", "$", ".", ",", ":", "``", "''", "-LRB-", "-RRB-"}
)

// DetectRules names the built-in rule table for the tags of a corpus:
// ud1 when they are UD v1's universal tags (CONJ), ud for UD v2's (or
// either, without a conjunction), ptb when at least 80% of them are Penn
// tags (UD English's XPOS add a few of the Web Treebank's: ADD, GW, NFP,
// AFX, XX); an error when they are none of these.
func DetectRules(tags []string) (string, error) {
	share := func(set []string) float64 {
		in := 0
		for _, t := range tags {
			if slices.Contains(set, t) {
				in++
			}
		}
		return float64(in) / float64(max(len(tags), 1))
	}
	switch {
	case share(udV2) == 1:
		return "ud", nil
	case share(udV1) == 1:
		return "ud1", nil
	case share(penn) >= 0.8:
		return "ptb", nil
	}
	return "", fmt.Errorf("the corpus's tags (%s) are neither UD's universal tags nor the Penn tags: give the universal rules for them with --rules FILE", pr.Abbreviate(tags))
}

// Trained is one candidate's outcome.
type Trained struct {
	Candidate
	Model      *dmv.Params
	Iterations int
	Seconds    float64
}

// Result is what Run chose and from what.
type Result struct {
	Rules   string // the rule table, and how it was chosen
	By      selectmodel.Criterion
	Tags    *dmv.TagSet
	Classes string // with words: the tagger, for the report
	Ranked  []selectmodel.Row
	Trained []Trained // in grid order
	Best    Trained
	// Refine is how the candidates' tags are refined (dmv.RefineEnding
	// where Chain reached ChainLimit; "" otherwise).
	Refine            string
	Chain, ChainLimit float64
	Sentences         int // training sentences
	Tokens            int
	Seconds           float64
}

// Run trains the preset's candidates on the training sentences, ranks
// them on the dev sentences and writes the chosen model to w. Where
// attach-right's parses of the dev sentences already meet ChainLimit of
// the rules, the rules cannot tell a chain from a grammar: Run trains the
// EndingsGrid over the tags refined by the words' endings instead, and
// ranks by dev likelihood.
func Run(w io.Writer, opts Options) (*Result, error) {
	began := time.Now()
	trainSents, err := pipeline.ReadSentences(opts.Train)
	if err != nil {
		return nil, err
	}
	dev, err := pipeline.ReadSentences(opts.Dev) // an empty file is an error there
	if err != nil {
		return nil, err
	}
	for _, s := range trainSents { // never read (nor dev's: choose)
		s.Heads, s.Pred = nil, nil
	}
	corpus, err := dmv.NewCorpus(trainSents, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(opts.Train.Names), err)
	}
	name, how := opts.Rules, ""
	if name == "" {
		if name, err = DetectRules(corpus.Tags.Names()); err != nil {
			return nil, err
		}
		how = " (detected from the tags)"
	}
	rules, err := pr.LoadRules(name)
	if err != nil {
		return nil, err
	}
	if err := rules.CheckCovers(corpus.Tags.Names()); err != nil {
		return nil, err
	}
	limit := opts.ChainLimit
	if limit <= 0 {
		limit = DefaultChainLimit
	}
	chain := selectmodel.RuleShare(dev, rightChains(dev), rules)
	by, refine, grid := selectmodel.Rules, "", []Candidate(nil)
	if chain < limit {
		grid, err = Grid(opts.Preset)
	} else {
		by, refine = selectmodel.Likelihood, dmv.RefineEnding
		if grid, err = EndingsGrid(opts.Preset); err == nil {
			corpus, err = endingsCorpus(trainSents)
		}
	}
	if err != nil {
		return nil, err
	}
	res, err := choose(corpus, dev, pipeline.DescribeInputs(opts.Dev.Names), grid, rules, by, refine, opts)
	if err != nil {
		return nil, err
	}
	res.Rules += how
	res.Chain, res.ChainLimit = chain, limit
	res.Seconds = time.Since(began).Seconds()
	return res, dmv.WriteModel(w, res.table(res.Best))
}

// rightChains is attach-right's parse of each sentence.
func rightChains(sents []*format.Sentence) [][]int {
	heads := make([][]int, len(sents))
	for i, s := range sents {
		heads[i] = baseline.AttachRight(len(s.Tags))
	}
	return heads
}

// endingsCorpus is the training sentences over their tags refined by
// the words' endings, those seen MinEnding times.
func endingsCorpus(sents []*format.Sentence) (*dmv.Corpus, error) {
	kept := map[string]bool{}
	for _, t := range dmv.FrequentEndings(sents, MinEnding) {
		kept[t] = true
	}
	refined := make([]*format.Sentence, len(sents))
	for i, s := range sents {
		refined[i] = &format.Sentence{ID: s.ID, Words: s.Words, Tags: dmv.RefineEndings(s, func(t string) bool { return kept[t] })}
	}
	return dmv.NewCorpus(refined, nil)
}

// table is t's model as its file has it.
func (r *Result) table(t Trained) *dmv.Table {
	return &dmv.Table{Tags: r.Tags, Params: t.Model, Unit: format.Prob, Refine: r.Refine}
}

// choose trains the grid's candidates on corpus and ranks them on dev by
// the criterion (the rules' share, then the likelihood; or the
// likelihood), saving them in opts.SaveDir.
func choose(corpus *dmv.Corpus, dev []*format.Sentence, devName string, grid []Candidate, rules *pr.Rules, by selectmodel.Criterion, refine string, opts Options) (*Result, error) {
	for _, s := range dev { // never read: the choice is made without annotation
		s.Heads, s.Pred = nil, nil
	}
	if err := memory.Check(MemoryBytes(grid[0].Valence.OrDMV(), corpus.Tags.Len(), corpus.MaxLen, pipeline.Workers(opts.Workers), len(grid)), opts.MaxMemory, func() string {
		return fmt.Sprintf("%s: %d candidates (preset %s) of %d tags, the longest sentence %d words,", pipeline.DescribeInputs(opts.Train.Names), len(grid), opts.Preset, corpus.Tags.Len(), corpus.MaxLen)
	}, "leave long sentences out (filterlen), or train fewer candidates at once (--workers)"); err != nil {
		return nil, err
	}
	res := &Result{Rules: rules.Name, By: by, Refine: refine, Tags: corpus.Tags, Sentences: corpus.Len(), Tokens: corpus.Tokens}
	var err error
	res.Trained, err = trainAll(corpus, grid, rules, opts)
	if err != nil {
		return nil, err
	}
	tables := make([]*dmv.Table, len(res.Trained))
	names := make([]string, len(res.Trained))
	for i, t := range res.Trained {
		tables[i] = res.table(t)
		names[i] = t.Name()
	}
	res.Ranked, _, err = selectmodel.Rank(dev, devName, tables,
		selectmodel.Options{Models: names, By: by, Rules: rules, Workers: opts.Workers, MaxMemory: opts.MaxMemory})
	if err != nil {
		return nil, err
	}
	best := slices.Index(names, res.Ranked[0].Model)
	res.Best = res.Trained[best]
	if opts.SaveDir != "" {
		if err := os.MkdirAll(opts.SaveDir, 0o777); err != nil {
			return nil, err
		}
		for _, t := range res.Trained {
			path := filepath.Join(opts.SaveDir, t.FileName()+".jsonl")
			err := pipeline.WriteFile(path, nil, func(o *pipeline.Output) error {
				return dmv.WriteModel(o, res.table(t))
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// trainAll trains the candidates, as many at a time as there are
// workers, each E-step on one: the models do not depend on the workers.
func trainAll(corpus *dmv.Corpus, grid []Candidate, rules *pr.Rules, opts Options) ([]Trained, error) {
	out := make([]Trained, len(grid))
	errs := make([]error, len(grid))
	var mu sync.Mutex
	done := 0
	began := time.Now()
	pipeline.ForEachChunk(len(grid), min(pipeline.Workers(opts.Workers), len(grid)), func(_, k int) {
		start := time.Now()
		out[k], errs[k] = trainOne(corpus, grid[k], rules)
		out[k].Seconds = time.Since(start).Seconds()
		if opts.Notes != nil {
			mu.Lock()
			done++
			left := ""
			if done < len(grid) {
				left = fmt.Sprintf("; about %s left", progress.Duration(progress.Left(time.Since(began), done, len(grid))))
			}
			fmt.Fprintf(opts.Notes, "induce: [%d/%d] %s: %d iterations, %.1f s%s\n", done, len(grid), grid[k].Name(), out[k].Iterations, out[k].Seconds, left)
			mu.Unlock()
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func trainOne(corpus *dmv.Corpus, c Candidate, rules *pr.Rules) (Trained, error) {
	t := Trained{Candidate: c}
	start, err := dmv.Initialize(corpus, c.Init, dmv.InitOptions{Lambda: c.Lambda, Workers: 1, Valence: c.Valence})
	if err != nil {
		return t, err
	}
	em := train.EM{Corpus: corpus, EStep: dmv.EStepOptions{Workers: 1}, Lambda: c.Lambda}
	if c.Share > 0 {
		if em.Projector, err = pr.New(corpus, pr.Options{Rules: rules, RuleShare: c.Share}); err != nil {
			return t, err
		}
	}
	var res *train.Result
	if c.Deltas == nil {
		res, err = em.Run(start.Params)
	} else {
		stages := make([]dmv.Reweighting, len(c.Deltas))
		for k, d := range c.Deltas {
			stages[k] = dmv.Reweighting{Beta: 1, Delta: d}
		}
		a := &anneal.Annealer{EM: em, Stages: stages, Anneals: anneal.Delta}
		res, err = a.Run(start.Params)
	}
	if err != nil {
		return t, fmt.Errorf("%s: %w", c.Name(), err)
	}
	t.Model, t.Iterations = res.Model, res.Iterations
	return t, nil
}

// WriteReport writes what Run tried and chose, for people.
func (r *Result) WriteReport(w io.Writer, preset string) error {
	var b strings.Builder
	if r.Classes != "" {
		fmt.Fprintf(&b, "induce: word classes: %s\n", r.Classes)
	}
	fmt.Fprintf(&b, "induce: %d candidates (preset %s) trained on %d sentences, %d tokens, in %.1f s\n",
		len(r.Trained), preset, r.Sentences, r.Tokens, r.Seconds)
	fmt.Fprintf(&b, "universal rules: %s\n", r.Rules)
	switch {
	case r.Classes != "":
		fmt.Fprintf(&b, "ranked by dev log-likelihood (no gold tags or trees read):\n\n")
	case r.Refine != "":
		fmt.Fprintf(&b, "attach-right's dev parses meet %.1f%% of the rules, %.0f%% or more: the rules cannot tell a chain from a grammar here,\n", 100*r.Chain, 100*r.ChainLimit)
		fmt.Fprintf(&b, "so the candidates are EM with %d stop and %d child valences, without rules, over %d tags: the tags refined by\n", EndingsValence.Stop, EndingsValence.Child, r.Tags.Len())
		fmt.Fprintf(&b, "their words' endings where seen %d times in training (the model's header says so: decode refines them too)\n", MinEnding)
		fmt.Fprintf(&b, "ranked by dev log-likelihood (no gold trees read):\n\n")
	default:
		fmt.Fprintf(&b, "attach-right's dev parses meet %.1f%% of the rules, under %.0f%%\n", 100*r.Chain, 100*r.ChainLimit)
		fmt.Fprintf(&b, "ranked by the share of rules in the dev parses, then dev log-likelihood (no gold trees read):\n\n")
	}
	fmt.Fprintf(&b, "rank  rules   bits/token  iterations  seconds  candidate\n")
	seconds := map[string]Trained{}
	for _, t := range r.Trained {
		seconds[t.Name()] = t
	}
	for _, row := range r.Ranked {
		t := seconds[row.Model]
		bits := fmt.Sprintf("%10s", "-")
		if l := row.DevLikelihood; l != nil && l.CrossEntropy != nil {
			if ce := float64(*l.CrossEntropy); !math.IsInf(ce, 0) && !math.IsNaN(ce) {
				bits = fmt.Sprintf("%10.4f", ce)
			}
		}
		fmt.Fprintf(&b, "%4d  %5.1f  %s  %10d  %7.1f  %s\n", row.Rank, 100**row.RuleShare, bits, t.Iterations, t.Seconds, row.Model)
	}
	if r.By == selectmodel.Likelihood {
		fmt.Fprintf(&b, "\nchosen: %s — the highest dev likelihood", r.Best.Name())
	} else {
		fmt.Fprintf(&b, "\nchosen: %s — the most dev dependencies that universal rules license (%.1f%%)", r.Best.Name(), 100**r.Ranked[0].RuleShare)
		if len(r.Ranked) > 1 && *r.Ranked[1].RuleShare == *r.Ranked[0].RuleShare {
			b.WriteString(", and of those the highest dev likelihood")
		}
		// Measured on the UD languages' selection halves, not the report's.
		b.WriteString("\nparse with decode --mbr: on held-out UD sentences, scored by their gold heads, it parsed induce's choices better than Viterbi (docs/results.md, \"Parsing induce's model\")")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
