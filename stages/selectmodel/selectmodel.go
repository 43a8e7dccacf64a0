// Package selectmodel chooses among trained models with dev data: the
// models an annealing schedule saves after each epoch, or those of a grid
// of runs. Supervised selection ranks them by dev directed attachment
// accuracy (Viterbi parses against the gold heads); unsupervised selection
// by the dev objective, the log-likelihood of the dev sentences under the
// plain DMV, which needs no gold trees. It does not train or parse for
// output; decode does that with the model it picks.
package selectmodel

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/pr"
	"github.com/grind-nlp/grind/stages/score"
	"github.com/grind-nlp/grind/stages/tageval"
)

// Criterion is what models are ranked by.
type Criterion string

const (
	// Accuracy is supervised selection: dev directed accuracy, higher first.
	Accuracy Criterion = "accuracy"
	// Likelihood is unsupervised selection: dev log-likelihood under the
	// plain DMV, higher first.
	Likelihood Criterion = "likelihood"
	// Rules is unsupervised selection by universal rules: the share of
	// the dependencies of the model's dev parses that instantiate a rule
	// (Options.Rules), higher first, then the dev log-likelihood.
	Rules Criterion = "rules"
	// Bound is unsupervised selection of models of variational Bayes: the
	// variational bound each reached on its training corpus (its header's
	// vb_bound), higher first; runs on one corpus, any Dirichlet α.
	Bound Criterion = "bound"
)

// ParseCriterion reads the value of --by.
func ParseCriterion(s string) (Criterion, error) {
	switch c := Criterion(s); c {
	case Accuracy, Likelihood, Contrast, Rules, Bound, Agreement, PRObjective:
		return c, nil
	}
	return "", fmt.Errorf("--by must be %q, %q, %q, %q, %q, %q or %q, not %q", Accuracy, Likelihood, Contrast, Rules, Bound, Agreement, PRObjective, s)
}

// Options of a selection.
type Options struct {
	Dev    pipeline.Source // the dev sentences
	Models []string        // the candidates' files
	By     Criterion
	// Nbhd is the neighbourhood of --by contrast (nbhd.Kinds).
	Nbhd string
	// Rules are the universal rules of --by rules and --by pr
	// (stages/pr); with another criterion, when not nil, the rows still
	// show the share.
	Rules *pr.Rules
	// RuleShare is --by pr's τ (select-model's default:
	// pr.DefaultRuleShare).
	RuleShare float64
	// DevSentences, when > 0, keeps only the first that many dev
	// sentences: selection with a few annotated sentences (Smith §8.6).
	DevSentences int
	// Root is the convention of the accuracy that ranks (and of the
	// table's headline columns).
	Root    score.Convention
	JSON    bool      // one JSON line per model instead of the table
	Best    io.Writer // when not nil, the winning model is written there
	Workers int
	// MaxMemory refuses a model and dev set whose tables and charts would
	// need more bytes (--max-memory; ≤ 0: no limit).
	MaxMemory int64
}

