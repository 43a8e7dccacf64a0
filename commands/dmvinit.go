package commands

import (
	"io"
	"math"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/dmvinit"
)

func init() { program.Register("dmv-init", dmvInitApp) }

func initFlag(value string) cli.Flag {
	return &cli.StringFlag{Name: "init", Value: value, Usage: "the initializer, `NAME`: " + strings.Join(dmv.Initializers, ", ")}
}

func kleinConstFlag() cli.Flag {
	return &cli.Float64Flag{Name: "klein-const", Value: dmv.DefaultKleinConst, Usage: "klein: arguments in proportion to 1/(`c` + distance); c > −1"}
}

func checkInit(c *cli.Context) error {
	if k := c.Float64("klein-const"); !(k > -1) || math.IsInf(k, 1) {
		return program.Usagef("--klein-const must be a finite number > −1, not %v", k)
	}
	if !slices.Contains(dmv.Initializers, c.String("init")) {
		return program.Usagef("--init must be one of %s, not %q", strings.Join(dmv.Initializers, ", "), c.String("init"))
	}
	return nil
}

func dmvInitApp() *cli.App {
	return &cli.App{
		Usage:     "make a starting DMV model from a corpus",
		UsageText: "dmv-init [options] [FILE...]",
		Description: `Reads sentences and writes an initial model (event records with "p").

Initializers (θ⁽⁰⁾ of every trainer; km is their default):
   km       Smith's K&M (2006, §3.3.1): a special E-step with no dynamic program —
            every token is the root with mass 1/n and a child of each other token
            with mass Z(n, j)/|i−j|, its mass as a dependent summing to 1 − 1/n
   km-prtoolkit
            km's masses with pr-toolkit's stop counts and smoothing (its K&M start,
            "Noah Smith's version"): 0.1 added to every count; each head side stops
            at its first decision, continues k times after a first child (k: its
            expected children), and a share s of each side with children moves to
            continue first and stop after, s = 0.9 × the largest share that leaves
            every count positive. From it train-em gives pr-toolkit's EM and PR rows.
   klein    Klein's harmonic start (2005, §6.2): head-normalised — every token takes
            (n−1)/n arguments, in proportion to 1/(c + |i−j|) (c: --klein-const),
            and the root takes each token with mass 1/n
            (km, klein: stop counts are grind's rule, a chain of the expected children)
   zero     all weights 1 (Smith Eq. 3.13); trainers hand these weights to their own
            first E-step; dmv-init writes the M-step of the plain E-step on them
   local    one E-step under edge weights 1 + 1/|i−j| (inside–outside)
   uniform  every multinomial uniform (the start of Viterbi EM)
   random   every multinomial drawn from a flat Dirichlet (--seed)
   adhoc    Spitkovsky et al.'s Ad-Hoc* (NAACL 2010, §5.1): the best trees of every
            sentence under the "ad-hoc harmonic scores" P̃STOP = 1/(d_s + 3) (go on:
            1 − P̃STOP), P̃ATTACH = 1/(d_a + 2), the root uniform, then an M-step — one
            step of Viterbi training; tied best trees (a tree and its mirror image)
            count 1/(their number) each, the expectation of the paper's random pick
Every initializer's M-step adds --lambda, as the trainer's M-steps do; with
--vb it is variational Bayes's M-step with Dirichlet(--alpha) instead, as
under train-em --estimator vb (km, km-prtoolkit, klein, local, adhoc and zero; uniform and random
stay normalised), and the model's header says so ("vb_alpha").

Examples:
   dmv-init wsj10.jsonl > init.jsonl
   dmv-init --init klein --klein-const 2 wsj10.jsonl > init-klein.jsonl
   dmv-init --init km-prtoolkit wsj10.jsonl > init-pr.jsonl    # pr-toolkit's start
   dmv-init --init random --seed 7 wsj10.jsonl -o init7.jsonl
   dmv-init --vb --alpha 0.1 wsj10.jsonl > init-vb.jsonl
   dmv-init --child-valence 2 wsj10.jsonl > evg-init.jsonl   # an EVG start
   dmv-init --child-valence 2 --learn-backoff wsj10.jsonl > evg-learn-init.jsonl

--stop-valence and --child-valence give the start more valences (README,
"Extended valence"): km and klein give every child valence the same counts
(their masses have no order among a head's children) and the decisions the
counts of a chain of the expected children; --child-backoff as train-em's.
--learn-backoff makes a start that learns its back-off (README, "Learned
back-off"): each child distribution the full one, the back-off their mean over
what it forgets, every weight the prior's mean; "estep -m M | mstep" then
learns it, equal to train-em --learn-backoff byte for byte.`,
		Flags: append([]cli.Flag{
			initFlag(dmv.DefaultInit), kleinConstFlag(), seedFlag(),
			program.LambdaFlag("add-λ smoothing in the initial M-step"),
			&cli.BoolFlag{Name: "vb", Usage: "the initial M-step is variational Bayes's (train-em --estimator vb's start)"},
			program.AlphaFlag(dmv.DefaultAlpha, "--vb: the symmetric Dirichlet hyperparameter α (> 0)"),
			program.WorkersFlag(), program.MaxMemoryFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		}, valenceFlags()...),
		Action: func(c *cli.Context) error {
			if err := checkInit(c); err != nil {
				return err
			}
			if err := program.CheckLambda(c); err != nil {
				return err
			}
			if err := program.CheckWorkers(c); err != nil {
				return err
			}
			alpha, err := program.VBAlpha(c, c.Bool("vb"), "--vb")
			if err != nil {
				return err
			}
			v, backoff, err := readValence(c)
			if err != nil {
				return err
			}
			learn, err := readLearnBackoff(c)
			if err == nil && alpha > 0 && (v != (dmv.Valence{}) || backoff > 0 || learn != nil) {
				err = program.Usagef("--vb trains the DMV: not with --stop-valence, --child-valence, --child-backoff or --learn-backoff")
			}
			if err != nil {
				return err
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return dmvinit.Run(src, w, c.String("init"), dmv.InitOptions{Lambda: c.Float64("lambda"), VBAlpha: alpha, Seed: c.Uint64("seed"), KleinConst: c.Float64("klein-const"), Workers: c.Int("workers"),
					Valence: v, ChildBackoff: backoff, LearnBackoff: learn}, limit)
			})
		},
	}
}
