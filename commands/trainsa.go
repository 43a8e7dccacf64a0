package commands

import (
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/anneal"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/schedule"
	"github.com/grind-nlp/grind/stages/train"
)

func init() { program.Register("train-sa", WithRunDir(trainSAApp)) }

func trainSAApp() *cli.App {
	return &cli.App{
		Usage:     "train a DMV by structural annealing of a locality or segmentation bias",
		UsageText: "train-sa (--delta0 δ | --seg-beta0 β) [options] [FILE...]",
		Description: `Structural annealing (Smith 2006): EM under a structural bias that is relaxed
epoch by epoch. Each epoch runs EM (with --lambda) to convergence from the
previous epoch's model; then the bias moves by its step, until its final
value, which is always the last epoch.

Model L (--delta0 δ₀ --delta-step Δδ --delta-final δ_f): every edge between
positions i and j is multiplied by e^{δ·|i−j|}; δ < 0 prefers short edges.
Smith's best English result: --init zero --lambda 10 --delta0 -0.6
--delta-step 0.1 --delta-final 0.1. A fixed δ is one epoch: --delta0 -0.6
--delta-final -0.6.

Model S (--seg-beta0 β₀ --seg-beta-step Δβ --seg-beta-final β_f): a sentence
may be a sequence of trees over contiguous segments, each root drawn from
root, with weight e^β per tree beyond the first; annealing β down forces
the segments together into one tree.

The bias applies in training only: the models written and saved are plain
DMVs, decode parses with them, and the log-likelihood noted after each epoch
(stderr) is the plain DMV's. The iteration log (--log) has stage (the epoch)
and delta or seg_beta on every line; its objective is Σ log Z under the bias,
the quantity each epoch's EM climbs. With --save-dir DIR each epoch's model
is saved as DIR/epoch-NN-delta±D.DDD.jsonl (or seg-beta), so that the final
value can be chosen afterwards:
   select-model --dev dev.jsonl DIR/*.jsonl

--max-depth D (and --max-chunk N) restricts every E-step to the trees within
the left-corner depth bound as well (Model L only: Model S's segmentations are
not trees of the bounded chart).

Examples:
   train-sa --init zero --lambda 10 --delta0 -0.6 --save-dir sa wsj10.jsonl > sa.jsonl
   train-sa --init km --seg-beta0 0.5 --seg-beta-final 0 --log s.log wsj10.jsonl -o s.jsonl
   train-sa --init km --delta0 -0.6 --max-depth 1 --max-chunk 3 wsj10.jsonl > sa-lc.jsonl
   train-sa --init zero --lambda 1 --delta0 -0.6 --child-valence 2 wsj10.jsonl > sa-evg.jsonl

--stop-valence, --child-valence and --child-backoff train a DMV with more
valences, as train-em's do (README, "Extended valence"); Model L takes them,
Model S does not. --learn-backoff, --backoff-forget and --backoff-prior learn
the child back-off as train-em's do (README, "Learned back-off").

` + ProgressHelp,
		Flags: slices.Concat(TrainFlags(dmv.DefaultInit), RunDirFlags(), []cli.Flag{
			streamFlag(),
			program.LambdaFlag("add-λ smoothing in every M-step (0: maximum likelihood)"),
			&cli.Float64Flag{Name: "tol", DefaultText: "1e-5; 2^-20 with --stop bits", Usage: "an epoch ends when the objective changes by less than `T`, relatively (under --stop bits, in bits per token; 0 runs to --max-iter)"},
			stopFlag("relative"),
		}, program.InCategory(modelLCategory,
			&cli.Float64Flag{Name: "delta0", DefaultText: "none", Usage: "Model L: the first epoch's locality bias `δ₀`"},
			&cli.Float64Flag{Name: "delta-step", Value: 0.1, Usage: "Model L: δ += `Δδ` after each epoch"},
			&cli.Float64Flag{Name: "delta-final", Value: 0.1, Usage: "Model L: the last epoch's `δ_f`"},
		), program.InCategory(modelSCategory,
			&cli.Float64Flag{Name: "seg-beta0", DefaultText: "none", Usage: "Model S: the first epoch's segmentation weight `β₀` (log of the weight per extra tree)"},
			&cli.Float64Flag{Name: "seg-beta-step", Value: -0.1, Usage: "Model S: β += `Δβ` after each epoch"},
			&cli.Float64Flag{Name: "seg-beta-final", Value: -3, Usage: "Model S: the last epoch's `β_f`"},
		), prFlags(), valenceFlags(), depthFlags()),
		Action: func(c *cli.Context) error {
			if err := program.CheckLambda(c); err != nil {
				return err
			}
			prOpts, err := program.PROptions(c)
			if err != nil {
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
			setUsedTol(c, train.DefaultTol)
			opts, epochs, err := saSchedule(c)
			if err != nil {
				return err
			}
			if opts.Anneals == anneal.SegBeta && c.IsSet("max-depth") {
				return program.Usagef("--max-depth and --seg-beta0 do not combine: Model S's segmentations are not trees of the bounded chart")
			}
			dir, err := stageDir(c)
			if err != nil {
				return err
			}
			opts.SaveDir = dir
			job, err := TrainJob(c, progress.Plan{MaxIter: c.Int("max-iter"), Stages: epochs})
			if err != nil {
				return err
			}
			if job.Valence, job.ChildBackoff, err = readValence(c); err != nil {
				return err
			}
			if job.LearnBackoff, err = readLearnBackoff(c); err != nil {
				return err
			}
			if opts.Anneals == anneal.SegBeta && job.Valence != (dmv.Valence{}) && !job.Valence.IsDMV() {
				return program.Usagef("Model S (--seg-beta…) is for the plain DMV only, not %s", job.Valence)
			}
			if prOpts.On() && opts.Anneals == anneal.SegBeta {
				return program.Usagef("posterior regularization (--rules, --sparsity) projects a posterior over single trees: not with Model S (--seg-beta…)")
			}
			opts.Lambda, opts.MaxIter, opts.Tol, opts.Stop, opts.PR = c.Float64("lambda"), c.Int("max-iter"), tol, stop, prOpts
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return anneal.RunSA(src, w, job, opts)
			})
		},
	}
}

// saSchedule reads which bias train-sa anneals, and how, and counts the
// epochs.
func saSchedule(c *cli.Context) (anneal.SAOptions, int, error) {
	locality := c.IsSet("delta0") || c.IsSet("delta-step") || c.IsSet("delta-final")
	segments := c.IsSet("seg-beta0") || c.IsSet("seg-beta-step") || c.IsSet("seg-beta-final")
	var opts anneal.SAOptions
	switch {
	case locality && segments:
		return opts, 0, program.Usagef("anneal either the locality bias (--delta…) or the segmentation weight (--seg-beta…), not both")
	case locality && c.IsSet("delta0"):
		opts = anneal.SAOptions{Anneals: anneal.Delta, Start: c.Float64("delta0"), Step: c.Float64("delta-step"), Final: c.Float64("delta-final")}
	case segments && c.IsSet("seg-beta0"):
		opts = anneal.SAOptions{Anneals: anneal.SegBeta, Start: c.Float64("seg-beta0"), Step: c.Float64("seg-beta-step"), Final: c.Float64("seg-beta-final")}
	default:
		return opts, 0, program.Usagef("missing --delta0 (Model L) or --seg-beta0 (Model S)")
	}
	values, err := schedule.Linear(opts.Start, opts.Step, opts.Final)
	if err != nil {
		return opts, 0, program.Usagef("%v", err)
	}
	return opts, len(values), nil
}