// Row is one model's line of the ranking (JSON with --json): the record
// of scores score and score-tags write (README, Conventions), of the dev
// sentences' parses, with the ranking's own fields around it.
type Row struct {
	Rank   int       `json:"rank"`
	Model  string    `json:"model"`
	By     Criterion `json:"by"`
	Family string    `json:"family,omitempty"` // the models' family when not the DMV's
	// Sentences and Tokens are the dev sentences parsed and scored.
	Sentences int `json:"sentences"`
	Tokens    int `json:"tokens"`
	// The scores, on what the dev sentences have gold of and the family
	// predicts: heads (absent without gold heads), brackets against
	// "tree" (the CCM's and DMV+CCM's Viterbi brackets), induced tags
	// against the gold tags (the HMM's).
	*score.Heads
	Brackets *score.BracketReport `json:"brackets,omitempty"`
	*tageval.Report
	// DevLikelihood is absent for a log-linear model (train-ce's "w"),
	// whose trees' scores are no probabilities.
	*DevLikelihood
	LogLinear bool `json:"log_linear,omitempty"`
	// Contrast is the contrastive objective on the dev sentences every
	// model knows, under neighbourhood Nbhd (--by contrast only).
	Contrast *format.Real `json:"contrast,omitempty"`
	Nbhd     string       `json:"nbhd,omitempty"`
	// RuleShare is the share of the dev parses' dependencies (the roots'
	// included) that instantiate a rule of Options.Rules.
	RuleShare *float64 `json:"rule_share,omitempty"`
	// Agreement is --by agreement's mean share of dev tokens whose head
	// the model's parses share with each other model's.
	Agreement *float64 `json:"agreement,omitempty"`
	// PRObjective is --by pr's: Σ log p(x) − min KL(q ‖ p(z|x)) over the
	// posteriors whose expected share of rules is at least PRShare.
	PRObjective *format.Real `json:"pr_objective,omitempty"`
	PRShare     float64      `json:"pr_share,omitempty"`
	// VBAlpha and VBBound are a model of variational Bayes's Dirichlet α
	// and training bound (its header's); its LogLik is Σ log Z̃ under its
	// weights exp E[log θ], a lower bound on the expected dev
	// log-likelihood.
	VBAlpha float64      `json:"vb_alpha,omitempty"`
	VBBound *format.Real `json:"vb_bound,omitempty"`
	// UnseenTokens are the dev tokens whose word the model never saw (the
	// HMM).
	UnseenTokens int `json:"unseen_tokens,omitempty"`
	// Fallbacks say, one line each, where the row's ranking or the parses
	// it scores could not be had as asked: what was used instead and why
	// (select-model writes each on stderr too, naming the model).
	Fallbacks []string `json:"fallbacks,omitempty"`
	acc       *float64 // the accuracy --by accuracy ranks (Directed for the DMV)
}

// DevLikelihood is a model's dev log-likelihood: LogLik is Σ log p(x) over
// the dev sentences whose tags every model knows (LogLikSentences of
// them, LogLikTokens tokens). CrossEntropy is −LogLik per token in bits,
// where that is a cross-entropy: the DMV and the HMM generate each token
// once; the CCM and DMV+CCM generate every span and context of a
// sentence, so theirs is absent. ZeroProbability counts the sentences the
// model gives probability 0 (an unsmoothed model's unseen events), which
// make LogLik −Inf; LogLikNonzero is the sum over the others.
type DevLikelihood struct {
	LogLik          format.Real  `json:"loglik"`
	CrossEntropy    *format.Real `json:"cross_entropy,omitempty"`
	LogLikSentences int          `json:"loglik_sentences"`
	LogLikTokens    int          `json:"loglik_tokens"`
	ZeroProbability int          `json:"zero_probability"`
	LogLikNonzero   format.Real  `json:"loglik_nonzero"`
}

// likelihood sums the log-probabilities logZ of the dev sentences known
// marks (nil: all); perToken says whether −loglik per token is a
// cross-entropy.
func likelihood(dev []*format.Sentence, known []bool, logZ []float64, perToken bool) *DevLikelihood {
	l := &DevLikelihood{}
	nonzero := 0.0
	for i, s := range dev {
		if known != nil && !known[i] {
			continue
		}
		l.LogLikSentences++
		l.LogLikTokens += s.Len()
		if math.IsInf(logZ[i], -1) {
			l.ZeroProbability++
		} else {
			nonzero += logZ[i]
		}
	}
	ll := nonzero
	if l.ZeroProbability > 0 {
		ll = math.Inf(-1)
	}
	l.LogLik, l.LogLikNonzero = format.Real(ll), format.Real(nonzero)
	if perToken {
		ce := format.CrossEntropy(ll, l.LogLikTokens)
		l.CrossEntropy = &ce
	}
	return l
}

// Report says what the selection met, for stderr.
type Report struct {
	Best       Row
	Unscorable int // dev sentences left out of the log-likelihood (unknown tags)
	// UnseenTokens and UnseenTypes are the most dev tokens (and distinct
	// ones) that one model had not seen, UnseenWhat what they are
	// ("words"): a family model scores them with its own unseen
	// probability.
	UnseenTokens, UnseenTypes int
	UnseenWhat                string
	// Fallbacks are the rows' fallbacks, each named by its model, and the
	// ranking's own (a measure of another kind than asked, for every
	// model), for stderr: one line each, in the order the models were
	// given.
	Fallbacks []string
}

