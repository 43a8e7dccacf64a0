package cecmd

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands"
	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/ce/lbfgs"
	"github.com/grind-nlp/grind/stages/cesearch"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/hmmce"
	"github.com/grind-nlp/grind/stages/modelu"
	"github.com/grind-nlp/grind/stages/nbhd"
)

func init() { program.Register("ce-step", ceStepApp) }

// startFlags are ce-step's flags that only --start takes: a step reads its
// settings from the state.
var startFlags = []string{"init", "klein-const", "model", "seed", "max-iter", "tol", "sigma2",
	"delta0", "delta", "delta-final", "delta-step", "workers", "skip-bad", "states", "spelling", "noise", "family", "nbhd"}

// dmvOnly are --start's flags of the DMV's training alone; hmmOnly the
// HMM's (--states); modelUFlags those Model U's start takes.
var (
	dmvOnly          = []string{"init", "klein-const", "model", "delta0", "delta", "delta-final", "delta-step", "workers"}
	hmmOnly          = []string{"spelling", "noise"}
	modelUStartFlags = map[string]bool{"family": true, "nbhd": true, "spelling": true, "sigma2": true, "max-iter": true, "tol": true,
		"start": true, "state": true, "log": true, "output": true, "quiet": true, "max-memory": true, "skip-bad": true}
)

