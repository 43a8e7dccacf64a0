// Package cecmd is the command line of contrastive estimation's DMV
// trainers, train-ce and ce-step (which also steps train-hmm --estimator
// ce's HMM). It lives apart from package commands so that the other
// binaries need not carry its loops.
package cecmd

import (
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands"
	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/ce/lbfgs"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/modelu"
	"github.com/grind-nlp/grind/stages/nbhd"
)

func init() { program.Register("train-ce", commands.WithRunDir(trainCEApp)) }

func trainCEApp() *cli.App {
	return &cli.App{
		Usage:     "train a log-linear DMV, or Smith's Model U, by contrastive estimation",
		UsageText: "train-ce [options] [FILE...]",
		Description: `Contrastive estimation (Smith & Eisner 2005; Smith 2006): a log-linear DMV,
one real weight per DMV event, trained so that each sentence x is likely
against its neighbourhood N(x) (see nbhd) rather than against every string:
   maximise  Σ log Z(x) − log Z(N(x)) − Σ w²/(2σ²)
by L-BFGS, until the objective changes by less than --tol (relative) or after
--max-iter iterations. The gradient is the expected counts of the events on
the sentences minus those on their neighbourhoods, minus w/σ². Reads the
corpus once, builds every lattice once, and evaluates in parallel over
sentences; length's partition function is shared by all sentences of one
length and computed once per length. The result does not depend on --workers.

The model written carries "w" (a real weight per event); decode parses with
it and score scores the parses. Training starts from the log of the
initializer's θ⁽⁰⁾ — the weight vector 0 for --init zero, the log-probabilities
of the model for the others — or of -m MODEL (a "w" model starts as it is); an
event of probability 0 gets weight -50 (e^-50 ≈ 2e-22), since log 0 cannot be
optimised.

Model L (--delta0 δ): every edge in the sentence and in its neighbours is
multiplied by e^{δ·d}, d the distance of head and child in the string that
holds them (a neighbour made by a deletion is one word shorter, and its
distances are its own). With --delta-final δ_f the bias is annealed: L-BFGS
runs to convergence at δ, then at δ+Δδ (--delta-step), …, and last at δ_f,
each stage from the previous weights. The bias applies in training only.

Model U (--family modelu, or U; Smith 2006 §4.8, App. A.3): a log-linear model
of undirected projective trees, "a feature fires for every edge in the tree,
and the total score of a tree is a product of weights, one per edge" — one
weight per ordered pair (tag of the left word, tag of the right word), no
root, stop or valence weights. Its chart fixes the root at the first word, as
Smith's does, so every tree with no crossing edges is counted once. Training
starts from the weight vector 0 (Smith's Zero) and uses --nbhd (any but length
with --spelling), --sigma2, --tol, --max-iter, --log, --save-every, --run-dir
and --resume (the run directory keeps the L-BFGS state, ce-state.json, so a
killed run goes on where it stopped); the DMV's other flags are refused. The
same training runs as a shell loop of estep, nbhd | estep and ce-step (ce-step
--start --family modelu; examples/ce/loop.sh). --spelling adds §4.8.3's features: a tag linked to a word with a 1–3
character prefix or suffix, on either side (letters lowercased, digits 0).
--sigma2 A,B,… trains Model U at each σ² of the list in one run, the
sentences' chains and neighbourhoods built once (on UD Turkish ≤ 10 about
a fifth of a run's CPU without spelling, an eighth with), each model
written where -o has its σ² in place of {sigma2} (a single σ² too), all
once all are trained, each the one a run of that σ² alone writes; not
with --log, --run-dir and --save-every.
Only features that fire on a pair of words of a training sentence are
weighted (Smith's footnote 17). Built with GOEXPERIMENT=simd (make build) on a
CPU with AVX-512, the charts of lattices of one shape are filled eight at a
time; the model is the same to the bit. The model written is family "modelu": decode
writes the best undirected tree as "pred", its edges oriented away from the
first word, so score's undirected accuracy is Model U's (Smith reports only
that) and its directed accuracy that of this reading.

The log (--log) has one line per L-BFGS iteration, the first being the start;
objective is the one maximised (with the prior); with --delta0, delta and
(annealed) stage are on every line.

Examples:
   train-ce --nbhd del1ortrans1 wsj10.jsonl > ce.jsonl
   train-ce --nbhd length --sigma2 1 --log ce.log wsj10.jsonl -o ce-length.jsonl
   train-ce --delta0 -0.2 --delta-final 0 --delta-step 0.1 wsj10.jsonl > ce-l.jsonl
   decode -m ce.jsonl test10.jsonl | score
   train-ce --family modelu --nbhd trans2 --sigma2 0.4642 --spelling wsj10.jsonl -o u.jsonl
   decode -m u.jsonl test10.jsonl | score --root exclude   # Smith's undirected accuracy
   train-ce --family modelu --nbhd trans1 --sigma2 0.4642,1,inf wsj10.jsonl -o 'u-s{sigma2}.jsonl'
   train-ce --family modelu --spelling --run-dir runs/u wsj10.jsonl -o u.jsonl
   train-ce --resume runs/u        # after a kill: the same u.jsonl

` + commands.ProgressHelp,
		Flags: slices.Concat(commands.TrainFlags(dmv.DefaultInit), commands.RunDirFlags(), []cli.Flag{
			&cli.StringFlag{Name: "nbhd", Value: nbhd.Del1OrTrans1, Usage: "the neighbourhood, `KIND`: " + strings.Join(nbhd.Kinds, ", ")},
			&cli.StringFlag{Name: "sigma2", Value: "inf", Usage: "variance `σ²` of the Gaussian prior on every weight (inf: none); Model U: a list A,B,… (-o with {sigma2})"},
			&cli.Float64Flag{Name: "tol", Value: lbfgs.DefaultTol, Usage: "stop when the objective changes by less than `T`, relatively (0 runs to --max-iter)"},
		}, program.InCategory("Model L: locality bias, annealed with --delta-final",
			&cli.Float64Flag{Name: "delta0", Usage: "Model L: each edge of length d multiplied by e^{`δ`·d}, in training only (the first δ when annealing)"},
			&cli.Float64Flag{Name: "delta", Hidden: true, Usage: "`δ`: the old name of --delta0"}, // as train-sa spells it
			&cli.Float64Flag{Name: "delta-final", Usage: "anneal δ from --delta0 to this `δ_f` (the last stage)"},
			&cli.Float64Flag{Name: "delta-step", Value: 0.1, Usage: "annealing: δ += `Δδ` after each stage"},
		), program.InCategory("Model U: undirected trees (Smith §4.8)",
			&cli.StringFlag{Name: "family", Value: "dmv", Usage: "the model, `NAME`: dmv (the log-linear DMV; Model L with --delta0) or modelu (Smith's Model U; U for short)"},
			&cli.BoolFlag{Name: "spelling", Usage: "Model U: add Smith's spelling features (a tag linked to a word with a 1–3 character prefix or suffix; the words are read)"},
		)),
		Action: func(c *cli.Context) error {
			switch strings.ToLower(c.String("family")) {
			case "dmv":
				if c.Bool("spelling") {
					return program.Usagef("--spelling is Model U's: give --family modelu")
				}
				if strings.Contains(c.String("output"), sigma2Slot) {
					return program.Usagef("-o %s: a name with %s is for Model U's list of σ² (--family modelu)", c.String("output"), sigma2Slot)
				}
			case "modelu", "u":
				return trainModelU(c)
			default:
				return program.Usagef("unknown --family %q (want dmv or modelu)", c.String("family"))
			}
			opts, err := ceOptions(c)
			if err != nil {
				return err
			}
			deltas, err := opts.Deltas()
			if err != nil {
				return program.Usagef("%v", err)
			}
			// Each stage logs its start and at most --max-iter L-BFGS iterations.
			plan := progress.Plan{MaxIter: c.Int("max-iter") + 1, NoCrossEntropy: true}
			if len(deltas) > 1 {
				plan.Stages = len(deltas)
			}
			job, err := commands.TrainJob(c, plan)
			if err != nil {
				return err
			}
			opts.MaxMemory = job.MaxMemory // each neighbourhood's chart's too
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return lbfgs.Run(src, w, job, opts)
			})
		},
	}
}