// fallBack records a fallback of row r: in the row (JSON) and, named by
// the row's model, for stderr.
func (rep *Report) fallBack(r *Row, format string, args ...any) {
	note := fmt.Sprintf(format, args...)
	r.Fallbacks = append(r.Fallbacks, note)
	rep.Fallbacks = append(rep.Fallbacks, r.Model+": "+note)
}

// fallBackAll records a fallback of the ranking itself, the same for
// every row: once for stderr, first in every row.
func (rep *Report) fallBackAll(rows []Row, note string) {
	rep.Fallbacks = append(rep.Fallbacks, note)
	for i := range rows {
		rows[i].Fallbacks = append([]string{note}, rows[i].Fallbacks...)
	}
}

// zeroFallback records, when the ranking is by the log-likelihood, a row
// that has none to rank by (some dev sentence of probability 0, so
// −Inf): what rank ranks it by instead. (By rules the likelihood only
// breaks ties, as documented.)
func (rep *Report) zeroFallback(r *Row, by Criterion) {
	l := r.DevLikelihood
	if by != Likelihood || l == nil || l.ZeroProbability == 0 {
		return
	}
	others := fmt.Sprintf(", then by the log-likelihood of the others (%.6g)", float64(l.LogLikNonzero))
	if l.ZeroProbability == l.LogLikSentences {
		others = " (it has no others: ties keep the order given)"
	}
	rep.fallBack(r, "log-likelihood -inf: %d of its %d dev sentences have probability 0; ranked after the models without such sentences, by fewer of them%s", l.ZeroProbability, l.LogLikSentences, others)
}

// Run ranks the models on the dev data and writes the table (or JSON
// lines) to w, best first; ties keep the order the models were given in.
func Run(w io.Writer, opts Options) (Report, error) {
	var rep Report
	if len(opts.Models) == 0 {
		return rep, errors.New("no models to select from")
	}
	if opts.Root == "" {
		opts.Root = score.RootCounted
	}
	fam, err := familyOf(opts.Models)
	if err != nil {
		return rep, err
	}
	// Read as the models' family reads sentences: one it cannot read (the
	// HMM's without words) is named by file and line.
	dev, err := family.ReadSentences(fam, opts.Dev)
	if err != nil {
		return rep, err
	}
	devName := pipeline.DescribeInputs(opts.Dev.Names)
	if opts.DevSentences > 0 && opts.DevSentences < len(dev) {
		devName = fmt.Sprintf("the first %d of %d sentences of %s", opts.DevSentences, len(dev), devName)
		dev = dev[:opts.DevSentences]
	}
	if !isDMV(fam) {
		return runFamily(w, opts, fam, dev, devName)
	}
	models := make([]*dmv.Table, len(opts.Models))
	for i, path := range opts.Models {
		if models[i], err = dmv.ReadParsingModel(path); err != nil {
			return rep, err
		}
	}
	rows, rep, err := evaluateAll(dev, devName, models, opts)
	if err != nil {
		return rep, err
	}
	rep.Best, err = publish(w, rows, opts, func(i int) error {
		return dmv.WriteModel(opts.Best, models[i])
	}, func(ranked []Row) error { return writeTable(w, ranked, opts, devName, rep.Unscorable) })
	return rep, err
}

