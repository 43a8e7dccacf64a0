package commands

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/ce"
	"github.com/grind-nlp/grind/stages/emloop"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/hmmce"
	"github.com/grind-nlp/grind/stages/nbhd"
	"github.com/grind-nlp/grind/stages/rundir"
	"github.com/grind-nlp/grind/stages/schedule"
)

func init() { program.Register("train-hmm", WithRunDir(trainHMMApp)) }

func trainHMMApp() *cli.App {
	return &cli.App{
		Usage:     "induce part-of-speech tags with an HMM: the tagged corpus, and with --save-model the model",
		UsageText: "train-hmm [--states K] [--estimator em|map|da|sda|vb|gibbs|ce] [options] [FILE...]",
		Description: `Trains a bitag (or --trigram) HMM on the words of the sentences and writes
the same sentences with the induced states in "tags" ("s0" … "s(K−1)", or the
gold tags with --dict) and the reference tags in "gold_tags", ready for
score-tags; sentences need words, tags are optional (raw text). --save-model
also writes the model, for tag -m and decode -m: an HMM (family hmm, also
for estep -m, whose estep | mstep loop is this one's EM; gibbs: the
posterior mean given the kept samples' counts), or ce's log-linear
weights (family hmmce). -m MODEL starts from a saved model instead of
the noisy uniform start (Smith & Eisner 2004's labelled initialisation).

Estimators (all start from a uniform model with --noise, seeded by --seed, or -m;
every E-step is forward–backward, deterministic for any --workers):
  em     Baum–Welch; M-steps add --lambda (default 0)
  map    EM with add-λ M-steps (--lambda, default 1 here when not given)
  da     deterministic annealing: E-steps on θ^β, β from --beta0 multiplied
         by --beta-growth after each stage converges, up to 1; the defaults
         0.01 and 1.5 are Smith & Eisner's (2004) CCM schedule, their tagger's
         is --schedule tagging (β₀ 0.0001, γ 1.2, stages to 1e-9)
  sda    skewed DA: E-steps on θ^β·θ₀^(1−β), θ₀ the start
  vb     variational Bayes, Dirichlet(--alpha-trans, --alpha-emit)
  gibbs  collapsed pointwise Gibbs sampling (bitag), --iter sweeps,
         temperature from --temp0 down to 1, decoded from the last
         --samples sweeps
  ce     contrastive estimation of a log-linear HMM (bitag, or --trigram
         Smith's §4.7 tagger) over the word neighbourhood --nbhd (trans1,
         del1ortrans1, length), optional --spelling features and a
         Gaussian prior (--sigma2); L-BFGS for --max-iter iterations from
         weights U[0, --noise); Viterbi decoding
Decoding is each token's most probable state, or --viterbi.

--schedule NAME sets da's and sda's β₀, γ and (unless --tol is given) the
relative change that ends a stage, to a published schedule:
  tagging  Smith & Eisner 2004 §4.1, their trigram tagger: β₀ 0.0001, γ 1.2,
           1e-9 (52 stages)
  ccm      Smith & Eisner 2004 §6.2, their CCM: β₀ 0.01, γ 1.5, 1e-9

--run-dir DIR records the run (em, map, da, sda, vb, gibbs: run.json,
iterations.jsonl, a checkpoint after every iteration or sweep, model.jsonl
but for gibbs); --resume DIR continues a killed run to the same output and
model, byte for byte.

Examples:
   ptb2deps --keep-punct wsj/*/*.mrg | train-hmm --states 45 --iter 500 | score-tags
   train-hmm --estimator vb --alpha-trans 0.1 --alpha-emit 0.1 brown.jsonl -o tagged.jsonl
   train-hmm --trigram --dict 1 --estimator da --schedule tagging --lambda 0.1 corpus.jsonl | score-tags
   train-hmm --states 1000 --max-memory 8G brown.jsonl -o tagged.jsonl
   train-hmm --estimator gibbs --save-model g.jsonl train.jsonl > /dev/null; tag -m g.jsonl test.jsonl
   train-hmm --trigram --dict 1 -m labelled.jsonl --estimator sda unlabelled.jsonl

--max-memory SIZE (default 1G) refuses, before any table is made, a run whose
tables ((K+1)² transitions, (K+1)³ trigram, V·K emissions) and forward–backward
vectors would need more.

` + ProgressHelp,
		Flags: slices.Concat([]cli.Flag{
			&cli.IntFlag{Name: "states", Value: 45, Usage: "number of states `K` (ignored with --dict: the gold tags)"},
			&cli.BoolFlag{Name: "trigram", Usage: "a second-order (trigram) HMM instead of bitag"},
			&cli.StringFlag{Name: "estimator", Value: "em", Usage: "the `ESTIMATOR`: em, map, da, sda, vb, gibbs or ce"},
			&cli.IntFlag{Name: "max-iter", Aliases: []string{"iter"}, Value: 100, Usage: "`N` iterations (per stage for da/sda; sweeps for gibbs, whose default is 2000)"},
			&cli.Float64Flag{Name: "tol", DefaultText: "0; 2^-20 with --stop bits; a --schedule's own", Usage: "stop when the objective's relative change (--stop bits: its change in bits per token) is below `T` (0: run every iteration)"},
			stopFlag("relative"),
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed `S` of the start (and of the sampler)"},
			&cli.Float64Flag{Name: "noise", Value: 1, Usage: "the start's `NOISE`: each weight times 1 + noise·U[0,1) before normalising"},
			&cli.Float64Flag{Name: "lambda", DefaultText: "0; 1 for map", Usage: "add-`λ` smoothing of every M-step"},
			&cli.IntFlag{Name: "dict", Usage: "tag dictionary from the corpus's gold tags: words seen ≥ `N` times keep only their tags (1: full; 0: none)"},
			&cli.BoolFlag{Name: "viterbi", Usage: "decode the best tagging instead of each token's most probable state"},
			&cli.IntFlag{Name: "workers", Usage: "`N` E-step goroutines (0: every core); the output does not depend on it"},
			program.MaxMemoryFlag(),
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, TakesFile: true, Usage: "start from the saved model `FILE` instead of the noisy uniform start (an HMM; for ce an HMM or a CE tagger): Smith & Eisner 2004's labelled initialisation"},
			&cli.StringFlag{Name: "log", Usage: "write one JSON line per iteration to `FILE`"},
			&cli.StringFlag{Name: "save-model", Usage: "also write the trained model to `FILE`, for tag and decode (family hmm, also for estep; ce: hmmce)"},
			&cli.IntFlag{Name: "save-every", Usage: "save the model every `K` iterations (iter-NNNN.jsonl in --save-dir; not gibbs or ce)"},
			&cli.StringFlag{Name: "save-dir", Value: ".", Usage: "the `DIR` --save-every writes to (made if missing)"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		}, program.InCategory("Annealing (--estimator da, sda)",
			&cli.Float64Flag{Name: "beta0", Value: 0.01, Usage: "da/sda: the first stage's `β₀`"},
			&cli.Float64Flag{Name: "gamma", Aliases: []string{"beta-growth"}, Value: 1.5, Usage: "da/sda: β ← min(1, `γ`·β) between stages"},
			&cli.StringFlag{Name: "schedule", Usage: "da/sda: a published schedule `NAME` instead of --beta0 and --gamma: tagging (Smith & Eisner 2004 §4.1: 0.0001, 1.2, stages to 1e-9) or ccm (their §6.2: 0.01, 1.5, 1e-9)"},
		), program.InCategory("Dirichlet priors (--estimator vb, gibbs)",
			&cli.Float64Flag{Name: "alpha-trans", Value: 0.1, Usage: "Dirichlet hyperparameter `α` of transition rows (vb, gibbs)"},
			&cli.Float64Flag{Name: "alpha-emit", Value: 0.0001, Usage: "Dirichlet hyperparameter `α′` of emission rows (vb, gibbs)"},
		), program.InCategory("The sampler (--estimator gibbs)",
			&cli.Float64Flag{Name: "temp0", Value: 1, Usage: "gibbs: starting temperature `T` (1: no annealing)"},
			&cli.IntFlag{Name: "samples", Value: 1, Usage: "gibbs: decode from the most frequent state of the last `N` sweeps"},
		), program.InCategory("Contrastive estimation (--estimator ce)",
			&cli.StringFlag{Name: "nbhd", Value: nbhd.Del1OrTrans1, Usage: "ce: the word neighbourhood `KIND`, trans1, del1ortrans1 or length"},
			&cli.BoolFlag{Name: "spelling", Usage: "ce: add spelling features (1–3-character suffixes, initial capital, hyphen, digit) conjoined with the tag"},
			&cli.Float64Flag{Name: "sigma2", Value: math.Inf(1), Usage: "ce: variance `σ²` of the Gaussian prior on every weight (inf: none)"},
		), RunDirFlags()),
		Action: func(c *cli.Context) error {
			// Every number is checked before the run, whatever the
			// estimator (a bad value is a bad command line even where it
			// is not used).
			if err := program.First(
				program.CheckWorkers(c), program.CheckLambda(c),
				program.CheckInt(c, "states", 1), program.CheckInt(c, "max-iter", 1), program.CheckInt(c, "save-every", 0),
				program.CheckInt(c, "dict", 0), program.CheckInt(c, "samples", 1),
				program.CheckFloat(c, "tol", program.NonNegative, "a finite number ≥ 0"),
				program.CheckFloat(c, "noise", program.Positive, "a finite number > 0 (from an exactly symmetric start EM cannot tell the states apart)"),
				program.CheckFloat(c, "alpha-trans", program.Positive, "a finite number > 0"),
				program.CheckFloat(c, "alpha-emit", program.Positive, "a finite number > 0"),
				program.CheckFloat(c, "temp0", program.AtLeastOne, "a finite temperature ≥ 1 (the sampler cools from it down to 1)"),
			); err != nil {
				return err
			}
			beta0, gamma, tol := c.Float64("beta0"), c.Float64("gamma"), c.Float64("tol")
			if c.IsSet("schedule") {
				p, err := schedule.PresetNamed(c.String("schedule"))
				switch est := c.String("estimator"); {
				case err != nil:
					return program.Usagef("--schedule: %v", err)
				case est != string(hmm.DA) && est != string(hmm.SDA):
					return program.Usagef("--schedule is da's and sda's, not %s's", est)
				case c.IsSet("beta0") || c.IsSet("gamma"):
					return program.Usagef("--schedule %s sets β₀ and γ: not with --beta0 or --gamma", p.Name)
				}
				beta0, gamma = p.Beta0, p.Gamma
				if !c.IsSet("tol") {
					tol = p.Tol
				}
			}
			stop, err := stopRule(c)
			if err != nil {
				return err
			}
			if stop == emloop.Bits && !c.IsSet("tol") {
				tol = emloop.DefaultBitsTol
			}
			if _, err := schedule.DA(beta0, gamma); err != nil {
				return program.Usagef("--beta0, --gamma: %v", err)
			}
			iterations := c.Int("max-iter")
			if hmm.Estimator(c.String("estimator")) == hmm.Gibbs && !c.IsSet("max-iter") {
				iterations = GibbsSweeps
			}
			if c.Int("samples") > iterations {
				return program.Usagef("--samples %d: more sweeps than --max-iter %d makes", c.Int("samples"), iterations)
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			o := hmm.Options{
				Order: 1, States: c.Int("states"), Estimator: hmm.Estimator(c.String("estimator")),
				Iterations: iterations, Tol: tol, Stop: stop, Seed: c.Uint64("seed"), Noise: c.Float64("noise"),
				Lambda: c.Float64("lambda"), AlphaT: c.Float64("alpha-trans"), AlphaE: c.Float64("alpha-emit"),
				Beta0: beta0, BetaGrowth: gamma, Temp0: c.Float64("temp0"),
				Samples: c.Int("samples"), Viterbi: c.Bool("viterbi"), Workers: c.Int("workers"),
			}
			if c.Bool("trigram") {
				o.Order = 2
			}
			ce := o.Estimator == "ce"
			var logw io.Writer
			if !slices.Contains(hmm.Estimators, o.Estimator) && !ce {
				return program.Usagef("--estimator must be em, map, da, sda, vb, gibbs or ce, not %q", o.Estimator)
			}
			if o.Estimator == hmm.MAP && !c.IsSet("lambda") {
				o.Lambda = 1
				setUsed(c, "lambda", "1")
			}
			switch {
			case (o.Estimator == hmm.Gibbs || ce) && c.IsSet("stop"):
				return program.Usagef("--stop is for em, map, da, sda and vb (gibbs samples for --max-iter sweeps; ce stops at --tol's relative change)")
			case o.Estimator == hmm.Gibbs && o.Order != 1:
				return program.Usagef("--estimator gibbs is for the bitag HMM (drop --trigram)")
			case ce && !(c.Float64("sigma2") > 0):
				return program.Usagef("--sigma2 must be > 0 (inf: no prior)")
			case ce && c.String("nbhd") != nbhd.Trans1 && c.String("nbhd") != nbhd.Del1OrTrans1 && c.String("nbhd") != nbhd.Length:
				return program.Usagef("--nbhd must be trans1, del1ortrans1 or length, not %q", c.String("nbhd"))
			}
			if (o.Estimator == hmm.Gibbs || ce) && c.Int("save-every") > 0 {
				return program.Usagef("--save-every: gibbs and ce save their final model only (--save-model)")
			}
			if c.Int("save-every") > 0 {
				if err := checkSaveDir(c, c.String("save-dir")); err != nil {
					return err
				}
			}
			if ce && (c.IsSet("run-dir") || c.IsSet("resume")) {
				return program.Usagef("--run-dir and --resume are for em, map, da, sda, vb and gibbs: ce is not checkpointed (ce-step --states runs it a step at a time, its state in a file)")
			}
			rd, err := openTrainerRun[hmm.Snapshot](c)
			if err != nil {
				return err
			}
			defer rd.close()
			logOut, modelOut, err := trainerOutputs(c)
			if err != nil {
				return err
			}
			if logOut != nil {
				logw = logOut
			}
			if rd != nil {
				logw = rd.log
				o.Clock = rd.origin()
				o.Resume = rd.resumed
				o.Checkpoint = rd.checkpoint
			}
			src := program.Source(c)
			check := hmm.CheckSentence
			if c.Int("dict") > 0 {
				check = func(s *format.Sentence) error {
					if err := hmm.CheckSentence(s); err != nil {
						return err
					}
					return hmm.CheckDictTags(s)
				}
			}
			sents, err := pipeline.ReadWordSentences(src, check)
			if err != nil {
				return err
			}
			corpus, err := hmm.NewCorpus(sents)
			if err != nil {
				return err
			}
			var start *hmmStart
			if path := c.String("model"); path != "" {
				if start, err = readStart(c, path, o.Order, ce, limit); err != nil {
					return err
				}
				if !c.IsSet("states") {
					o.States = start.states()
				}
			}
			// The memory of the states, words and sentence lengths, checked
			// before the dictionary's flags or any table is made.
			k := o.States
			if c.Int("dict") > 0 {
				k = hmm.GoldTagCount(corpus)
			}
			var cem *hmmce.Model
			if ce {
				if cem, err = newCEModel(c, corpus, k, o.Workers, limit); err != nil {
					return err
				}
			} else {
				job := hmm.Job{Order: o.Order, K: k, V: len(corpus.Words), MaxLen: corpus.MaxLen, Rows: hmm.ChunkRows(corpus),
					Workers: pipeline.Workers(o.Workers), Train: o.Estimator, Checkpoint: rd != nil}
				if err := job.Check(limit); err != nil {
					return err
				}
			}
			if n := c.Int("save-every"); n > 0 {
				states := hmm.StateNames(o.States)
				o.SaveEvery = n
				o.Save = func(iter int, p *hmm.Params, unseen []float64) error {
					if o.Dict != nil {
						states = o.Dict.Tags
					}
					m := &hmm.Model{P: p, States: states, Words: corpus.Words, Unseen: unseen, Deficient: o.Estimator == hmm.VB}
					return pipeline.WriteFile(savedModelPath(c.String("save-dir"), iter), nil, func(w *pipeline.Output) error { return hmm.WriteModel(w, m) })
				}
			}
			if n := c.Int("dict"); n > 0 {
				if o.Dict, err = hmm.BuildDict(corpus, n); err != nil {
					return err
				}
			}
			var ceStart []float64
			if start != nil {
				if ceStart, err = start.setUp(&o, corpus, cem); err != nil {
					return err
				}
			}
			prog := newProgress(c, hmmPlan(o, ce))
			var logErr error
			o.Progress = func(it format.Iteration) {
				prog.Iteration(it)
				if logw != nil && logErr == nil {
					logErr = pipeline.WriteRecord(logw, it)
				}
			}
			var res *hmm.Result
			var tagger *hmmce.Tagger
			if ce {
				res, tagger, err = trainHMMCE(c, corpus, o, cem, ceStart)
			} else {
				res, err = hmm.Train(corpus, o)
			}
			prog.Done()
			if br := (*hmm.BadResume)(nil); errors.As(err, &br) && rd != nil {
				err = rundir.Bad(rd.dir, br.Err)
			}
			if err != nil {
				return err
			}
			if logErr != nil {
				return fmt.Errorf("writing the log: %w", logErr)
			}
			if res.FellBack > 0 && !c.Bool("quiet") {
				fmt.Fprintf(c.App.ErrWriter, "%s: %d sentences of probability 0 under the model tagged by the fallback (every impossible event at 1e-300)\n", c.App.Name, res.FellBack)
			}
			m := &hmm.Model{P: res.Params, States: res.States, Words: corpus.Words, Unseen: res.Unseen, Deficient: o.Estimator == hmm.VB}
			if rd != nil {
				if err := rd.saveModel(func(w io.Writer) error { return hmm.WriteModel(w, m) }); err != nil {
					return err
				}
			}
			if modelOut != nil {
				write := func() error { return hmm.WriteModel(modelOut, m) }
				if ce {
					write = func() error { return tagger.Write(modelOut) }
				}
				if err := write(); err != nil {
					return err
				}
			}
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return hmm.WriteTagged(w, corpus, res.States, res.Tags)
			})
		},
	}
}

