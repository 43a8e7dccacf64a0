package stepcmd

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/mstep"
)

func init() { program.Register("mstep", mstepApp) }

func mstepApp() *cli.App {
	return &cli.App{
		Usage:     "a model from expected counts: DMV (add-λ or variational Bayes), CCM (Klein's smoothing), HMM (add-λ) (one M-step)",
		UsageText: "mstep [options] [COUNTS...]",
		Description: `Reads count streams (estep or sumcounts output; several files are added) and
writes the model: within each multinomial — root; child(head, dir); the stop/cont
decision of (head, dir, adj) — λ is added to every count and the counts are
normalised. A multinomial without any mass becomes uniform.

--vb is variational Bayes's M-step instead (DMV counts), with a symmetric
Dirichlet(--alpha) prior on every multinomial: each weight is
exp ψ(n + α) / exp ψ(Σn + K·α), and the model's header says so ("vb_alpha"):
its multinomials sum to less than 1, and estep and decode take them as they
are. -m MODEL, the model the counts' E-step ran with (checked against their
header), adds the variational bound to the header ("vb_bound"): the loop
"estep -m M | mstep --vb -m M" equals train-em --estimator vb, byte for byte.

Every input must end with its stats record: a shard whose E-step crashed or was
cut short is refused, never silently dropped. --expect-sentences N also
catches a shard that is missing altogether.

Examples:
   estep -m model.jsonl wsj10.jsonl | mstep --lambda 0.2154 > next.jsonl
   mstep --expect-sentences 5387 shard-*.counts > next.jsonl
   estep -m m.jsonl wsj10.jsonl | mstep --vb --alpha 0.1 -m m.jsonl -o m.jsonl
   estep -m evg.jsonl wsj10.jsonl | mstep --child-backoff 0.33 > next.jsonl
   estep -m evg-learn.jsonl wsj10.jsonl | mstep --backoff-prior 1,10 > next.jsonl
   estep --gold --family hmm labelled.jsonl | mstep --lambda 1 > init.jsonl   # a supervised HMM

The counts of a DMV with valence settings (README, "Extended valence") have
one child multinomial per (head, dir, val) and one decision per (head, dir,
val); --child-backoff W then mixes each child distribution with weight W with
the distribution of the summed counts of every head (as train-em's).

Counts with backoff events come from a model that learns its child back-off
(dmv-init or train-em --learn-backoff; README, "Learned back-off"): their
M-step is that model's — the full distributions from the attachments made
through them, the back-off from those made through it summed over every head,
and each head's interpolation weight from its expected choices plus
--backoff-prior's pseudo-counts FULL,BACK (default ` + "`" + `1,10` + "`" + `); add-λ as above.`,
		Flags: append([]cli.Flag{
			program.LambdaFlag("add-λ smoothing (0: maximum likelihood; Smith's grid: 10^(-2/3) … 10)"),
			&cli.BoolFlag{Name: "vb", Usage: "variational Bayes's M-step (DMV counts): weights exp E[log θ] under Dir(counts + α)"},
			program.AlphaFlag(dmv.DefaultAlpha, "--vb: the symmetric Dirichlet hyperparameter α (> 0)"),
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, TakesFile: true, Usage: "--vb: the model `FILE` the counts' E-step ran with; the model made carries the variational bound"},
			&cli.IntFlag{Name: "expect-sentences", Value: -1, Usage: "fail unless the counts come from exactly `N` sentences"},
			program.ExpectCorpusFlag(), program.MaxMemoryFlag(),
			&cli.Float64Flag{Name: "child-backoff", Usage: "DMV: interpolate every child distribution with weight `W` in [0, 1] with one that forgets the head (pr-toolkit's -child-backoff; train-em's)"},
			program.OutputFlag(), program.QuietFlag(),
		}, program.BackoffFlags()...),
		Action: func(c *cli.Context) error {
			if err := program.CheckLambda(c); err != nil {
				return err
			}
			alpha, err := program.VBAlpha(c, c.Bool("vb"), "--vb")
			if err != nil {
				return err
			}
			if c.IsSet("model") && !c.Bool("vb") {
				return program.Usagef("-m is the model of the counts' E-step, for --vb's bound: give it with --vb")
			}
			if n := c.Int("expect-sentences"); n < -1 {
				return program.Usagef("--expect-sentences must be ≥ 0 (or -1: no check), not %d", n)
			}
			if err := dmv.CheckBackoff(c.Float64("child-backoff")); err != nil {
				return program.Usagef("--child-backoff: %v", err)
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			var prior *dmv.LearnedBackoff
			if c.IsSet("backoff-prior") || c.IsSet("backoff-forget") {
				bp, err := program.LearnedBackoff(c)
				if err != nil {
					return err
				}
				prior = &bp
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return mstep.Run(families.All, src, w, mstep.Options{Lambda: c.Float64("lambda"), VBAlpha: alpha, Model: c.String("model"),
					ChildBackoff: c.Float64("child-backoff"), LearnedBackoff: prior, ExpectSentences: c.Int("expect-sentences"), ExpectCorpus: c.String("expect-corpus"), MaxMemory: limit})
			})
		},
	}
}