// evaluateAll evaluates DMV models (opts.Models names them) on the dev
// sentences, in the order given.
func evaluateAll(dev []*format.Sentence, devName string, models []*dmv.Table, opts Options) ([]Row, Report, error) {
	var rep Report
	gold := true
	for _, s := range dev {
		gold = gold && s.Heads != nil
	}
	if opts.By == Rules || opts.By == PRObjective {
		if opts.Rules == nil {
			return nil, rep, fmt.Errorf("--by %s needs the rules (--rules)", opts.By)
		}
		tags := dmv.NewTagSet()
		for _, s := range dev {
			for _, t := range s.Tags {
				tags.Add(t)
			}
		}
		if err := opts.Rules.CheckCovers(tags.Names()); err != nil {
			return nil, rep, fmt.Errorf("%s: %w", devName, err)
		}
	}
	if opts.By == Agreement && len(models) < 2 {
		return nil, rep, errors.New("--by agreement needs at least two models to compare")
	}
	if opts.By == Accuracy && !gold {
		return nil, rep, fmt.Errorf("%s: supervised selection (--by accuracy) needs gold heads on every dev sentence; --by likelihood does not", devName)
	}
	potentials := make([]*dmv.Params, len(models))
	var err error
	for i, path := range opts.Models {
		if err := checkVB(models, i, path, opts); err != nil {
			return nil, rep, err
		}
		if models[i].Refine != "" && (opts.By == Contrast || opts.By == PRObjective) {
			return nil, rep, fmt.Errorf("%s: a model over refined tags (its header's \"refine\" %q) is ranked --by accuracy, likelihood, rules, bound or agreement, not --by %s", path, models[i].Refine, opts.By)
		}
		if models[i].Unit != format.Prob && (opts.By == Likelihood || opts.By == PRObjective) {
			return nil, rep, fmt.Errorf("%s: a log-linear model (\"w\", train-ce) gives no likelihood of the dev sentences; select it --by contrast or --by accuracy", path)
		}
		if potentials[i], err = models[i].Potentials(); err != nil {
			return nil, rep, fmt.Errorf("%s: %w", path, err)
		}
	}
	longest := 0
	for _, s := range dev {
		longest = max(longest, len(s.Tags))
	}
	workers := pipeline.Workers(opts.Workers)
	views := make([][]*format.Sentence, len(models)) // the dev sentences as each model reads them
	bareTags := tagsOf(dev)
	for i, m := range models {
		views[i] = dev
		devTags := bareTags
		if m.Refine != "" {
			views[i] = make([]*format.Sentence, len(dev))
			for k, s := range dev {
				views[i][k] = m.Refined(s)
			}
			devTags = tagsOf(views[i])
		}
		if err := dmv.CheckMemory(m.Params.V, dmv.DepthBound{}, m.Tags.Len()+len(devTags), longest, workers, 4+len(models), opts.MaxMemory); err != nil {
			return nil, rep, fmt.Errorf("%s on %s: %w", opts.Models[i], devName, err)
		}
		// Unseen tags are parsed as the model's average tag; a model that
		// knows none of the dev tags is of another tag set.
		if _, _, _, err := m.Extend(devTags); err != nil {
			return nil, rep, fmt.Errorf("%s on %s: %w", opts.Models[i], devName, err)
		}
	}
	known := commonlyKnown(views, models)
	for _, k := range known {
		if !k {
			rep.Unscorable++
		}
	}
	if opts.By == Likelihood && rep.Unscorable == len(dev) {
		return nil, rep, fmt.Errorf("%s: no dev sentence has only tags every model knows, so no log-likelihoods to compare (select --by accuracy, or map the tags with tagmap)", devName)
	}
	rows := make([]Row, len(models))
	preds := make([][][]int, len(models))
	for i, m := range models {
		dec, err := m.Decoder()
		if err != nil {
			return nil, rep, fmt.Errorf("%s: %w", opts.Models[i], err)
		}
		var parsed parseReport
		rows[i], preds[i], parsed = evaluate(dev, views[i], known, m, dec, potentials[i], gold, opts)
		rows[i].Model = opts.Models[i]
		if opts.By == Accuracy || opts.By == Rules || opts.By == Agreement { // the parses rank
			if parsed.unknown > 0 {
				rep.fallBack(&rows[i], "%d dev tokens of %d tags it does not know parsed as its average tag", parsed.unknown, len(parsed.unknownTags))
			}
			if parsed.fellBack > 0 {
				rep.fallBack(&rows[i], "%d dev sentences of probability 0 under it parsed by the fallback (every impossible event at 1e-300), as decode parses them", parsed.fellBack)
			}
		}
		if rep.Unscorable > 0 && (opts.By == Likelihood || opts.By == Rules || opts.By == Contrast || opts.By == Agreement || opts.By == PRObjective) { // stderr says it once for all
			what := "log-likelihood"
			switch opts.By {
			case Contrast:
				what = "contrastive objective"
			case PRObjective:
				what = "PR objective"
			}
			rows[i].Fallbacks = append(rows[i].Fallbacks, fmt.Sprintf("%d of %d dev sentences left out of its %s: they have tags some model does not know", rep.Unscorable, len(dev), what))
		}
		rep.zeroFallback(&rows[i], opts.By)
		if m.VB != nil {
			rows[i].VBAlpha = m.VB.Alpha
			if b := m.VB.Bound; b != nil {
				r := format.Real(*b)
				rows[i].VBBound = &r
			}
		}
		if opts.By == Contrast {
			v, err := contrast(dev, known, m, opts.Nbhd, opts.Workers)
			if err != nil {
				return nil, rep, fmt.Errorf("%s: %w", opts.Models[i], err)
			}
			c := format.Real(v)
			rows[i].Contrast, rows[i].Nbhd = &c, opts.Nbhd
		}
		if opts.By == PRObjective {
			v, err := prObjective(dev, known, m, potentials[i], opts.Rules, opts.RuleShare, opts.Workers)
			if err != nil {
				return nil, rep, fmt.Errorf("%s: %w", opts.Models[i], err)
			}
			o := format.Real(v)
			rows[i].PRObjective, rows[i].PRShare = &o, opts.RuleShare
		}
	}
	if opts.By == Agreement {
		for i, a := range agreement(preds) {
			rows[i].Agreement = &a
		}
	}
	return rows, rep, nil
}

