package commands

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/classes"
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
it (with --mbr it parsed the chosen models of the UD languages better than
Viterbi: docs/results.md); the report of what was tried and why this one
goes to stderr and to --report.

Where a chain already meets the rules — attach-right's parses of the dev
sentences instantiate at least --chain-limit of them (65%; of the UD v1.4
languages only Japanese, 74–77%, whose bunsetsu words are 70% NOUN) — their
share cannot tell a grammar from a chain, and the candidates are instead
EM in the DMV with 3 stop and 2 child valences over the tags refined by the
words' last characters (NOUN_の, NOUN_は: each tag and ending seen 100 times
in training), ranked by dev likelihood; the model's header says so, and
decode and select-model refine the tags they read as it did. The limit
rests on one language (docs/results.md, "A chain that meets the rules").

Presets (--preset): quick (3 candidates), medium (20), full (84, the
default: its pick scored above medium's on the UD languages' selection
halves); their times for 5,000 training sentences of ≤ 10 words are in
docs/results.md (full: under half a minute on 2 cores). Give --dev the
unannotated sentences of every length you mean to parse: the choice is
made on them.

From words alone (--words; no tags needed, none read): word classes are
learnt from every training and dev sentence (Brown clustering into
--classes clusters, each of the --function-words most frequent word forms a
class of its own), and the candidates — EM and structural annealing from
km and zero (preset medium, its default: 4; quick 2, full 16) — are
constrained by UD's content-head principle (no function word heads a
dependency, in 95% of them: --rules content-heads) and trained on the
sentences of at most --max-len words; the one of the highest dev
likelihood is chosen. -o is then a directory: DIR/tagger.jsonl (tag -m
applies it to new text), DIR/model.jsonl (decode -m parses the tagged
text) and DIR/report.txt.

