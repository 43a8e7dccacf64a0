// Package reportcmd is the command line of report. It lives apart from
// package commands so that only the report binary carries the plotting
// library.
package reportcmd

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/report"
)

func init() { commands.Register("report", reportApp) }

func reportApp() *cli.App {
	return &cli.App{
		Usage:     "write one self-contained HTML page about training runs",
		UsageText: "report -o FILE --run NAME=[LOG,]PARSED [--run ...] [options]",
		Description: `Each --run names a run and its files: LOG is the trainer's --log file
(optional: without it the run has no learning curve) and PARSED is decode's
output, sentences with gold "heads" and predicted "pred". The page shows
each run's accuracy root counted and root excluded, the learning curves,
accuracy by gold tag, by gold tag pair and by gold arc length, a few
sentences drawn with the gold tree above and the predicted one below
(wrong arcs dashed), and, with several runs, a sentence-level sign test of
each against the first. Several runs must parse the same sentences in the
same order. The page needs no network: styles and figures are inline.
A run is split at its first "=" and its last ",".

Examples:
   train-em --log em.log c.jsonl > m.jsonl; decode -m m.jsonl c.jsonl > p.jsonl
   report -o em.html --run EM=em.log,p.jsonl
   report -o cmp.html --run EM=em.log,em.jsonl --run DA=da.log,da.jsonl --title 'WSJ10'`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"},
				Usage: "write the page to `FILE` (required; - for stdout); it appears only when the run succeeds"},
			&cli.StringSliceFlag{Name: "run", Usage: "a run, `NAME=[LOG,]PARSED`, once per run; the first is the sign tests' baseline"},
			&cli.StringFlag{Name: "title", Usage: "the page's `TITLE` (default \"Training report\")"},
			&cli.IntFlag{Name: "top", Value: report.DefaultTop, Usage: "`N` rows of the tag and tag-pair tables"},
			&cli.IntFlag{Name: "trees", Value: report.DefaultTrees, Usage: "`N` sentences to draw (0 for none)"},
			commands.SkipBadFlag(), commands.QuietFlag(),
		},
		DisableSliceFlagSeparator: true,
		Action: func(c *cli.Context) error {
			out := c.String("output")
			if out == "" {
				return commands.Usagef("missing -o FILE: report writes an HTML page")
			}
			if c.NArg() > 0 {
				return commands.Usagef("unexpected argument %q: runs are given with --run NAME=[LOG,]PARSED", c.Args().First())
			}
			specs, err := parseRuns(c.StringSlice("run"))
			if err != nil {
				return err
			}
			if c.Int("top") < 1 {
				return commands.Usagef("--top must be at least 1, not %d", c.Int("top"))
			}
			if c.Int("trees") < 0 {
				return commands.Usagef("--trees must be 0 or more, not %d", c.Int("trees"))
			}
			opts := report.Options{Title: c.String("title"), Top: c.Int("top"), Trees: c.Int("trees")}
			if opts.Trees == 0 {
				opts.Trees = -1
			}
			src := commands.Source(c)
			var runs []*report.Run
			err = func() error {
				for _, s := range specs {
					r, err := report.Load(s, c.App.Reader, src.Bad)
					if err != nil {
						return err
					}
					runs = append(runs, r)
				}
				return pipeline.WriteFile(out, c.App.Writer, func(o *pipeline.Output) error {
					return report.Write(o, runs, opts)
				})
			}()
			if !c.Bool("quiet") {
				src.Bad.Report(c.App.ErrWriter, c.App.Name)
			}
			return err
		},
	}
}

// parseRuns reads the --run values: NAME=PARSED or NAME=LOG,PARSED.
func parseRuns(values []string) ([]report.Spec, error) {
	if len(values) == 0 {
		return nil, commands.Usagef("no --run given: name at least one run as NAME=[LOG,]PARSED")
	}
	var specs []report.Spec
	seen := map[string]bool{}
	for _, v := range values {
		name, files, ok := strings.Cut(v, "=")
		if !ok || name == "" || files == "" {
			return nil, commands.Usagef("--run %q: want NAME=[LOG,]PARSED", v)
		}
		if seen[name] {
			return nil, commands.Usagef("--run: two runs named %q", name)
		}
		seen[name] = true
		s := report.Spec{Name: name, Parsed: files}
		if i := strings.LastIndex(files, ","); i >= 0 {
			s.Log, s.Parsed = files[:i], files[i+1:]
			if s.Log == "" || s.Parsed == "" {
				return nil, commands.Usagef("--run %q: want NAME=[LOG,]PARSED", v)
			}
		}
		specs = append(specs, s)
	}
	return specs, nil
}