func ceOptions(c *cli.Context) (lbfgs.Options, error) { return ceOptionsAt(c, c.String("sigma2")) }

// ceOptionsAt is ceOptions at σ² sigma2 (one of --sigma2's list).
func ceOptionsAt(c *cli.Context, sigma2 string) (lbfgs.Options, error) {
	opts := lbfgs.Options{Kind: c.String("nbhd")}
	if !nbhd.Known(opts.Kind) {
		return opts, program.Usagef("unknown --nbhd %q (want one of %s)", opts.Kind, strings.Join(nbhd.Kinds, ", "))
	}
	var err error
	opts.Settings, err = ceSettingsAt(c, sigma2)
	return opts, err
}

// ceSettings reads what CE optimises and how far: train-ce's and ce-step
// --start's --sigma2, --max-iter, --tol and Model L's δ flags.
func ceSettings(c *cli.Context) (lbfgs.Settings, error) { return ceSettingsAt(c, c.String("sigma2")) }

func ceSettingsAt(c *cli.Context, sigma2 string) (lbfgs.Settings, error) {
	opts := lbfgs.Settings{Delta: c.Float64("delta0"), MaxIter: c.Int("max-iter"), Tol: c.Float64("tol")}
	if c.IsSet("delta") {
		if c.IsSet("delta0") {
			return opts, program.Usagef("--delta is the old name of --delta0: give one")
		}
		opts.Delta = c.Float64("delta")
	}
	if math.IsNaN(opts.Delta) || math.IsInf(opts.Delta, 0) {
		// It would reach the charts and be reported as sentences too long
		// for them.
		return opts, program.Usagef("--delta0 must be a finite number, not %v", opts.Delta)
	}
	s := strings.ToLower(sigma2)
	if s == "inf" || s == "+inf" {
		opts.Sigma2 = math.Inf(1)
	} else {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) {
			if strings.Contains(sigma2, ",") {
				return opts, program.Usagef("--sigma2 %s: a list of σ² is Model U's (--family modelu)", sigma2)
			}
			return opts, program.Usagef("--sigma2 must be a positive number or inf, not %q", sigma2)
		}
		opts.Sigma2 = v
	}
	if c.Int("max-iter") < 1 {
		return opts, program.Usagef("--max-iter must be at least 1")
	}
	tol, err := commands.Tolerance(c)
	if err != nil {
		return opts, err
	}
	if c.IsSet("tol") {
		opts.Tol = tol // 0 runs to --max-iter
	}
	if c.IsSet("delta-final") {
		opts.DeltaFinal, opts.DeltaStep = c.Float64("delta-final"), c.Float64("delta-step")
		if opts.DeltaFinal == opts.Delta {
			opts.DeltaStep = 0 // one stage
		} else if opts.DeltaStep == 0 || (opts.DeltaFinal-opts.Delta)*opts.DeltaStep < 0 {
			return opts, program.Usagef("--delta-step %g does not lead from δ = %g to %g", opts.DeltaStep, opts.Delta, opts.DeltaFinal)
		}
	}
	return opts, nil
}

