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

func init() { program.Register("train-da", WithRunDir(trainDAApp)) }

func trainDAApp() *cli.App {
	return &cli.App{
		Usage:     "train a DMV by deterministic annealing or skewed DA",
		UsageText: "train-da [options] [FILE...]",
		Description: `Deterministic annealing (Smith & Eisner 2004): EM whose E-step posterior is
p(y|x)^β, every probability raised to β. The first stage runs at β = --beta0;
each stage runs EM to convergence (--tol, --max-iter per stage), then
β ← min(1, γ·β); the last stage runs at β = 1 exactly, which is plain EM.
--below-one drops that last stage and ends at the last β₀γ^k < 1: what
Smith's (2006) Tables 5.1 and 5.3 report (their H_C and iteration counts are
those of runs stopped below 1, though his Fig. 5.1 runs β = 1 last).
--skew is skewed DA: event weights p^β·λ₀^(1−β), where λ₀ is the
initializer's θ⁽⁰⁾ (or -m), so that early stages lean toward the initializer.
For --init zero, θ⁽⁰⁾ is all weights 1, and SDA from zero is DA from zero.

The iteration log (--log) has stage and beta on every line; its objective is
the tempered one each stage climbs, (1/β)·Σ log Σ_y p(x,y)^β (λ₀^(1−β) inside
with --skew), which is the log-likelihood at β = 1. With --save-dir each
stage's final model is saved as stage-NN-betaB.jsonl there. The result equals
the shell loop "estep --beta B [--skew INIT] -m M | mstep > M", stage by stage.

--max-depth D (and --max-chunk N) restricts every E-step to the trees within
the left-corner depth bound, as train-em's does; the shell loop takes the same
flags on estep.

Examples:
   train-da --init zero --beta0 0.01 --gamma 1.5 wsj10.jsonl > da.jsonl
   train-da --init km --skew --beta0 0.1 --gamma 2 --log sda.log wsj10.jsonl -o sda.jsonl
   train-da --init km --skew --save-dir sda-stages wsj10.jsonl > /dev/null
   train-da --init km --skew --max-depth 2 wsj10.jsonl > sda-lc2.jsonl
   train-da --init km --skew --child-valence 2 --lambda 1 wsj10.jsonl > sda-evg.jsonl

--stop-valence, --child-valence and --child-backoff train a DMV with more
valences, as train-em's do (README, "Extended valence"); --learn-backoff,
--backoff-forget and --backoff-prior learn the back-off as train-em's do, each
choice of distribution annealed as an event of its own (README, "Learned
back-off").
   train-da --init km --skew --child-valence 2 --lambda 1 --learn-backoff wsj10.jsonl

` + ProgressHelp,
		Flags: slices.Concat(TrainFlags(dmv.DefaultInit), RunDirFlags(), []cli.Flag{
			streamFlag(),
			&cli.Float64Flag{Name: "beta0", Value: 0.1, Usage: "`β₀` of the first stage, in (0, 1]"},
			&cli.Float64Flag{Name: "gamma", Value: 2, Usage: "β ← min(1, `γ`·β) after each stage; γ > 1"},
			&cli.BoolFlag{Name: "skew", Usage: "skewed DA: weights p^β·λ₀^(1−β), λ₀ the initializer's θ⁽⁰⁾"},
			&cli.BoolFlag{Name: "below-one", Usage: "drop the last stage (β = 1): end at the last β₀γ^k < 1, as Smith's tables ran"},
			program.LambdaFlag("add-λ smoothing in every M-step (0: maximum likelihood)"),
			&cli.Float64Flag{Name: "tol", DefaultText: "1e-5; 2^-20 with --stop bits", Usage: "a stage ends when the objective changes by less than `T`, relatively (under --stop bits, in bits per token; 0 runs to --max-iter)"},
			stopFlag("relative"),
		}, prFlags(), valenceFlags(), depthFlags()),
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
			betas, err := schedule.DA(c.Float64("beta0"), c.Float64("gamma"))
			if err == nil && c.Bool("below-one") {
				betas, err = anneal.BelowOne(betas)
			}
			if err != nil {
				return program.Usagef("%v", err)
			}
			dir, err := stageDir(c)
			if err != nil {
				return err
			}
			job, err := TrainJob(c, progress.Plan{MaxIter: c.Int("max-iter"), Stages: len(betas)})
			if err != nil {
				return err
			}
			if job.Valence, job.ChildBackoff, err = readValence(c); err != nil {
				return err
			}
			if job.LearnBackoff, err = readLearnBackoff(c); err != nil {
				return err
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return anneal.RunDA(src, w, job, anneal.DAOptions{
					Beta0: c.Float64("beta0"), Gamma: c.Float64("gamma"), Skew: c.Bool("skew"),
					Lambda: c.Float64("lambda"), MaxIter: c.Int("max-iter"), Tol: tol, Stop: stop, SaveDir: dir,
					BelowOne: c.Bool("below-one"), PR: prOpts,
				})
			})
		},
	}
}

// stageDir is where the annealers save each stage's model: --save-dir
// when given (made if missing), else nowhere.
func stageDir(c *cli.Context) (string, error) {
	if !c.IsSet("save-dir") {
		return "", nil
	}
	dir := c.String("save-dir")
	return dir, checkSaveDir(c, dir)
}
