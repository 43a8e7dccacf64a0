package commands

import (
	"errors"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/pr"
	"github.com/grind-nlp/grind/stages/train"
)

func init() { program.Register("train-em", WithRunDir(trainEMApp)) }

// TrainFlags are the flags every training loop shares (train-ce's too).
func TrainFlags(defaultInit string) []cli.Flag {
	return append(program.InCategory(startCategory, initFlag(defaultInit), kleinConstFlag(), program.ModelFlag(false), seedFlag()),
		&cli.IntFlag{Name: "max-iter", Value: train.DefaultMaxIter, Usage: "`N` iterations at most (per stage, for the annealers)"},
		program.WorkersFlag(), program.MaxMemoryFlag(),
		&cli.StringFlag{Name: "log", Usage: "write one JSON line per iteration to `FILE` (objective, change, seconds; accuracy when the corpus has gold heads)"},
		&cli.IntFlag{Name: "save-every", Usage: "save the model every `K` iterations (iter-NNNN.jsonl in --save-dir)"},
		&cli.StringFlag{Name: "save-dir", Value: ".", Usage: "the `DIR` --save-every writes to (made if missing)"},
		program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
	)
}

// streamFlag is the trainers' choice between holding the corpus and
// reading it again on every pass.
func streamFlag() cli.Flag {
	return &cli.BoolFlag{Name: "stream", Usage: "read the corpus FILEs again on every pass instead of holding them: memory independent of the corpus's size, the same model (plain files, not stdin or compressed input)"}
}

// TrainJob reads the shared training flags.
func TrainJob(c *cli.Context, plan progress.Plan) (train.Job, error) {
	if err := program.First(program.CheckWorkers(c), program.CheckModelFiles(c.String("model")),
		program.CheckInt(c, "max-iter", 1), program.CheckInt(c, "save-every", 0)); err != nil {
		return train.Job{}, err
	}
	bound, err := depthBound(c)
	if err != nil {
		return train.Job{}, err
	}
	limit, err := program.MaxMemory(c)
	if err != nil {
		return train.Job{}, err
	}
	if c.String("model") == "" {
		if err := checkInit(c); err != nil {
			return train.Job{}, err
		}
	}
	if c.Int("save-every") > 0 {
		if err := checkSaveDir(c, c.String("save-dir")); err != nil {
			return train.Job{}, err
		}
	}
	if c.Bool("stream") {
		if err := dmv.CheckStreamable(c.Args().Slice()); err != nil {
			if errors.Is(err, dmv.ErrNotSeekable) {
				return train.Job{}, program.Usagef("--stream: %v", err)
			}
			return train.Job{}, err
		}
	}
	dir, resume, err := runDir(c)
	if err != nil {
		return train.Job{}, err
	}
	logPath, err := reserveLog(c)
	if err != nil {
		return train.Job{}, err
	}
	return train.Job{
		Init: c.String("init"), StartModel: c.String("model"), Seed: c.Uint64("seed"), KleinConst: c.Float64("klein-const"),
		Workers: c.Int("workers"), LogPath: logPath,
		SaveEvery: c.Int("save-every"), SaveDir: c.String("save-dir"),
		Progress: newProgress(c, plan), Evaluate: attachmentAccuracy,
		RunDir: dir, Resume: resume, Stream: c.Bool("stream"), Bound: bound, MaxMemory: limit,
	}, nil
}

// StartJob reads the flags of a training's start (TrainFlags' --init, -m,
// --seed, --klein-const, --workers, --max-memory) for a program that
// makes the start and no more (ce-step --start): no log, run directory
// or saved models.
func StartJob(c *cli.Context) (train.Job, error) {
	if err := program.First(program.CheckWorkers(c), program.CheckModelFiles(c.String("model")), program.CheckInt(c, "max-iter", 1)); err != nil {
		return train.Job{}, err
	}
	limit, err := program.MaxMemory(c)
	if err != nil {
		return train.Job{}, err
	}
	if c.String("model") == "" {
		if err := checkInit(c); err != nil {
			return train.Job{}, err
		}
	}
	return train.Job{
		Init: c.String("init"), StartModel: c.String("model"), Seed: c.Uint64("seed"), KleinConst: c.Float64("klein-const"),
		Workers: c.Int("workers"), MaxMemory: limit, Progress: newProgress(c, progress.Plan{}),
	}, nil
}