Examples:
   conll2deps xx-train.conllu | filterlen 10 > train.jsonl
   conll2deps xx-dev.conllu | filterlen 10 > dev.jsonl
   induce --train train.jsonl --dev dev.jsonl -o model.jsonl
   decode --mbr -m model.jsonl test.jsonl | score
   induce --train train.jsonl --dev dev.jsonl --preset quick --report why.txt -o model.jsonl
   induce --train train.jsonl --dev dev.jsonl --save-dir runs -o model.jsonl
   select-model --dev annotated-dev.jsonl runs/*.jsonl     # what 20 annotated sentences would pick
   induce --words --train train.jsonl --dev dev.jsonl -o xx    # raw words: xx/tagger.jsonl, xx/model.jsonl
   tag -m xx/tagger.jsonl test.jsonl | decode -m xx/model.jsonl | score`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "train", Required: true, TakesFile: true, Usage: "the unannotated training sentences `FILE`"},
			&cli.StringFlag{Name: "dev", Required: true, TakesFile: true, Usage: "the unannotated dev sentences `FILE`, which the choice is made on"},
			&cli.StringFlag{Name: "preset", DefaultText: induce.DefaultPreset + ", with --words " + induce.DefaultWordPreset, Usage: "the candidates: `NAME` quick, medium or full"},
			&cli.StringFlag{Name: "rules", DefaultText: "detected from the tags", Usage: "the universal rules: a built-in table `NAME` (ud, ud1, naseem-ud, ptb, content-heads) or a rule FILE"},
			&cli.Float64Flag{Name: "chain-limit", Value: induce.DefaultChainLimit, Usage: "train over the words' endings where attach-right's dev parses meet this `SHARE` of the rules (above 1: never)"},
			&cli.StringFlag{Name: "report", Usage: "also write the report to `FILE`"},
			&cli.BoolFlag{Name: "words", Usage: "start from the words: induce word classes, then the grammar over them; -o is a directory"},
			&cli.IntFlag{Name: "classes", Value: induce.DefaultWordOptions().Classes, Usage: "--words: `K` Brown clusters"},
			&cli.IntFlag{Name: "function-words", Value: induce.DefaultWordOptions().FunctionWords, Usage: "--words: the `N` most frequent word forms each a class of its own"},
			&cli.IntFlag{Name: "max-len", Value: induce.DefaultWordOptions().MaxLen, Usage: "--words: train and choose the grammar on the sentences of at most `N` words (the classes are learnt from all)"},
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
			if _, err := induce.Grid(preset(c)); err != nil {
				return program.Usagef("--preset: %v", err)
			}
			if c.Bool("words") {
				return induceWords(c)
			}
			for _, f := range []string{"classes", "function-words", "max-len"} {
				if c.IsSet(f) {
					return program.Usagef("--%s is an option of --words", f)
				}
			}
			if l := c.Float64("chain-limit"); !(l > 0) || math.IsInf(l, 0) {
				return program.Usagef("--chain-limit must be a share above 0 (above 1: never), not %v", l)
			}
			if c.NArg() > 0 {
				return program.Usagef("induce reads --train and --dev, not %s", strings.Join(c.Args().Slice(), " "))
			}
			bad := &pipeline.BadRecords{Skip: c.Bool("skip-bad")}
			opts := induce.Options{
				Train: pipeline.Source{Names: []string{c.String("train")}, Stdin: c.App.Reader, Bad: bad},
				Dev:   pipeline.Source{Names: []string{c.String("dev")}, Stdin: c.App.Reader, Bad: bad},
				Rules: c.String("rules"), Preset: preset(c), Workers: c.Int("workers"),
				SaveDir: c.String("save-dir"), MaxMemory: limit, ChainLimit: c.Float64("chain-limit"),
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

// preset is --preset, or the default of tagged text or of --words.
func preset(c *cli.Context) string {
	switch {
	case c.IsSet("preset"):
		return c.String("preset")
	case c.Bool("words"):
		return induce.DefaultWordPreset
	}
	return induce.DefaultPreset
}

// induceWords is induce --words: the tagger, the grammar and the report
// into the directory -o.
func induceWords(c *cli.Context) error {
	dir := c.String("output")
	wo := induce.WordOptions{Method: classes.MethodBrown, Classes: c.Int("classes"), FunctionWords: c.Int("function-words"), MaxLen: c.Int("max-len")}
	switch {
	case dir == "-" || !c.IsSet("output"):
		return program.Usagef("--words writes a directory: name it with -o DIR")
	case c.IsSet("rules"):
		return program.Usagef("--words constrains the grammar by content heads (--rules content-heads) alone; --rules is for tagged text")
	case c.IsSet("chain-limit"):
		return program.Usagef("--chain-limit is for tagged text: --words's classes are not ranked by universal rules")
	case wo.Classes < 2:
		return program.Usagef("--classes must be ≥ 2, not %d", wo.Classes)
	case wo.FunctionWords < 0:
		return program.Usagef("--function-words must be ≥ 0, not %d", wo.FunctionWords)
	case wo.MaxLen < 1:
		return program.Usagef("--max-len must be ≥ 1, not %d", wo.MaxLen)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return program.Usagef("-o %s: --words writes a directory, and this is a file", dir)
	}
	bad := &pipeline.BadRecords{Skip: c.Bool("skip-bad")}
	opts := induce.Options{
		Train:  pipeline.Source{Names: []string{c.String("train")}, Stdin: c.App.Reader, Bad: bad},
		Dev:    pipeline.Source{Names: []string{c.String("dev")}, Stdin: c.App.Reader, Bad: bad},
		Preset: preset(c), Workers: c.Int("workers"), SaveDir: c.String("save-dir"),
	}
	if !c.Bool("quiet") {
		opts.Notes = c.App.ErrWriter
	}
	res, err := induce.RunWords(opts, wo)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	writers := []struct {
		name  string
		write func(*pipeline.Output) error
	}{
		{"tagger.jsonl", func(o *pipeline.Output) error { return res.Tagger.Write(o) }},
		{"model.jsonl", res.WriteModel},
		{"report.txt", func(o *pipeline.Output) error { return res.WriteReport(o, opts.Preset) }},
	}
	for _, w := range writers {
		if err := pipeline.WriteFile(filepath.Join(dir, w.name), nil, w.write); err != nil {
			return err
		}
	}
	if c.String("report") != "" {
		if err := pipeline.WriteFile(c.String("report"), nil, func(o *pipeline.Output) error { return res.WriteReport(o, opts.Preset) }); err != nil {
			return err
		}
	}
	if !c.Bool("quiet") {
		return res.WriteReport(c.App.ErrWriter, opts.Preset)
	}
	return nil
}