// hmmPlan is what a train-hmm run does at most, for its progress: the
// sampler every sweep, DA and SDA each stage of their schedule, CE its
// start and at most o.Iterations L-BFGS iterations.
func hmmPlan(o hmm.Options, ce bool) progress.Plan {
	plan := progress.Plan{MaxIter: o.Iterations}
	switch {
	case ce:
		plan.MaxIter, plan.NoCrossEntropy = o.Iterations+1, true
	case o.Estimator == hmm.Gibbs:
		plan.Exact, plan.NoCrossEntropy = true, true
	case o.Estimator == hmm.VB:
		plan.NoCrossEntropy = true
	case o.Estimator == hmm.DA || o.Estimator == hmm.SDA:
		if betas, err := schedule.DA(o.Beta0, o.BetaGrowth); err == nil {
			plan.Stages = len(betas)
		}
	}
	return plan
}

// GibbsSweeps is the sampler's default number of sweeps: the defaults
// of vb and gibbs (with --alpha-trans 0.1 and --alpha-emit 0.0001, values
// of Johnson 2007's grid) beat em's on the PTB sample's words on both
// 1-to-1 and VI, as Johnson found for VB, and the sampler needs far more
// sweeps than EM iterations for that (Gao & Johnson 2008 ran every
// estimator "for at least 1,000 iterations, as Johnson (2007) showed that
// some estimators require many iterations to converge"). README, train-hmm.
const GibbsSweeps = 2000