// Rank evaluates DMV models held in memory (opts.Models names them, one
// name per model) on the dev sentences by opts.By and returns their rows
// best first, as select-model ranks model files (induce's selection).
func Rank(dev []*format.Sentence, devName string, models []*dmv.Table, opts Options) ([]Row, Report, error) {
	if opts.Root == "" {
		opts.Root = score.RootCounted
	}
	rows, rep, err := evaluateAll(dev, devName, models, opts)
	if err != nil {
		return nil, rep, err
	}
	ranked := make([]Row, len(rows))
	for r, i := range rank(rows, opts.By) {
		ranked[r] = rows[i]
		ranked[r].Rank = r + 1
	}
	rep.Best = ranked[0]
	return ranked, rep, nil
}

// checkVB refuses what a ranking cannot compare (model i, read from
// path): by bound a model without one; by likelihood a model of
// variational Bayes beside a normalised one (Σ log Z̃ under weights that
// sum to less than 1 is a lower bound, not a likelihood).
func checkVB(models []*dmv.Table, i int, path string, opts Options) error {
	m := models[i]
	switch {
	case opts.By == Bound && (m.VB == nil || m.VB.Bound == nil):
		return fmt.Errorf("%s: no variational bound in its header (not a model of train-em --estimator vb, or of mstep --vb -m): rank it --by likelihood or --by accuracy", path)
	case (opts.By == Likelihood || opts.By == PRObjective) && i > 0 && (m.VB == nil) != (models[0].VB == nil):
		vb, normalised := path, opts.Models[0]
		if m.VB == nil {
			vb, normalised = normalised, vb
		}
		return fmt.Errorf("%s is a model of variational Bayes and %s a normalised one: the dev log-likelihood of θ̃ (sub-normalised) is a lower bound, not comparable with a likelihood; rank them --by accuracy, or each kind by itself", vb, normalised)
	}
	return nil
}

// tagsOf is the tags of the sentences, each once (dmv.CorpusTags).
func tagsOf(sents []*format.Sentence) []string {
	names := make([][]string, len(sents))
	for i, s := range sents {
		names[i] = s.Tags
	}
	return dmv.CorpusTags(names)
}

// commonlyKnown marks the dev sentences whose every tag every model
// knows (each model's view of them: views[m]): the log-likelihoods of all
// models are sums over the same sentences, or they could not be compared.
func commonlyKnown(views [][]*format.Sentence, models []*dmv.Table) []bool {
	known := make([]bool, len(views[0]))
	for i := range known {
		known[i] = true
		for m, model := range models {
			for _, t := range views[m][i].Tags {
				if _, in := model.Tags.Index(t); !in {
					known[i] = false
				}
			}
		}
	}
	return known
}