// depthBound reads --max-depth and --max-chunk (program.DepthFlags; none
// for the programs without them).
func depthBound(c *cli.Context) (dmv.DepthBound, error) {
	max, chunk, err := program.DepthBound(c)
	return dmv.DepthBound{Max: max, Chunk: chunk}, err
}

func trainEMApp() *cli.App {
	return &cli.App{
		Usage:     "train a DMV by EM, MAP/EM, Viterbi EM or variational Bayes",
		UsageText: "train-em [options] [FILE...]",
		Description: `Reads the corpus once and runs E and M steps in-process, in parallel over
sentences, until the log-likelihood changes by less than --tol (relative) or
--max-iter iterations; writes the model. The result equals the shell loop
"estep -m M | mstep > M" run as many times, from dmv-init's model (with
--init zero, whose θ⁽⁰⁾ is a table of weights 1 and not a model, the first
iteration is the E-step on those weights and dmv-init writes its M-step: the
shell loop from it is one iteration behind).

--rules and --sparsity make it EM for posterior regularization (Ganchev et
al. 2010): each E-step's posterior is projected onto distributions whose
expected dependencies obey universal rules (Naseem et al. 2010: at least
--rule-share of them instantiate a rule of the table) or pay the L1/L∞
sparsity penalty σ on (child tag, parent tag) types (Gillenwater et al. 2010).
--dual-rule says how much of the projection's dual each E-step solves: exact
(the default: every projection solved, within --dual-steps, to --dual-tol —
pr-toolkit's rules, the default for --rules and with --dual-rule exact — or
until the duality gap is at most --dual-gap G times the dual's value, tested
first where the last projection ended — the default for --sparsity, G = 0.03)
or interleaved (one E-step an iteration, the dual taking one projected-gradient
step between iterations as the model takes its M-step, and line-searched steps
only when the objective — then the primal bound F(q, θ) ≤ J(θ) — would fall;
exact where both settle; --sparsity's default before 29 November 2026).

--hard is Viterbi EM: counts of each sentence's best tree, stopping (Spitkovsky
et al. 2010) when per-token cross-entropy changes by less than --tol bits
(default 2^-20). --stop bits applies that rule to any estimator ("iterating
each run until successive changes in overall per-token cross-entropy drop
below 2^-20 bits", Spitkovsky et al.'s §4, classic EM included); --stop
relative is the relative change of the objective (the default but for --hard).
--ties chooses among a sentence's equally good best trees (from --init uniform
every tree of a sentence is, so the first E-step is decided by it): left,
grind's deterministic rule (the default); random, one best tree drawn
uniformly, seeded by --seed and the sentence's position; split, every best
tree with an equal share of the counts. The shell loop is estep --hard --ties.
   train-em --init uniform --hard --lambda 1 --ties random --seed 7 wsj15.jsonl > viterbi.jsonl
--lambda adds λ to every count in each M-step (MAP with a symmetric
Dirichlet); --final-lambda smooths the last counts once more before the model
is written.

--estimator vb is mean-field variational Bayes with a symmetric
Dirichlet(--alpha) prior on every multinomial: each M-step (the initializer's
included: dmv-init --vb) writes the weights exp ψ(n + α) / exp ψ(Σn + K·α),
which sum to less than 1 and which the next E-step and decode take as they
are; the objective is the variational bound after each M-step, which never
decreases, and the model carries it in its header. It equals the shell loop
"estep -m M | mstep --vb --alpha α -m M > M" from dmv-init --vb's model.
--final-lambda α writes the posterior mean of θ instead (a normalised model).

Examples:
   train-em wsj10.jsonl > model.jsonl                  # from the km start
   train-em --lambda 0.2154 --log map.log wsj10.jsonl -o map.jsonl
   train-em --init uniform --hard --lambda 1 wsj10.jsonl > viterbi.jsonl
   train-em --estimator vb --alpha 0.1 --log vb.log wsj10.jsonl > vb.jsonl
   train-em -m init.jsonl --max-iter 10 wsj10.jsonl > model10.jsonl
   train-em --rules ud ud10.jsonl > rules.jsonl           # universal rules, UD tags
   train-em --rules ud1 --print-rules > my.rules          # a built-in table, to edit
   train-em --sparsity 10 wsj10.jsonl > sparse.jsonl      # posterior sparsity
   train-em --sparsity 10 --dual-rule exact wsj10.jsonl > s.jsonl  # every projection solved
   train-em --sparsity 10 --dual-gap 3e-2 wsj10.jsonl > g.jsonl     # solved to a duality gap
   train-em --run-dir run1 wsj10.jsonl > model.jsonl   # recorded; if killed:
   train-em --resume run1 > model.jsonl                # the same model, byte for byte
   train-em --child-valence 2 --child-backoff 0.33 wsj10.jsonl > evg.jsonl
   train-em --child-valence 2 --lambda 1 --learn-backoff wsj10.jsonl > evg-learned.jsonl
   train-em --child-valence 2 --learn-backoff --backoff-forget valence --backoff-prior 10,1 wsj10.jsonl

--stop-valence and --child-valence train a DMV with more valences (Headden,
Johnson & McClosky 2009's extended valence grammar is --child-valence 2; see
README, "Extended valence"); --child-backoff W interpolates every child
distribution with one that forgets the head after each M-step (pr-toolkit's
fixed weight). --learn-backoff learns the interpolation instead (Headden et al.;
README, "Learned back-off"): each argument comes from its head's distribution
or from a back-off that forgets the head (--backoff-forget head, the default) or
the valence (valence), a hidden choice whose weight per head, side and valence
EM learns with --backoff-prior FULL,BACK pseudo-counts (default 1,10). With -m
the model's own valences are kept, and a model that learns its back-off goes on
learning it.

--max-depth D restricts every E-step (and --hard's Viterbi trees) to the trees
whose left-corner parse needs at most D stack levels (Noji, Miyao & Johnson
2016): the loop climbs the log-likelihood of those trees, and the model written
is a plain DMV (decode parses with it unbounded unless given --max-depth too).
--max-chunk N lets center embeddings of at most N words pass.
   train-em --max-depth 1 --max-chunk 3 ud15.jsonl > lc.jsonl

--run-dir DIR writes run.json (grind's version, host, times, command line,
every flag's value as used, every input's SHA-256), iterations.jsonl (as
--log), checkpoint.json after every iteration and model.jsonl; --resume DIR
alone continues a killed run with the flags and inputs run.json records (their
hashes checked), or given them again (--workers, --quiet, -o, --save-every,
--save-dir and --stream may differ). A run that reads stdin is recorded but
cannot be resumed.

` + ProgressHelp,
		Flags: slices.Concat(TrainFlags(dmv.DefaultInit), RunDirFlags(), []cli.Flag{
			streamFlag(),
			&cli.StringFlag{Name: "estimator", Value: "em", Usage: "the `ESTIMATOR`: em (EM, MAP/EM with --lambda, Viterbi EM with --hard) or vb (variational Bayes)"},
			&cli.Float64Flag{Name: "final-lambda", Value: -1, Usage: "one more M-step with this add-`λ` before the model is written (-1: none)"},
			&cli.Float64Flag{Name: "tol", DefaultText: "1e-5; 2^-20 with --hard or --stop bits", Usage: "stopping threshold `T`: the relative change of the log-likelihood (with --hard or --stop bits, the change of bits per token); 0 runs to --max-iter"},
		}, program.InCategory(emCategory,
			program.LambdaFlag("add-λ smoothing in every M-step (0: maximum likelihood)"),
			&cli.BoolFlag{Name: "hard", Usage: "Viterbi EM: counts of each sentence's best tree"},
			&cli.StringFlag{Name: "ties", Value: string(dmv.TiesLeft), Usage: "--hard: among equally good best trees take the `RULE`'s: left (grind's deterministic rule), random (one drawn uniformly, seeded by --seed) or split (all of them, their counts shared equally)"},
			stopFlag("relative; bits with --hard"),
		), program.InCategory(vbCategory,
			program.AlphaFlag(dmv.DefaultAlpha, "vb: the symmetric Dirichlet hyperparameter α (> 0) of every multinomial"),
		), prFlags(), program.InCategory(program.PRCategory,
			&cli.BoolFlag{Name: "print-rules", Usage: "print the table --rules names, a rule a line (the rule FILE format), and exit: a built-in table to start a file of your own"},
		), valenceFlags(), depthFlags()),
		Action: func(c *cli.Context) error {
			if c.Bool("print-rules") {
				return printRules(c)
			}
			if err := program.CheckLambda(c); err != nil {
				return err
			}
			tol, err := Tolerance(c)
			if err != nil {
				return err
			}
			stop, err := stopRule(c)
			if err != nil {
				return err
			}
			if c.Bool("hard") {
				setUsedTol(c, train.DefaultHardTol)
			} else {
				setUsedTol(c, train.DefaultTol)
			}
			prOpts, err := program.PROptions(c)
			if err != nil {
				return err
			}
			ties, err := dmv.ParseTies(c.String("ties"))
			switch {
			case err != nil:
				return program.Usagef("--ties: %v", err)
			case c.IsSet("ties") && !c.Bool("hard"):
				return program.Usagef("--ties breaks ties among Viterbi EM's best trees: with --hard")
			}
			if prOpts.On() && c.Bool("hard") {
				return program.Usagef("posterior regularization (--rules, --sparsity) projects the posterior over trees: not with --hard")
			}
			est := c.String("estimator")
			if est != "em" && est != "vb" {
				return program.Usagef("--estimator must be em or vb, not %q", est)
			}
			alpha, err := program.VBAlpha(c, est == "vb", "--estimator vb")
			if err != nil {
				return err
			}
			if alpha > 0 && prOpts.On() {
				return program.Usagef("--estimator vb's bound does not hold for a projected posterior: not with --rules or --sparsity")
			}
			if alpha > 0 && c.Bool("hard") {
				return program.Usagef("--hard is Viterbi EM's; --estimator vb takes expected counts")
			}
			job, err := TrainJob(c, progress.Plan{MaxIter: c.Int("max-iter")})
			if err != nil {
				return err
			}
			job.VBAlpha = alpha
			if job.Valence, job.ChildBackoff, err = readValence(c); err != nil {
				return err
			}
			if job.LearnBackoff, err = readLearnBackoff(c); err != nil {
				return err
			}
			if alpha > 0 && (job.Valence != (dmv.Valence{}) || job.ChildBackoff > 0 || job.LearnBackoff != nil) {
				return program.Usagef("--estimator vb trains the DMV: not with --stop-valence, --child-valence, --child-backoff or --learn-backoff")
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return train.RunEM(src, w, job, train.EMOptions{
					Lambda: c.Float64("lambda"), FinalLambda: c.Float64("final-lambda"),
					Hard: c.Bool("hard"), Ties: ties, MaxIter: c.Int("max-iter"), Tol: tol, Stop: stop, PR: prOpts,
				})
			})
		},
	}
}

// printRules writes the rule table --rules names in the rule-file format,
// as tagmap --print-table writes its map.
func printRules(c *cli.Context) error {
	switch {
	case !c.IsSet("rules"):
		return program.Usagef("--print-rules prints the table --rules names: give --rules")
	case c.NArg() > 0:
		return program.Usagef("--print-rules reads no input")
	}
	rules, err := pr.LoadRules(c.String("rules"))
	if err != nil {
		return err
	}
	return pipeline.WriteFile(c.String("output"), c.App.Writer, func(o *pipeline.Output) error { return rules.Write(o) })
}