// newCEModel is the log-linear HMM of k states over the corpus's words
// (and spelling features), refused when training it would need more than
// limit bytes.
func newCEModel(c *cli.Context, corpus *hmm.Corpus, k, workers int, limit int64) (*hmmce.Model, error) {
	m := &hmmce.Model{K: k, V: len(corpus.Words), Workers: pipeline.Workers(workers)}
	if c.Bool("trigram") {
		m.Order = 2
	}
	if c.Bool("spelling") {
		var names []string
		m.Spell, names = hmmce.SpellingFeatures(corpus.Words)
		m.F = len(names)
	}
	lengths := make([]int, len(corpus.Sents))
	for i, s := range corpus.Sents {
		lengths[i] = len(s)
	}
	return m, m.Check(c.String("nbhd"), lengths, limit)
}

// trainHMMCE trains the log-linear HMM m by contrastive estimation and
// tags the corpus by Viterbi, reporting each L-BFGS iteration as
// o.Progress; the tagger is the trained model with its names.
func trainHMMCE(c *cli.Context, corpus *hmm.Corpus, o hmm.Options, m *hmmce.Model, theta0 []float64) (*hmm.Result, *hmmce.Tagger, error) {
	states := hmm.StateNames(o.States)
	if o.Names != nil {
		states = o.Names
	}
	if o.Dict != nil {
		states, m.Allowed = o.Dict.Tags, o.Dict.Allowed
	}
	sents := make([][]int, len(corpus.Sents))
	for i, s := range corpus.Sents {
		sents[i] = make([]int, len(s))
		for j, w := range s {
			sents[i][j] = int(w)
		}
	}
	start := time.Now()
	var prev float64
	r, err := hmmce.Train(m, sents, hmmce.Options{
		Kind: c.String("nbhd"), Sigma2: c.Float64("sigma2"), MaxIter: o.Iterations, Tol: o.Tol,
		Seed: o.Seed, Noise: o.Noise, Start: theta0,
		Observe: func(iter int, obj float64) {
			// The contrastive objective: no cross-entropy.
			it := format.Iteration{Iter: iter + 1, Objective: format.Real(obj), Seconds: time.Since(start).Seconds()}
			if iter > 0 {
				ch := format.Real(math.Abs(obj-prev) / math.Abs(prev))
				it.Change = &ch
			}
			prev = obj
			o.Progress(it)
		},
	})
	if err != nil {
		return nil, nil, err
	}
	res := &hmm.Result{States: states, Tags: make([][]int, len(sents))}
	for i, x := range sents {
		res.Tags[i] = m.Viterbi(r.Theta, x)
	}
	var features []string
	if m.Spell != nil {
		_, features = hmmce.SpellingFeatures(corpus.Words)
	}
	return res, hmmce.NewTagger(m, r.Theta, states, corpus.Words, features, c.String("nbhd")), nil
}