// evaluate parses the dev sentences with model m, of potentials w
// (Viterbi, as decode does; view is dev as m reads it), and scores them,
// and sums the log-likelihood of the known ones when m is a probability
// model.
func evaluate(dev, view []*format.Sentence, known []bool, m *dmv.Table, dec *dmv.Decoder, w *dmv.Params, gold bool, opts Options) (Row, [][]int, parseReport) {
	row := Row{By: opts.By, Sentences: len(dev), LogLinear: m.Unit != format.Prob}
	pred, logZ, parsed := parse(view, known, dec, w, opts.Workers)
	if opts.Rules != nil {
		share := RuleShare(dev, pred, opts.Rules)
		row.RuleShare = &share
	}
	if gold {
		var t score.Tally
		for i, p := range pred {
			t.Add(dev[i].Heads, p)
		}
		row.Heads = score.HeadsOf(t, opts.Root)
		row.acc = &row.Heads.Directed
	}
	for _, s := range dev {
		row.Tokens += len(s.Tags)
	}
	if !row.LogLinear {
		row.DevLikelihood = likelihood(dev, known, logZ, true)
	}
	return row, pred, parsed
}

// parseReport is what parsing the dev sentences fell back on: tokens of
// tags the model does not know (parsed as its average tag) and sentences
// of probability 0 (parsed by the decoder's fallback).
type parseReport struct {
	unknown     int
	unknownTags map[string]bool
	fellBack    int
}

// RuleShare is the share of the parses' dependencies, the roots'
// included, that instantiate a rule.
func RuleShare(dev []*format.Sentence, pred [][]int, rules *pr.Rules) float64 {
	ok, all := 0, 0
	for i, s := range dev {
		for d, h := range pred[i] {
			head := pr.Root
			if h > 0 {
				head = s.Tags[h-1]
			}
			if rules.Allows(head, s.Tags[d]) {
				ok++
			}
			all++
		}
	}
	return float64(ok) / float64(max(all, 1))
}

// chunks splits the dev set for parallel parsing independently of the
// number of workers.
const chunks = 64

// parse gives the Viterbi heads of every sentence by dec (unknown tags
// as the model's average tag, sentences of probability 0 through the
// decoder's fallback) and log Z(x) of the known ones under potentials w,
// the plain model.
func parse(dev []*format.Sentence, known []bool, dec *dmv.Decoder, w *dmv.Params, workers int) (heads [][]int, logZ []float64, rep parseReport) {
	heads, logZ = make([][]int, len(dev)), make([]float64, len(dev))
	fellBack := make([]bool, len(dev))
	charts := make([]*dmv.Chart, pipeline.Workers(workers))
	pipeline.ForEachChunk(chunks, len(charts), func(worker, k int) {
		if charts[worker] == nil {
			charts[worker] = dmv.NewChart(16)
		}
		c := charts[worker]
		var x []int
		for i := k * len(dev) / chunks; i < (k+1)*len(dev)/chunks; i++ {
			x, _ = dec.Encode(dev[i].Tags, x)
			if known[i] {
				c.Load(x, w, nil)
				logZ[i] = c.Inside()
			}
			heads[i] = make([]int, len(x))
			_, fellBack[i] = dec.Decode(c, x, heads[i], false)
		}
	})
	rep.unknownTags = map[string]bool{}
	for i, s := range dev {
		if fellBack[i] {
			rep.fellBack++
		}
		for _, t := range s.Tags {
			if !dec.Known(t) {
				rep.unknown++
				rep.unknownTags[t] = true
			}
		}
	}
	return heads, logZ, rep
}

// rank orders rows best first by the criterion; ties keep the given
// order. By likelihood, models that give some dev sentence probability 0
// (log-likelihood −Inf) rank below the others, fewer such sentences
// first, then by the log-likelihood of the rest: unsmoothed models can
// still be told apart.
func rank(rows []Row, by Criterion) []int {
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ra, rb := rows[a], rows[b]
		if by == Accuracy {
			return cmp.Compare(*rb.acc, *ra.acc) // higher first
		}
		if by == Contrast {
			return cmp.Compare(float64(*rb.Contrast), float64(*ra.Contrast))
		}
		if by == Rules {
			if c := cmp.Compare(*rb.RuleShare, *ra.RuleShare); c != 0 {
				return c
			}
		}
		if by == Agreement {
			if c := cmp.Compare(*rb.Agreement, *ra.Agreement); c != 0 {
				return c
			}
		}
		if by == PRObjective {
			return cmp.Compare(float64(*rb.PRObjective), float64(*ra.PRObjective))
		}
		if by == Bound {
			return cmp.Compare(float64(*rb.VBBound), float64(*ra.VBBound))
		}
		la, lb := ra.DevLikelihood, rb.DevLikelihood
		if la == nil || lb == nil { // log-linear models (--by rules): no likelihood to break ties
			return 0
		}
		if c := cmp.Compare(la.ZeroProbability, lb.ZeroProbability); c != 0 {
			return c
		}
		return cmp.Compare(float64(lb.LogLikNonzero), float64(la.LogLikNonzero))
	})
	return order
}