func ceStepApp() *cli.App {
	var flags []cli.Flag
	for _, f := range commands.TrainFlags(dmv.DefaultInit) {
		if name := f.Names()[0]; slices.Contains(startFlags, name) || name == "max-memory" || name == "output" || name == "quiet" {
			flags = append(flags, f)
		}
	}
	return &cli.App{
		Usage:     "one step of contrastive estimation's L-BFGS, from two count files and a state file (CE as a shell loop)",
		UsageText: "ce-step --state STATE [options] (SENTENCE-COUNTS LATTICE-COUNTS | --start CORPUS...)",
		Description: `Contrastive estimation (train-ce) composed from programs. train-ce maximises
   Σ log Z(x) − log Z(N(x)) − Σ w²/(2σ²)
by L-BFGS; its two sums and their gradients are E-steps that estep makes apart
(over the sentences, and over their neighbourhoods from nbhd), so they can run
anywhere, sharded; ce-step takes the optimiser's step between them and keeps
L-BFGS's state in a file (--state). The loop, from train-ce's start to its
end, gives train-ce's model (to summation order: the E-steps add in another
order):

   ce-step --start --init km --state ce.state -o w.jsonl corpus.jsonl
   nbhd --kind del1ortrans1 corpus.jsonl > lattices.jsonl
   while [ "$(jq -r .status ce.state)" = evaluate ]; do
      estep -m w.jsonl corpus.jsonl > sentences.counts
      estep -m w.jsonl lattices.jsonl > lattices.counts
      ce-step --state ce.state --log ce.log sentences.counts lattices.counts -o w.jsonl
   done          # w.jsonl is the trained model

With --start --states K the training is train-hmm --estimator ce's instead:
a log-linear HMM over the words (its model "w", family hmm), the sentences'
neighbourhoods from nbhd --words (--spelling, --noise, --seed as train-hmm's).

With --start --family modelu it is train-ce --family modelu's: Smith's Model U
from weights 0 (--nbhd names the neighbourhood, written in the model's header;
--spelling adds the spelling features, whose neighbourhoods are nbhd
--spelling's lattices of tagged words; --sigma2, --max-iter, --tol):
   ce-step --start --family modelu --nbhd trans1 --spelling --state u.state -o u.jsonl corpus.jsonl
   nbhd --kind trans1 --spelling corpus.jsonl > lattices.jsonl
   (then the loop above, estep -m u.jsonl on both sides)

--start reads the corpus as train-ce does and takes train-ce's settings (the
start: --init or -m; --sigma2, --max-iter, --tol, Model L's --delta0,
--delta-final, --delta-step), writes the state and the first weights to
evaluate: the start. Each step then reads the counts of those weights over the
sentences and over their neighbourhoods, in that order, hands L-BFGS the
objective and gradient they make, and writes the next weights to evaluate —
a trial point of its line search, or the next iterate — or, once the training
has ended, its result; the state's status says which ("evaluate" or "done"),
and its delta the --delta the next E-steps take (Model L). Counts of other
weights, of other sentences or of other neighbourhoods than the last step's
are refused. Without count files, a step writes the weights the state waits
for again (or the result) and changes nothing: after a crash between the
state and -o, that is how the loop goes on.

The state is one JSON record (see README, "ce-step"): jq reads its status,
stage, delta, iteration, evaluations and objective; it holds the last 16
accepted points and their gradients (L-BFGS's memory) and the values and
derivatives the line search under way has seen. --log FILE appends one line
per accepted iteration, as train-ce's log has it (--start empties it).

Examples:
   ce-step --start -m start.jsonl --sigma2 1 --state ce.state -o w.jsonl corpus.jsonl
   ce-step --start --delta0 -0.2 --delta-final 0 --delta-step 0.1 --state ce.state -o w.jsonl corpus.jsonl
      (then estep --delta "$(jq .delta ce.state)" on both sides)
   ce-step --state ce.state -o w.jsonl      # the weights the state waits for, again`,
		Flags: append(flags,
			&cli.BoolFlag{Name: "start", Usage: "begin a training: read the CORPUS, write the state and the first weights to evaluate"},
			&cli.StringFlag{Name: "state", Required: true, Usage: "the training's state file `STATE`, read and replaced (made by --start)"},
			&cli.StringFlag{Name: "log", Usage: "append one JSON line per accepted iteration to `FILE` (--start empties it)"},
			&cli.StringFlag{Name: "sigma2", Value: "inf", Usage: "--start: variance `σ²` of the Gaussian prior on every weight (inf: none)"},
			&cli.Float64Flag{Name: "tol", Value: lbfgs.DefaultTol, Usage: "--start: stop when the objective changes by less than `T`, relatively (0 runs to --max-iter)"},
			&cli.Float64Flag{Name: "delta0", Usage: "--start: Model L, each edge of length d multiplied by e^{`δ`·d} (the first δ when annealing)"},
			&cli.Float64Flag{Name: "delta", Hidden: true, Usage: "`δ`: the old name of --delta0"},
			&cli.Float64Flag{Name: "delta-final", Usage: "--start: anneal δ from --delta0 to this `δ_f` (the last stage)"},
			&cli.Float64Flag{Name: "delta-step", Value: 0.1, Usage: "--start: annealing, δ += `Δδ` after each stage"},
			&cli.IntFlag{Name: "states", Usage: "--start: train a log-linear HMM of `K` states on the words, as train-hmm --estimator ce (not the DMV)"},
			&cli.BoolFlag{Name: "spelling", Usage: "--start --states or --family modelu: spelling features (train-hmm's or train-ce's --spelling)"},
			&cli.StringFlag{Name: "family", Value: "dmv", Usage: "--start: the model, `NAME`: dmv (train-ce's log-linear DMV) or modelu (train-ce --family modelu's Model U; U for short)"},
			&cli.StringFlag{Name: "nbhd", Value: nbhd.Del1OrTrans1, Usage: "--start --family modelu: the neighbourhood `KIND` the model is trained with (its header names it; nbhd makes the lattices)"},
			&cli.Float64Flag{Name: "noise", Value: 1, Usage: "--start --states: the start's weights uniform in [0, `NOISE`) (train-hmm's)"},
		),
		Action: func(c *cli.Context) error {
			if err := program.CheckWorkers(c); err != nil {
				return err
			}
			state := c.String("state")
			files := program.FlagFiles(c)
			files.Outputs = append(files.Outputs, program.Output{Flag: "--state", Path: state})
			if err := program.CheckFiles(c, files); err != nil {
				return err
			}
			if c.Bool("start") {
				switch strings.ToLower(c.String("family")) {
				case "modelu", "u":
					return modelUStart(c, state)
				case "dmv":
				default:
					return program.Usagef("unknown --family %q (want dmv or modelu)", c.String("family"))
				}
				if c.IsSet("nbhd") {
					return program.Usagef("--nbhd is Model U's (--family modelu): the DMV's neighbourhood is the lattices given to estep")
				}
				if c.IsSet("states") {
					return hmmStart(c, state)
				}
				for _, name := range hmmOnly {
					if c.IsSet(name) {
						return program.Usagef("--%s is the HMM's (--states K)", name)
					}
				}
				return ceStart(c, state)
			}
			for _, name := range startFlags {
				if c.IsSet(name) {
					return program.Usagef("--%s is for --start: a step takes its settings from the state", name)
				}
			}
			args := c.Args().Slice()
			if len(args) != 0 && len(args) != 2 {
				return program.Usagef("a step reads two count files, the sentences' and then their neighbourhoods' (or none, to write the weights the state waits for); not %d", len(args))
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			var sents, lats string
			if len(args) == 2 {
				sents, lats = args[0], args[1]
			}
			var report io.Writer
			if !c.Bool("quiet") {
				report = c.App.ErrWriter
			}
			var log func(it format.Iteration) error
			if path := c.String("log"); path != "" {
				log = func(it format.Iteration) error { return appendRecord(path, it) }
			}
			step := cesearch.Step{State: state, Sentences: sents, Lattices: lats, MaxMemory: limit, Log: log, Report: report}
			run := lbfgs.Step{Step: step}.Run
			switch cesearch.Family(state) {
			case hmm.Family:
				run = hmmce.Step{Step: step}.Run
			case modelu.Family:
				run = modelu.Step{Step: step}.Run
			}
			return program.WriteOutput(c, pipeline.Source{}, run)
		},
	}
}

// ceStart is ce-step --start.
func ceStart(c *cli.Context, state string) error {
	opts, err := ceSettings(c)
	if err != nil {
		return err
	}
	if _, err := opts.Deltas(); err != nil {
		return program.Usagef("%v", err)
	}
	job, err := commands.StartJob(c)
	if err != nil {
		return err
	}
	if path := c.String("log"); path != "" {
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			return fmt.Errorf("--log: %w", err)
		}
	}
	src := program.Source(c)
	return program.WriteOutput(c, src, func(w io.Writer) error {
		return lbfgs.Begin(src, w, state, job, opts)
	})
}