// hmmStart is -m, the saved model training starts from (Smith & Eisner
// 2004 §4.3 and §5: a model of labelled data as EM's θ₀, or SDA's, which
// skews towards it): an HMM, or for --estimator ce an HMM or a CE tagger.
type hmmStart struct {
	path   string
	hmm    *hmm.Model
	tagger *hmmce.Tagger
}

// readStart reads the start model and refuses one of another kind than
// the run's: another family, another order, another number of states
// than --states (when given; otherwise the model's is the run's), a CE
// tagger for an estimator other than ce, spelling weights for a run
// without --spelling.
func readStart(c *cli.Context, path string, order int, ce bool, limit int64) (*hmmStart, error) {
	variant := map[int]string{1: "bitag", 2: "trigram"}
	st := &hmmStart{path: path}
	kind := family.HeaderFamily(path)
	if hmm.IsWeights(path) {
		kind = hmmce.Family // ce-step's log-linear HMM: a bitag CE tagger
	}
	switch kind {
	case hmmce.Family:
		if !ce {
			return nil, fmt.Errorf("%s: CE weights (a CE tagger or ce-step's model): they start --estimator ce only; the other estimators start from an HMM model (family hmm)", path)
		}
		t, err := hmmce.ReadTagger(path, limit)
		if err != nil {
			return nil, err
		}
		if o := map[bool]int{false: 1, true: 2}[t.M.Trigram()]; o != order {
			return nil, fmt.Errorf("%s: a %s CE tagger, and this run is %s (--trigram)", path, variant[o], variant[order])
		}
		if t.Features != nil && !c.Bool("spelling") {
			return nil, fmt.Errorf("%s: a CE tagger with spelling weights, and this run has none (--spelling)", path)
		}
		st.tagger = t
	case hmm.Family, "":
		m, err := hmm.ReadModel(path, limit)
		if err != nil {
			return nil, err
		}
		if m.P.Order != order {
			return nil, fmt.Errorf("%s: a %s HMM, and this run is %s (--trigram)", path, variant[m.P.Order], variant[order])
		}
		st.hmm = m
	default:
		return nil, fmt.Errorf("%s: a %s model, not an HMM: train-hmm -m starts from an HMM model (family hmm; hmmce for --estimator ce)", path, kind)
	}
	if k := st.states(); c.IsSet("states") && k != c.Int("states") && c.Int("dict") == 0 {
		return nil, fmt.Errorf("%s: a model of %d states, and --states is %d", path, k, c.Int("states"))
	}
	return st, nil
}