func writeTable(w io.Writer, rows []Row, opts Options, dev string, unscorable int) error {
	var b strings.Builder
	conv := "root counted"
	if opts.Root == score.RootExcluded {
		conv = "root excluded"
	}
	by := "dev directed accuracy (" + conv + ")"
	if opts.By == Likelihood {
		by = "dev log-likelihood (plain DMV)"
	}
	if opts.By == Contrast {
		by = "dev contrastive objective (" + opts.Nbhd + ")"
	}
	if opts.By == Rules {
		by = "the share of rules (" + opts.Rules.Name + ") in the dev parses, then dev log-likelihood"
	}
	if opts.By == Bound {
		by = "the variational bound of their training (vb_bound); dev columns"
	}
	if opts.By == Agreement {
		by = "their dev parses' agreement with the other models', then dev log-likelihood"
	}
	if opts.By == PRObjective {
		by = fmt.Sprintf("the PR objective of the rules (%s, τ = %g) on the dev sentences", opts.Rules.Name, opts.RuleShare)
	}
	fmt.Fprintf(&b, "%d models ranked by %s on %s: %d sentences, %d tokens", len(rows), by, dev, rows[0].Sentences, rows[0].Tokens)
	if unscorable > 0 {
		fmt.Fprintf(&b, "; log-likelihood over the %d sentences whose tags every model knows", rows[0].LogLikSentences)
	}
	contrastHead := ""
	if opts.By == Contrast {
		contrastHead = "        contrast"
	}
	if opts.Rules != nil {
		contrastHead += "  rules"
	}
	if opts.By == Bound {
		contrastHead += "           bound"
	}
	if opts.By == Agreement {
		contrastHead += "  agree"
	}
	if opts.By == PRObjective {
		contrastHead += "    pr objective"
	}
	fmt.Fprintf(&b, "\n\nrank  directed  undirected          loglik  bits/token  p=0%s  model\n", contrastHead)
	for _, r := range rows {
		ll := r.DevLikelihood.columns()
		dir, undir := "-", "-" // no gold heads
		if h := r.Heads; h != nil {
			dir, undir = fmt.Sprintf("%.1f", 100*h.Directed), fmt.Sprintf("%.1f", 100*h.Undirected)
		}
		if r.Contrast != nil {
			ll += fmt.Sprintf("  %14.6g", float64(*r.Contrast))
		}
		if r.RuleShare != nil {
			ll += fmt.Sprintf("  %5.1f", 100**r.RuleShare)
		}
		if opts.By == Bound {
			ll += fmt.Sprintf("  %14.6g", float64(*r.VBBound))
		}
		if r.Agreement != nil {
			ll += fmt.Sprintf("  %5.1f", 100**r.Agreement)
		}
		if r.PRObjective != nil {
			ll += fmt.Sprintf("  %14.6g", float64(*r.PRObjective))
		}
		fmt.Fprintf(&b, "%4d  %8s  %10s  %s  %s\n", r.Rank, dir, undir, ll, r.Model)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// columns are the table's loglik, bits/token and p=0 columns: "-" where
// there is no likelihood (a log-linear model) or no cross-entropy.
func (l *DevLikelihood) columns() string {
	if l == nil {
		return fmt.Sprintf("%14s  %10s  %3s", "-", "-", "-")
	}
	ce := "-"
	if l.CrossEntropy != nil {
		ce = fmt.Sprintf("%.4f", float64(*l.CrossEntropy))
	}
	return fmt.Sprintf("%14.6g  %10s  %3d", float64(l.LogLik), ce, l.ZeroProbability)
}