// hmmStart is ce-step --start --states: train-hmm --estimator ce's start.
func hmmStart(c *cli.Context, state string) error {
	for _, name := range dmvOnly {
		if c.IsSet(name) {
			return program.Usagef("--%s is the DMV's: with --states the training is train-hmm --estimator ce's", name)
		}
	}
	if err := program.First(program.CheckInt(c, "states", 1), program.CheckInt(c, "max-iter", 1),
		program.CheckFloat(c, "noise", program.Positive, "a finite number > 0 (the zero vector is a symmetric point)"),
		program.CheckFloat(c, "tol", program.NonNegative, "a finite number ≥ 0")); err != nil {
		return err
	}
	settings, err := ceSettings(c)
	if err != nil {
		return err
	}
	o := hmmce.StartOptions{States: c.Int("states"), Spelling: c.Bool("spelling"), Seed: c.Uint64("seed"), Noise: c.Float64("noise"),
		Sigma2: settings.Sigma2, MaxIter: c.Int("max-iter")}
	if c.IsSet("tol") { // train-hmm's default: 0, run every iteration
		o.Tol = c.Float64("tol")
	}
	if path := c.String("log"); path != "" {
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			return fmt.Errorf("--log: %w", err)
		}
	}
	src := program.Source(c)
	return program.WriteOutput(c, src, func(w io.Writer) error { return hmmce.Begin(src, w, state, o) })
}

// modelUStart is ce-step --start --family modelu: train-ce --family
// modelu's start.
func modelUStart(c *cli.Context, state string) error {
	for _, f := range c.App.Flags {
		if name := f.Names()[0]; c.IsSet(name) && !modelUStartFlags[name] {
			return program.Usagef("--%s is not Model U's: ce-step --start --family modelu takes --nbhd, --spelling, --sigma2, --max-iter, --tol", name)
		}
	}
	opts, err := ceOptions(c)
	if err != nil {
		return err
	}
	if opts.Kind == nbhd.Length && c.Bool("spelling") {
		return program.Usagef("--spelling --nbhd length: Model U's spelling features need the words, and length's strings have none")
	}
	if path := c.String("log"); path != "" {
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			return fmt.Errorf("--log: %w", err)
		}
	}
	o := modelu.StartOptions{Kind: opts.Kind, Spelling: c.Bool("spelling"), Sigma2: opts.Sigma2, MaxIter: c.Int("max-iter"), Tol: opts.Tol}
	src := program.Source(c)
	return program.WriteOutput(c, src, func(w io.Writer) error { return modelu.Begin(src, w, state, o) })
}

// appendRecord appends rec to the file at path as one JSON line.
func appendRecord(path string, rec any) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("--log: %w", err)
	}
	if err := pipeline.WriteRecord(f, rec); err != nil {
		f.Close()
		return fmt.Errorf("--log: %w", err)
	}
	return f.Close()
}
