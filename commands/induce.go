package commands

import (
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/induce"
)

func init() { program.Register("induce", induceApp) }

func induceApp() *cli.App {
	return &cli.App{
		Usage:     "induce a dependency grammar for a new language, without annotation",
		UsageText: "induce --train FILE --dev FILE [-o MODEL] [options]",
		Description: `Trains the estimators grind's held-out tables recommend on the training
sentences and picks one model without annotation: gold heads, when the
files have them, are never read. The candidates are DMVs trained by EM and
structural annealing, with and without posterior regularization by universal
rules (Naseem et al. 2010; the rule table is detected from the tags: UD v2
or v1 universal tags, or the Penn tags — or given with --rules), over
initializers, add-λ and the rules' share τ; the chosen one has the most
dev dependencies that the rules license (select-model --by rules), then
the highest dev likelihood. The model goes to -o (or stdout), decode takes
it; the report of what was tried and why this one goes to stderr and to
--report.

Presets (--preset): quick (3 candidates), default (20), full (84); their
times for 5,000 training sentences of ≤ 10 words are in docs/results.md.

Examples:
   conll2deps xx-train.conllu | filterlen 10 > train.jsonl
   conll2deps xx-dev.conllu | filterlen 10 > dev.jsonl
   induce --train train.jsonl --dev dev.jsonl -o model.jsonl
   decode -m model.jsonl test.jsonl | score
   induce --train train.jsonl --dev dev.jsonl --preset quick --report why.txt -o model.jsonl
   induce --train train.jsonl --dev dev.jsonl --save-dir runs -o model.jsonl
   select-model --dev annotated-dev.jsonl runs/*.jsonl     # what 20 annotated sentences would pick`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "train", Required: true, TakesFile: true, Usage: "the unannotated training sentences `FILE`"},
			&cli.StringFlag{Name: "dev", Required: true, TakesFile: true, Usage: "the unannotated dev sentences `FILE`, which the choice is made on"},
			&cli.StringFlag{Name: "preset", Value: "default", Usage: "the candidates: `NAME` quick, default or full"},
			&cli.StringFlag{Name: "rules", Usage: "the universal rules: a built-in table `NAME` (ud, ud1, naseem-ud, ptb) or a rule FILE (default: detected from the tags)"},
			&cli.StringFlag{Name: "report", Usage: "also write the report to `FILE`"},
			&cli.StringFlag{Name: "save-dir", Usage: "save every candidate's model in `DIR` (made if missing), as em-INIT-lλ-rτ.jsonl or sa±δ₀-INIT-lλ-rτ.jsonl"},
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
			if _, err := induce.Grid(c.String("preset")); err != nil {
				return program.Usagef("--preset: %v", err)
			}
			if c.NArg() > 0 {
				return program.Usagef("induce reads --train and --dev, not %s", strings.Join(c.Args().Slice(), " "))
			}
			bad := &pipeline.BadRecords{Skip: c.Bool("skip-bad")}
			opts := induce.Options{
				Train: pipeline.Source{Names: []string{c.String("train")}, Stdin: c.App.Reader, Bad: bad},
				Dev:   pipeline.Source{Names: []string{c.String("dev")}, Stdin: c.App.Reader, Bad: bad},
				Rules: c.String("rules"), Preset: c.String("preset"), Workers: c.Int("workers"),
				SaveDir: c.String("save-dir"), MaxMemory: limit,
			}
			if !c.Bool("quiet") {
				opts.Notes = c.App.ErrWriter
			}
			return program.WriteOutput(c, opts.Train, func(w io.Writer) error {
				res, err := induce.Run(w, opts)
				if err != nil {
					return err
				}
				if !c.Bool("quiet") {
					if err := res.WriteReport(c.App.ErrWriter, opts.Preset); err != nil {
						return err
					}
				}
				if c.String("report") != "" {
					return pipeline.WriteFile(c.String("report"), nil, func(o *pipeline.Output) error {
						return res.WriteReport(o, opts.Preset)
					})
				}
				return nil
			})
		},
	}
}
