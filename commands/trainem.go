package commands

import (
	"errors"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/train"
)

func init() { program.Register("train-em", trainEMApp) }

// TrainFlags are the flags every training loop shares (train-ce's too).
func TrainFlags(defaultInit string) []cli.Flag {
	return []cli.Flag{
		initFlag(defaultInit), kleinConstFlag(),
		program.ModelFlag(false),
		seedFlag(),
		&cli.IntFlag{Name: "max-iter", Value: train.DefaultMaxIter, Usage: "`N` iterations at most (per stage, for the annealers)"},
		program.WorkersFlag(), program.MaxMemoryFlag(),
		&cli.StringFlag{Name: "log", Usage: "write one JSON line per iteration to `FILE` (objective, change, seconds; accuracy when the corpus has gold heads)"},
		&cli.IntFlag{Name: "save-every", Usage: "save the model every `K` iterations (iter-NNNN.jsonl in --save-dir)"},
		&cli.StringFlag{Name: "save-dir", Value: ".", Usage: "the `DIR` --save-every writes to (made if missing)"},
		program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
	}
}

// streamFlag is the trainers' choice between holding the corpus and
// reading it again on every pass.
func streamFlag() cli.Flag {
	return &cli.BoolFlag{Name: "stream", Usage: "read the corpus FILEs again on every pass instead of holding them: memory independent of the corpus's size, the same model (plain files, not stdin or compressed input)"}
}

// TrainJob reads the shared training flags.
func TrainJob(c *cli.Context, total int) (train.Job, error) {
	if err := program.CheckWorkers(c); err != nil {
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
		Progress: newProgress(c, total), Evaluate: attachmentAccuracy,
		RunDir: dir, Resume: resume, Stream: c.Bool("stream"), MaxMemory: limit,
	}, nil
}

func trainEMApp() *cli.App {
	return &cli.App{
		Usage:     "train a DMV by EM, MAP/EM or Viterbi EM",
		UsageText: "train-em [options] [FILE...]",
		Description: `Reads the corpus once and runs E and M steps in-process, in parallel over
sentences, until the log-likelihood changes by less than --tol (relative) or
--max-iter iterations; writes the model. The result equals the shell loop
"estep -m M | mstep > M" run as many times, from dmv-init's model (with
--init zero, whose θ⁽⁰⁾ is a table of weights 1 and not a model, the first
iteration is the E-step on those weights and dmv-init writes its M-step: the
shell loop from it is one iteration behind).

--hard is Viterbi EM: counts of each sentence's best tree, stopping (Spitkovsky
et al. 2010) when per-token cross-entropy changes by less than --tol bits
(default 2^-20). --lambda adds λ to every count in each M-step (MAP with a
symmetric Dirichlet); --final-lambda smooths the last counts once more before
the model is written.

Examples:
   train-em wsj10.jsonl > model.jsonl                  # from the km start
   train-em --lambda 0.2154 --log map.log wsj10.jsonl -o map.jsonl
   train-em --init uniform --hard --lambda 1 wsj10.jsonl > viterbi.jsonl
   train-em -m init.jsonl --max-iter 10 wsj10.jsonl > model10.jsonl
   train-em --run-dir run1 wsj10.jsonl > model.jsonl   # recorded; if killed:
   train-em --resume run1 wsj10.jsonl > model.jsonl    # the same model, byte for byte

--run-dir DIR writes run.json (command, flags, input hashes), iterations.jsonl
(as --log), checkpoint.json after every iteration and model.jsonl; --resume DIR
continues a killed run given the same flags and inputs (--workers, --quiet, -o,
--save-every, --save-dir and --stream may differ).`,
		Flags: append(append(TrainFlags(dmv.DefaultInit), RunDirFlags()...),
			streamFlag(),
			program.LambdaFlag("add-λ smoothing in every M-step (0: maximum likelihood)"),
			&cli.Float64Flag{Name: "final-lambda", Value: -1, Usage: "one more M-step with this add-`λ` before the model is written (-1: none)"},
			&cli.BoolFlag{Name: "hard", Usage: "Viterbi EM: counts of each sentence's best tree"},
			&cli.Float64Flag{Name: "tol", Usage: "stopping threshold `T` (default 1e-5 relative change; with --hard 2^-20 bits per token; 0 runs to --max-iter)"},
		),
		Action: func(c *cli.Context) error {
			if err := program.CheckLambda(c); err != nil {
				return err
			}
			tol, err := Tolerance(c)
			if err != nil {
				return err
			}
			job, err := TrainJob(c, c.Int("max-iter"))
			if err != nil {
				return err
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return train.RunEM(src, w, job, train.EMOptions{
					Lambda: c.Float64("lambda"), FinalLambda: c.Float64("final-lambda"),
					Hard: c.Bool("hard"), MaxIter: c.Int("max-iter"), Tol: tol,
				})
			})
		},
	}
}
