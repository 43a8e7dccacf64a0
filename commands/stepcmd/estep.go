package stepcmd

import (
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/estep"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/hmm"
)

func init() { program.Register("estep", estepApp) }

func estepApp() *cli.App {
	return &cli.App{
		Usage:     "expected counts of a corpus under a model: DMV, CCM, HMM, as its header says (one E-step); --gold: of gold trees or tags",
		UsageText: "estep -m MODEL [options] [FILE...]",
		Description: `Reads sentences and writes the expected count of every DMV event under the
model (inside–outside), as event records with "n", then one stats record:
   {"ev":"stats","sentences":5387,"tokens":27974,"loglik":-91234.5}
Counts of shards add up: sumcounts merges them, mstep makes the next model.

Examples:
   estep -m model.jsonl wsj10.jsonl | mstep > next.jsonl
   parallel --pipe -N 1000 estep -m model.jsonl < wsj10.jsonl | sumcounts | mstep > next.jsonl
   estep --gold train.jsonl | mstep > supervised.jsonl     # counts of the gold trees

--gold --family hmm counts the transitions and emissions of the sentences'
gold tags ("gold_tags" when present, else "tags"; the boundary <s> before the
first and after the last), bitag or --trigram, over the gold tags (sorted) as
states: mstep makes the supervised HMM, whose states train-hmm --dict -m and
tag -m take (Merialdo's labelled start). --gold -m HMM counts over that
model's order and states instead (a gold tag it lacks is an error), so that
states the labelled text never shows are in the model too.
   estep --gold --family hmm labelled.jsonl | mstep --lambda 1 > init.jsonl
   train-hmm --dict 1 -m init.jsonl --max-iter 10 unlabelled.jsonl -o tagged.jsonl
   estep --gold -m em.jsonl labelled.jsonl | mstep --lambda 1 > init.jsonl

Annealing (Smith & Eisner; the loops are train-da and train-sa): --beta raises
every probability to β (DA), --skew M weights events p^β·λ₀^(1−β) with λ₀ the
model M (skewed DA), --delta multiplies each edge by e^{δ·|i−j|} (Model L),
--seg-beta lets a sentence be a sequence of trees over contiguous segments,
each root drawn from root, with weight e^β per tree beyond the first (Model S).
They combine. loglik is then Σ log Z under the re-weighted model, the
quantity the annealed EM climbs (DA's tempered objective is loglik / β).
   estep --beta 0.1 --skew init.jsonl -m model.jsonl wsj10.jsonl | mstep > next.jsonl
A CCM's skewed DA leans toward the random-split tree distribution instead
(Smith & Eisner 2004 §6; train-ccm --estimator sda): --split-skew.
   estep --beta 0.1 --split-skew -m ccm.jsonl wsj10.jsonl | mstep > next.jsonl
   estep --delta -0.6 -m model.jsonl wsj10.jsonl | mstep --lambda 10 > next.jsonl

--hard counts each sentence's best tree; --ties chooses among equally good
ones (from uniform multinomials every tree of a sentence is): left, grind's
deterministic rule; random, one drawn uniformly (--seed S and the sentence's
position seed it: the same sentences in the same order draw the same trees);
split, every best tree with an equal share of the counts.
   estep --hard --ties split -m uniform.jsonl wsj15.jsonl | mstep --lambda 1 > next.jsonl

Posterior regularization (the loop is train-em --rules or --sparsity): the
posterior is projected onto distributions whose dependencies obey universal
rules or pay the L1/L∞ sparsity penalty, over the whole corpus (the
projection couples every sentence: give estep the corpus, not a shard);
--dual FILE carries its dual variables (and, under --dual-rule interleaved,
the last E-step's point, gradient and objective) from one E-step to the next,
and loglik is the PR objective (interleaved: its primal bound F).
   estep --rules ud1 --dual dual.json -m model.jsonl ud10.jsonl | mstep > next.jsonl
   estep --sparsity 10 --dual dual.json -m model.jsonl wsj10.jsonl | mstep > next.jsonl

--max-depth D counts only the trees whose left-corner parse needs at most D
stack levels (Noji, Miyao & Johnson 2016; --max-chunk N: center embeddings of
at most N words do not count); loglik is then Σ log Z over those trees. It
combines with --hard, --beta, --skew and --delta; the counts' header marks
the bound, so shards of different bounds do not mix.
   estep --max-depth 1 --max-chunk 3 -m model.jsonl ud15.jsonl | mstep > next.jsonl`,
		Flags: slices.Concat([]cli.Flag{
			program.ModelFlag(false),
			&cli.BoolFlag{Name: "hard", Usage: "counts of each sentence's Viterbi tree (Viterbi EM); loglik is then the best trees' log-probability"},
			&cli.StringFlag{Name: "ties", Value: string(dmv.TiesLeft), Usage: "--hard: among equally good best trees take the `RULE`'s: left (grind's deterministic rule), random (one drawn uniformly, seeded by --seed and the sentence's position) or split (all of them, their counts shared equally)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "--ties random: the seed `S` of the draws"},
			&cli.BoolFlag{Name: "gold", Usage: "counts of the gold trees, or of an HMM's gold tags (supervised estimation); -m optional"},
			&cli.StringFlag{Name: "family", Value: "dmv", Usage: "--gold without -m: the `FAMILY` whose counts to make: dmv (the gold trees) or hmm (the gold tags' transitions and emissions)"},
			&cli.BoolFlag{Name: "trigram", Usage: "--gold --family hmm: counts of a trigram HMM, not a bitag one"},
		}, program.InCategory("Annealing",
			&cli.Float64Flag{Name: "beta", Value: 1, Usage: "deterministic annealing: posterior ∝ p(y|x)^`β` (every probability raised to β > 0)"},
			&cli.StringFlag{Name: "skew", TakesFile: true, Usage: "skewed DA: event weights p^β·λ₀^(1−β), λ₀ the model in `FILE` (the initializer's)"},
			&cli.BoolFlag{Name: "split-skew", Usage: "CCM: skewed DA toward the random-split tree distribution (Smith & Eisner 2004 §6): posterior ∝ P(B|s)^β·p̀(B)^(1−β), train-ccm --estimator sda's E-step"},
			&cli.Float64Flag{Name: "delta", Usage: "Model L: multiply each edge between i and j by e^{`δ`·|i−j|} (δ < 0 prefers short ones)"},
			&cli.Float64Flag{Name: "seg-beta", DefaultText: "off", Usage: "Model S: sentences are sequences of trees, with weight e^`β` per tree beyond the first"},
		), program.InCategory(program.PRCategory,
			&cli.StringFlag{Name: "dual", TakesFile: true, Usage: "posterior regularization: read the dual variables from `FILE` when it exists and write them back, so that a shell loop's projections go on where the last ended (as train-em's do)"},
		), program.InCategory(program.PRCategory, program.PRFlags()...), program.InCategory(program.DepthCategory, program.DepthFlags()...), []cli.Flag{
			program.WorkersFlag(), program.MaxMemoryFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		}),
		Action: func(c *cli.Context) error {
			if c.String("model") == "" && !c.Bool("gold") {
				return program.Usagef("missing -m MODEL")
			}
			if err := program.CheckModelFiles(c.String("model"), c.String("skew")); err != nil {
				return err
			}
			if c.Bool("hard") && c.Bool("gold") {
				return program.Usagef("--hard and --gold exclude each other")
			}
			fam := c.String("family")
			switch {
			case c.IsSet("family") && !c.Bool("gold"):
				return program.Usagef("--family names the family of --gold counts; without --gold the model's header names it")
			case c.IsSet("family") && c.String("model") != "":
				return program.Usagef("--family names the family of --gold counts made without a model; -m's header names the model's")
			case fam != dmv.Family && fam != hmm.Family:
				return program.Usagef("--family: dmv or hmm (the families with gold counts), not %q", fam)
			case c.Bool("trigram") && !c.Bool("gold"):
				return program.Usagef("--trigram is the order of --gold HMM counts; an HMM model's E-step has the model's order")
			case c.Bool("trigram") && c.String("model") == "" && fam != hmm.Family:
				return program.Usagef("--trigram is an HMM's order: --gold --family hmm --trigram")
			}
			if c.String("model") != "" || !c.Bool("gold") {
				fam = ""
			}
			ties, err := dmv.ParseTies(c.String("ties"))
			switch {
			case err != nil:
				return program.Usagef("--ties: %v", err)
			case c.IsSet("ties") && !c.Bool("hard"):
				return program.Usagef("--ties breaks ties among Viterbi EM's best trees: with --hard")
			case c.IsSet("seed") && ties != dmv.TiesRandom:
				return program.Usagef("--seed seeds --ties random's draws")
			}
			if c.Bool("split-skew") && c.IsSet("skew") {
				return program.Usagef("--skew and --split-skew are two skews: give one")
			}
			if err := program.CheckWorkers(c); err != nil {
				return err
			}
			r, err := reweightFlags(c)
			if err != nil {
				return err
			}
			prOpts, err := program.PROptions(c)
			if err != nil {
				return err
			}
			if c.IsSet("dual") && !prOpts.On() {
				return program.Usagef("--dual is the state of posterior regularization's dual (--rules or --sparsity)")
			}
			max, chunk, err := program.DepthBound(c)
			if err != nil {
				return err
			}
			bound := dmv.DepthBound{Max: max, Chunk: chunk}
			switch {
			case bound.On() && c.Bool("gold"):
				return program.Usagef("--gold counts the gold trees: --max-depth does not apply")
			case bound.On() && c.IsSet("seg-beta"):
				return program.Usagef("--max-depth and --seg-beta do not combine: Model S's segmentations are not trees of the bounded chart")
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				opts := estep.Options{Model: c.String("model"), Hard: c.Bool("hard"), Ties: ties, Seed: c.Uint64("seed"), Gold: c.Bool("gold"), Family: fam, Trigram: c.Bool("trigram"), Workers: c.Int("workers"),
					Reweight: r, Skew: c.String("skew"), SplitSkew: c.Bool("split-skew"), PR: prOpts, Dual: c.String("dual"), Bound: bound, MaxMemory: limit}
				if !c.Bool("quiet") {
					opts.Warn = c.App.ErrWriter
				}
				return families.EStep(src, w, opts)
			})
		},
	}
}

// reweightFlags reads estep's annealing flags (nil: the plain E-step).
func reweightFlags(c *cli.Context) (*dmv.Reweighting, error) {
	r := dmv.Reweighting{Beta: c.Float64("beta"), Delta: c.Float64("delta"), Segmented: c.IsSet("seg-beta"), SegBeta: c.Float64("seg-beta")}
	if err := r.Check(); err != nil {
		return nil, program.Usagef("%v", err)
	}
	if c.Bool("gold") && (!r.IsPlain() || c.String("skew") != "") {
		return nil, program.Usagef("--gold counts the gold trees: --beta, --skew, --delta and --seg-beta do not apply")
	}
	if r.IsPlain() {
		return nil, nil
	}
	return &r, nil
}
