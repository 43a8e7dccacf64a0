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
	case Accuracy, Likelihood, Contrast, Rules, Bound:
		return c, nil
	}
	return "", fmt.Errorf("--by must be %q, %q, %q, %q or %q, not %q", Accuracy, Likelihood, Contrast, Rules, Bound, s)
}

// Options of a selection.
type Options struct {
	Dev    pipeline.Source // the dev sentences
	Models []string        // the candidates' files
	By     Criterion
	// Nbhd is the neighbourhood of --by contrast (nbhd.Kinds).
	Nbhd string
	// Rules are the universal rules of --by rules (stages/pr); with
	// another criterion, when not nil, the rows still show the share.
	Rules *pr.Rules
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

// Row is one model's line of the ranking (JSON with --json). Accuracy
// fields are absent when the dev sentences have no gold heads.
type Row struct {
	Rank       int              `json:"rank"`
	Model      string           `json:"model"`
	By         Criterion        `json:"by"`
	Root       score.Convention `json:"root,omitempty"`
	Directed   *float64         `json:"directed,omitempty"`   // under Root
	Undirected *float64         `json:"undirected,omitempty"` // under Root
	// Both conventions: root counted (accuracy) and excluded (F1).
	CountedDirected    *float64 `json:"counted_directed,omitempty"`
	CountedUndirected  *float64 `json:"counted_undirected,omitempty"`
	ExcludedDirected   *float64 `json:"excluded_directed,omitempty"`
	ExcludedUndirected *float64 `json:"excluded_undirected,omitempty"`
	// LogLik is Σ log p(x) over the dev sentences whose tags every model
	// knows (LogLikSentences of them, LogLikTokens tokens); CrossEntropy is
	// −LogLik per token in bits. ZeroProbability counts the sentences the
	// model gives probability 0 (an unsmoothed model's unseen events),
	// which make LogLik −Inf; LogLikNonzero is the sum over the others.
	LogLik          format.Real `json:"loglik"`
	CrossEntropy    format.Real `json:"cross_entropy"`
	LogLikSentences int         `json:"loglik_sentences"`
	LogLikTokens    int         `json:"loglik_tokens"`
	ZeroProbability int         `json:"zero_probability"`
	LogLikNonzero   format.Real `json:"loglik_nonzero"`
	Sentences       int         `json:"sentences"` // dev sentences parsed
	Tokens          int         `json:"tokens"`
	// LogLinear marks a log-linear model (train-ce's "w"): its trees'
	// scores are no probabilities, and the log-likelihood fields are 0.
	LogLinear bool `json:"log_linear,omitempty"`
	// Contrast is the contrastive objective on the dev sentences every
	// model knows, under neighbourhood Nbhd (--by contrast only).
	Contrast *format.Real `json:"contrast,omitempty"`
	Nbhd     string       `json:"nbhd,omitempty"`
	// RuleShare is the share of the dev parses' dependencies (the roots'
	// included) that instantiate a rule of Options.Rules.
	RuleShare *float64 `json:"rule_share,omitempty"`
	// VBAlpha and VBBound are a model of variational Bayes's Dirichlet α
	// and training bound (its header's); its LogLik is Σ log Z̃ under its
	// weights exp E[log θ], a lower bound on the expected dev
	// log-likelihood.
	VBAlpha float64      `json:"vb_alpha,omitempty"`
	VBBound *format.Real `json:"vb_bound,omitempty"`
	// Family is the models' family when it is not the DMV's; its dev
	// accuracy is BracketF1 (standard, whole-sentence bracket counted) of
	// "pred_spans" against "tree", or ManyToOne and, when every predicted
	// tag is a gold tag, TagAccuracy of the induced tags. UnseenTokens are
	// the dev tokens whose word the model never saw (the HMM).
	Family       string   `json:"family,omitempty"`
	BracketF1    *float64 `json:"bracket_f1,omitempty"`
	ManyToOne    *float64 `json:"many_to_1,omitempty"`
	TagAccuracy  *float64 `json:"tag_accuracy,omitempty"`
	UnseenTokens int      `json:"unseen_tokens,omitempty"`
	acc          *float64 // the accuracy --by accuracy ranks (Directed for the DMV)
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
		if models[i], err = dmv.ReadModel(path); err != nil {
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
	if opts.By == Rules && opts.Rules == nil {
		return nil, rep, errors.New("--by rules needs the rules (--rules)")
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
		if models[i].Unit != format.Prob && opts.By == Likelihood {
			return nil, rep, fmt.Errorf("%s: a log-linear model (\"w\", train-ce) gives no likelihood of the dev sentences; select it --by contrast or --by accuracy", path)
		}
		if potentials[i], err = models[i].Potentials(); err != nil {
			return nil, rep, fmt.Errorf("%s: %w", path, err)
		}
	}
	var names [][]string
	for _, s := range dev {
		names = append(names, s.Tags)
	}
	devTags := dmv.CorpusTags(names)
	longest := 0
	for _, s := range dev {
		longest = max(longest, len(s.Tags))
	}
	workers := pipeline.Workers(opts.Workers)
	for i, m := range models {
		if err := dmv.CheckMemory(m.Tags.Len()+len(devTags), longest, workers, 4+len(models), opts.MaxMemory); err != nil {
			return nil, rep, fmt.Errorf("%s on %s: %w", opts.Models[i], devName, err)
		}
		// Unseen tags are parsed as the model's average tag; a model that
		// knows none of the dev tags is of another tag set.
		if _, _, _, err := m.Extend(devTags); err != nil {
			return nil, rep, fmt.Errorf("%s on %s: %w", opts.Models[i], devName, err)
		}
	}
	known := commonlyKnown(dev, models)
	for _, k := range known {
		if !k {
			rep.Unscorable++
		}
	}
	if opts.By == Likelihood && rep.Unscorable == len(dev) {
		return nil, rep, fmt.Errorf("%s: no dev sentence has only tags every model knows, so no log-likelihoods to compare (select --by accuracy, or map the tags with tagmap)", devName)
	}
	rows := make([]Row, len(models))
	for i, m := range models {
		dec, err := m.Decoder()
		if err != nil {
			return nil, rep, fmt.Errorf("%s: %w", opts.Models[i], err)
		}
		rows[i] = evaluate(dev, known, m, dec, potentials[i], gold, opts)
		rows[i].Model = opts.Models[i]
		if m.VB != nil {
			rows[i].VBAlpha = m.VB.Alpha
			if b := m.VB.Bound; b != nil {
				r := format.Real(*b)
				rows[i].VBBound = &r
			}
		}
		rows[i].acc = rows[i].Directed
		if opts.By == Contrast {
			v, err := contrast(dev, known, m, opts.Nbhd, opts.Workers)
			if err != nil {
				return nil, rep, fmt.Errorf("%s: %w", opts.Models[i], err)
			}
			c := format.Real(v)
			rows[i].Contrast, rows[i].Nbhd = &c, opts.Nbhd
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
	case opts.By == Likelihood && i > 0 && (m.VB == nil) != (models[0].VB == nil):
		vb, normalised := path, opts.Models[0]
		if m.VB == nil {
			vb, normalised = normalised, vb
		}
		return fmt.Errorf("%s is a model of variational Bayes and %s a normalised one: the dev log-likelihood of θ̃ (sub-normalised) is a lower bound, not comparable with a likelihood; rank them --by accuracy, or each kind by itself", vb, normalised)
	}
	return nil
}

// commonlyKnown marks the dev sentences whose every tag every model
// knows: the log-likelihoods of all models are sums over the same
// sentences, or they could not be compared.
func commonlyKnown(dev []*format.Sentence, models []*dmv.Table) []bool {
	known := make([]bool, len(dev))
	for i, s := range dev {
		known[i] = true
		for _, m := range models {
			for _, t := range s.Tags {
				if _, in := m.Tags.Index(t); !in {
					known[i] = false
				}
			}
		}
	}
	return known
}

// evaluate parses the dev sentences with model m, of potentials w
// (Viterbi, as decode does), and scores them, and sums the log-likelihood
// of the known ones when m is a probability model.
func evaluate(dev []*format.Sentence, known []bool, m *dmv.Table, dec *dmv.Decoder, w *dmv.Params, gold bool, opts Options) Row {
	row := Row{By: opts.By, Root: opts.Root, Sentences: len(dev), LogLinear: m.Unit != format.Prob}
	pred, logZ := parse(dev, known, dec, w, opts.Workers)
	if opts.Rules != nil {
		share := ruleShare(dev, pred, opts.Rules)
		row.RuleShare = &share
	}
	if gold {
		t := score.NewScorer()
		for i, p := range pred {
			t.Add(dev[i].Heads, p)
		}
		r := t.Report(opts.Root)
		c, e := r.Counted, r.Excluded
		row.Directed, row.Undirected = &r.Directed, &r.Undirected
		row.CountedDirected, row.CountedUndirected = &c.Directed.Accuracy, &c.Undirected.Accuracy
		row.ExcludedDirected, row.ExcludedUndirected = &e.Directed.F1, &e.Undirected.F1
	}
	for _, s := range dev {
		row.Tokens += len(s.Tags)
	}
	if row.LogLinear {
		return row
	}
	nonzero := 0.0
	for i, s := range dev {
		if !known[i] {
			continue
		}
		row.LogLikSentences++
		row.LogLikTokens += len(s.Tags)
		if math.IsInf(logZ[i], -1) {
			row.ZeroProbability++
		} else {
			nonzero += logZ[i]
		}
	}
	ll := nonzero
	if row.ZeroProbability > 0 {
		ll = math.Inf(-1)
	}
	row.LogLik, row.LogLikNonzero = format.Real(ll), format.Real(nonzero)
	row.CrossEntropy = format.Real(-ll / float64(max(row.LogLikTokens, 1)) / math.Ln2)
	return row
}

// ruleShare is the share of the parses' dependencies, the roots'
// included, that instantiate a rule.
func ruleShare(dev []*format.Sentence, pred [][]int, rules *pr.Rules) float64 {
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
func parse(dev []*format.Sentence, known []bool, dec *dmv.Decoder, w *dmv.Params, workers int) (heads [][]int, logZ []float64) {
	heads, logZ = make([][]int, len(dev)), make([]float64, len(dev))
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
			dec.Decode(c, x, heads[i], false)
		}
	})
	return heads, logZ
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
		if by == Bound {
			return cmp.Compare(float64(*rb.VBBound), float64(*ra.VBBound))
		}
		if c := cmp.Compare(ra.ZeroProbability, rb.ZeroProbability); c != 0 {
			return c
		}
		return cmp.Compare(float64(rb.LogLikNonzero), float64(ra.LogLikNonzero))
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
	fmt.Fprintf(&b, "\n\nrank  directed  undirected          loglik  bits/token  p=0%s  model\n", contrastHead)
	pct := func(f *float64) string {
		if f == nil {
			return "-"
		}
		return fmt.Sprintf("%.1f", 100**f)
	}
	for _, r := range rows {
		ll := fmt.Sprintf("%14.6g  %10.4f  %3d", float64(r.LogLik), float64(r.CrossEntropy), r.ZeroProbability)
		if r.LogLinear {
			ll = fmt.Sprintf("%14s  %10s  %3s", "-", "-", "-") // no probabilities
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
		fmt.Fprintf(&b, "%4d  %8s  %10s  %s  %s\n", r.Rank, pct(r.Directed), pct(r.Undirected), ll, r.Model)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