// modelUFlags are the flags train-ce --family modelu takes; the others
// are the DMV's.
var modelUFlags = map[string]bool{"family": true, "spelling": true, "nbhd": true, "sigma2": true, "tol": true,
	"max-iter": true, "workers": true, "max-memory": true, "log": true, "output": true, "quiet": true, "init": true,
	"run-dir": true, "resume": true, "save-every": true, "save-dir": true}

// trainModelU trains Smith's Model U (stages/modelu) from weights 0.
func trainModelU(c *cli.Context) error {
	for _, f := range c.App.Flags {
		if name := f.Names()[0]; c.IsSet(name) && !modelUFlags[name] {
			return program.Usagef("--%s is the DMV's: Model U (--family modelu) takes --nbhd, --sigma2, --spelling, --tol, --max-iter, --log, --save-every, --save-dir, --run-dir, --resume, --workers, --max-memory, -o", name)
		}
	}
	if c.IsSet("init") && c.String("init") != "zero" {
		return program.Usagef("--init %s: Model U starts from the weight vector 0 (Smith's Zero), --init zero", c.String("init"))
	}
	// A list of σ² (or an -o with {sigma2}) is a grid: one training a σ²
	// over neighbourhoods built once, each model where -o has its σ².
	sigma2s := strings.Split(c.String("sigma2"), ",")
	out := c.String("output")
	grid := len(sigma2s) > 1 || strings.Contains(out, sigma2Slot)
	switch {
	case grid && !strings.Contains(out, sigma2Slot):
		return program.Usagef("--sigma2 %s: give -o a name with %s, where each σ² goes (-o u-s%s.jsonl)", c.String("sigma2"), sigma2Slot, sigma2Slot)
	case grid && (c.IsSet("run-dir") || c.IsSet("resume") || c.IsSet("log") || c.IsSet("save-every") || c.IsSet("save-dir")):
		return program.Usagef("--sigma2 %s: a list of σ² trains without --run-dir, --resume, --log and --save-every (run each σ² alone for them)", c.String("sigma2"))
	}
	var run modelu.RunOptions
	values, paths := make([]float64, len(sigma2s)), make([]string, len(sigma2s))
	for i, s := range sigma2s {
		opts, err := ceOptionsAt(c, s)
		if err != nil {
			return err
		}
		run = modelu.RunOptions{Kind: opts.Kind, Spelling: c.Bool("spelling"), Sigma2: opts.Sigma2, MaxIter: c.Int("max-iter"), Tol: opts.Tol}
		values[i], paths[i] = opts.Sigma2, strings.ReplaceAll(out, sigma2Slot, s)
		if slices.Contains(paths[:i], paths[i]) {
			return program.Usagef("--sigma2 %s: %s twice", c.String("sigma2"), s)
		}
	}
	job, err := commands.TrainJob(c, progress.Plan{MaxIter: c.Int("max-iter") + 1, NoCrossEntropy: true})
	if err != nil {
		return err
	}
	src := program.Source(c)
	if !grid {
		return program.WriteOutput(c, src, func(w io.Writer) error {
			return modelu.Run(src, w, job, run)
		})
	}
	// Every output made before the training, so that a folder that
	// cannot be written is said at once and SIGINT leaves none; none
	// placed unless all are trained.
	outs := make([]*pipeline.Output, len(paths))
	for i, p := range paths {
		if outs[i], err = pipeline.Create(p, nil); err != nil {
			return err
		}
		defer outs[i].Abort()
	}
	err = modelu.RunGrid(src, job, run, values, func(i int, m *modelu.Model) error { return m.Write(outs[i]) })
	if err != nil {
		return err
	}
	return pipeline.CommitAll(outs...)
}

// sigma2Slot is where -o names each σ² of a list.
const sigma2Slot = "{sigma2}"