func (st *hmmStart) names() []string {
	if st.hmm != nil {
		return st.hmm.States
	}
	return st.tagger.States
}

func (st *hmmStart) states() int { return len(st.names()) }

// setUp makes the start over the corpus (and the dictionary of o): for
// the HMM estimators o.Start and o.Names, for ce the start weights over
// m's layout — an HMM's log probabilities (clamped at ce.MinWeight, as
// train-ce starts from a DMV model), or a CE tagger's weights by name (a
// word or feature it lacks at 0). Under --dict the model's states must be
// the dictionary's tags.
func (st *hmmStart) setUp(o *hmm.Options, corpus *hmm.Corpus, m *hmmce.Model) ([]float64, error) {
	names := st.names()
	var allowed []bool
	if o.Dict != nil {
		if !slices.Equal(names, o.Dict.Tags) {
			return nil, fmt.Errorf("%s: its %d states are not the tag dictionary's %d tags (--dict: the corpus's gold tags, sorted)%s", st.path, len(names), len(o.Dict.Tags), stateDiff(names, o.Dict.Tags))
		}
		allowed = o.Dict.Allowed
	} else if len(names) != o.States {
		return nil, fmt.Errorf("%s: a model of %d states, and the run has %d", st.path, len(names), o.States)
	}
	o.Names = names
	if st.hmm != nil {
		p, err := st.hmm.StartOn(corpus, allowed)
		if err != nil {
			return nil, err
		}
		if m == nil {
			o.Start = p
			return nil, nil
		}
		theta := make([]float64, m.Dim())
		m.SetFromProbs(theta, p.Trans, p.Emit, ce.MinWeight)
		return theta, nil
	}
	return m.StartFrom(st.tagger, corpus.Words), nil
}

// stateDiff names the first dictionary tag a start model lacks and the
// first state it has beyond them, with the way to a supervised start over
// the dictionary's states; "" when they are the same set (in another
// order).
func stateDiff(states, tags []string) string {
	for _, t := range tags {
		if !slices.Contains(states, t) {
			return fmt.Sprintf(": it has no state %q — a supervised start over the dictionary's states is estep --gold -m MODEL (MODEL: a --dict run's on this corpus) LABELLED | mstep", t)
		}
	}
	for _, t := range states {
		if !slices.Contains(tags, t) {
			return fmt.Sprintf(": its state %q is no gold tag of this corpus", t)
		}
	}
	return ": the same tags in another order"
}
