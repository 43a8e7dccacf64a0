package commands

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/nbhd"
	"github.com/grind-nlp/grind/stages/pr"
	"github.com/grind-nlp/grind/stages/score"
	"github.com/grind-nlp/grind/stages/selectmodel"
)

func init() { program.Register("select-model", selectApp) }

func selectApp() *cli.App {
	return &cli.App{
		Usage:     "rank saved models on dev data and pick the best",
		UsageText: "select-model --dev FILE [--by accuracy|likelihood|contrast|rules|bound|agreement|pr] [options] MODEL...",
		Description: `Evaluates every model on the dev sentences and prints them ranked, best first
(ties keep the order given):

   --by accuracy     supervised selection: dev directed attachment accuracy of
                     the Viterbi parses (as decode gives), --root count or
                     exclude; the dev sentences need gold heads
   --by likelihood   unsupervised selection: the dev objective, Σ log p(x) of
                     the dev sentences under the plain DMV (no gold needed)
   --by contrast     unsupervised selection for contrastive estimation (Smith
                     2006): the contrastive objective Σ log Z(x) − log Z(N(x))
                     of the dev sentences under --nbhd (no prior, no gold);
                     ranks log-linear ("w") and probability models alike
   --by rules        unsupervised selection by universal rules: the share of
                     the dependencies of the dev parses (roots included) that
                     instantiate a rule of --rules (a table of train-em
                     --rules, or a rule file), then the dev log-likelihood
   --by bound        unsupervised selection for variational Bayes: the
                     variational bound each model reached on its training
                     corpus (its header's vb_bound; train-em --estimator vb,
                     mstep --vb -m): runs on one corpus, any --alpha; a
                     model without a bound is refused
   --by agreement    unsupervised selection by consensus among the models
                     given: the mean, over the other models, of the share of
                     dev tokens whose head (the root's included) a model's
                     parses share with theirs, then the dev log-likelihood;
                     at least two models
   --by pr           unsupervised selection by the objective of posterior
                     regularization by --rules: Σ log p(x) of the dev
                     sentences less the KL distance of their posterior to
                     the nearest one whose expected share of rules is at
                     least --rule-share τ (default 0.8; 0 where the model
                     meets it)

docs/results.md ("Choosing without annotation: the criteria measured")
compares the unsupervised criteria on 13 languages; induce ranks by rules.

Models of the other families (their headers say which; one family per
run, mixing is refused) are ranked the same way, with the family's own
measures: --by likelihood is the family's dev log-likelihood (the CCM's
P(s) with the uniform bracketing prior, DMV+CCM's product P(s) as estep
gives it, the HMM's forward probability, an unseen dev word given the
model's unseen_word weight — counted on stderr); --by accuracy is bracket
F1 of the CCM's brackets against the dev "tree", DMV+CCM's directed
accuracy under --root when every dev sentence has gold heads (else its
bracket F1), or the HMM tags' many-to-1 against the gold tags (tag
accuracy when the states are tag names, as with --dict). --by contrast
ranks HMM and CE tagger (hmmce) models too: the contrastive objective of
the dev sentences' words (no tags needed) under --nbhd (trans1,
del1ortrans1 or length: the one the taggers were trained with), an HMM as
its log probabilities; a CE tagger has no likelihood.

--dev-sentences N keeps only the first N dev sentences: supervised selection
with a few annotated sentences (Smith 2006, §8.6: 10 to 100 are enough).

Every row shows both the accuracy (when dev has gold heads) and the
log-likelihood, so one run tells how far unsupervised selection lands from
supervised. Sentences with a tag some model does not know are left out of
every model's log-likelihood (and counted); they are still parsed and scored.
Models that give some dev sentences probability 0 (unsmoothed; column p=0)
rank below the others by likelihood: fewer such sentences first, then the
log-likelihood of the rest. Log-linear models (train-ce's "w") have no
likelihood ("-" in the likelihood columns): rank them --by accuracy or
--by contrast. A model of variational Bayes's likelihood is Σ log Z̃ under
its sub-normalised weights, a lower bound: --by likelihood ranks such models
among themselves and refuses them beside normalised ones.
--best FILE writes the winning model there; --json writes one JSON line per
model instead of the table: rank, model and by around the record of scores
score and score-tags write (sentences, tokens, root, directed, undirected,
counted, excluded; brackets; score-tags' fields), with loglik and, for the
DMV and the HMM, cross_entropy (bits per token; the CCM's and DMV+CCM's
likelihood per token is none: "-" in the table). The winner is also named on
stderr.

Every fallback is said: where a model's ranking, or the parses it is scored
on, could not be had as asked, what was used instead and why is one line on
stderr naming the model (--quiet drops it) and an entry of its --json row's
"fallbacks" — by likelihood, a log-likelihood of -inf (what it was ranked by
instead); by accuracy or rules, dev tags a model does not know (parsed as its
average tag) and dev sentences of probability 0 (parsed by decode's
fallback); a measure of another kind for every model (DMV+CCM by bracket F1
when a dev sentence has no gold heads, HMMs by many-to-1 when some models'
states are gold tags and some not), said once and in every row.

Examples:
   train-sa --delta0 -0.6 --save-dir sa train.jsonl > /dev/null
   select-model --dev dev.jsonl --root exclude sa/*.jsonl --best best.jsonl
   select-model --dev dev.jsonl --by likelihood runs/*/*.jsonl --json | head -1
   select-model --dev dev.jsonl --dev-sentences 20 runs/*/*.jsonl    # 20 annotated
   select-model --dev dev.jsonl --by contrast --nbhd del1ortrans1 ce/*.jsonl
   select-model --dev words.jsonl --by contrast --nbhd trans1 ce-tagger-*.jsonl
   select-model --dev dev.jsonl --by rules --rules ud1 runs/*.jsonl     # universal rules
   select-model --dev dev.jsonl --by agreement runs/*.jsonl              # consensus
   select-model --dev dev.jsonl --by pr --rules ud1 --rule-share 0.8 runs/*.jsonl
   select-model --dev dev.jsonl --by bound vb-*/model.jsonl --best vb.jsonl
   train-ce --save-every 1 --save-dir ce train.jsonl > /dev/null
   select-model --dev dev.jsonl ce/*.jsonl --best ce-best.jsonl    # CE stopped early`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dev", Required: true, TakesFile: true, Usage: "the dev sentences `FILE` (- for stdin)"},
			&cli.StringFlag{Name: "by", Value: string(selectmodel.Accuracy), Usage: "the `RANKING`: accuracy (supervised), likelihood, contrast, rules, bound, agreement or pr (unsupervised)"},
			&cli.StringFlag{Name: "nbhd", Value: nbhd.Del1OrTrans1, Usage: "--by contrast: the neighbourhood `KIND` (" + strings.Join(nbhd.Kinds, ", ") + ")"},
			&cli.StringFlag{Name: "rules", Usage: "--by rules, --by pr: the built-in rule table `NAME` (ud, ud1, naseem-ud, ptb, content-heads) or a rule FILE; with another --by, the rows show the share too"},
			&cli.Float64Flag{Name: "rule-share", Value: pr.DefaultRuleShare, Usage: "--by pr: the share `τ` of rules the posterior must reach, in expectation"},
			&cli.IntFlag{Name: "dev-sentences", Usage: "use only the first `N` dev sentences (0: all)"},
			&cli.StringFlag{Name: "root", Value: string(score.RootCounted), Usage: "accuracy `CONVENTION`: count (Klein) or exclude (Smith)"},
			&cli.StringFlag{Name: "best", Usage: "write the best model to `FILE` (.gz, .zst compress)"},
			&cli.BoolFlag{Name: "json", Usage: "one JSON line per model instead of the table"},
			program.WorkersFlag(), program.MaxMemoryFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := program.CheckWorkers(c); err != nil {
				return err
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			by, err := selectmodel.ParseCriterion(c.String("by"))
			if err != nil {
				return program.Usagef("%v", err)
			}
			root, err := score.ParseConvention(c.String("root"))
			if err != nil {
				return program.Usagef("%v", err)
			}
			if c.NArg() == 0 {
				return program.Usagef("no models to select from")
			}
			if !nbhd.Known(c.String("nbhd")) {
				return program.Usagef("unknown --nbhd %q (want one of %s)", c.String("nbhd"), strings.Join(nbhd.Kinds, ", "))
			}
			if c.Int("dev-sentences") < 0 {
				return program.Usagef("--dev-sentences must be ≥ 0")
			}
			if err := program.CheckModelFiles(c.Args().Slice()...); err != nil {
				return err
			}
			if (by == selectmodel.Rules || by == selectmodel.PRObjective) && c.String("rules") == "" {
				return program.Usagef("--by %s needs --rules NAME|FILE", by)
			}
			if tau := c.Float64("rule-share"); !(tau >= 0 && tau <= 1) {
				return program.Usagef("--rule-share must be in [0, 1], not %v", tau)
			}
			var rules *pr.Rules
			if c.String("rules") != "" {
				if rules, err = pr.LoadRules(c.String("rules")); err != nil {
					return err
				}
			}
			dev := pipeline.Source{Names: []string{c.String("dev")}, Stdin: c.App.Reader, Bad: &pipeline.BadRecords{Skip: c.Bool("skip-bad")}}
			best, err := program.SideOutput(c, "best")
			if err != nil {
				return err
			}
			opts := selectmodel.Options{
				Dev: dev, Models: c.Args().Slice(), By: by, Root: root, Nbhd: c.String("nbhd"), Rules: rules, RuleShare: c.Float64("rule-share"), DevSentences: c.Int("dev-sentences"),
				JSON: c.Bool("json"), Workers: c.Int("workers"), MaxMemory: limit,
			}
			if best != nil {
				opts.Best = best
			}
			return program.WriteOutput(c, dev, func(w io.Writer) error {
				rep, err := selectmodel.Run(w, opts)
				if err == nil && !c.Bool("quiet") {
					fmt.Fprintf(c.App.ErrWriter, "%s: best by %s: %s\n", c.App.Name, by, rep.Best.Model)
					if rep.UnseenTokens > 0 {
						how := "each model gives them its own unseen probability"
						if rep.UnseenWhat == "tags" { // DMV+CCM's
							how = "each model's DMV reads them as its average tag"
						}
						fmt.Fprintf(c.App.ErrWriter, "%s: %d dev tokens (%d distinct %s) unseen in training by some model; %s\n", c.App.Name, rep.UnseenTokens, rep.UnseenTypes, rep.UnseenWhat, how)
					}
					if rep.Unscorable > 0 {
						what := "the log-likelihoods leave them out"
						if by == selectmodel.Contrast {
							what = "the contrastive objectives and the log-likelihoods leave them out"
						}
						fmt.Fprintf(c.App.ErrWriter, "%s: %d dev sentences have tags some model does not know; %s\n", c.App.Name, rep.Unscorable, what)
					}
					for _, f := range rep.Fallbacks {
						fmt.Fprintf(c.App.ErrWriter, "%s: %s\n", c.App.Name, f)
					}
				}
				return err
			})
		},
	}
}
