// Package reportcmd is the command line of report. It lives apart from
// package commands so that only the report binary carries the plotting
// library.
package reportcmd

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/report"
	"github.com/grind-nlp/grind/stages/rundir"
)

func init() { program.Register("report", reportApp) }

func reportApp() *cli.App {
	return &cli.App{
		Usage:     "write one self-contained HTML page about training runs",
		UsageText: "report -o FILE --test CORPUS [options] RUNDIR...\n   report -o FILE --test CORPUS --run NAME=RUNDIR [--run ...] [options]\n   report -o FILE --run NAME=[LOG,]PARSED [--run ...] [options]",
		Description: `A run is a run directory (what a trainer's --run-dir writes), named on
the command line or with --run NAME=RUNDIR: its learning curve is its
iterations.jsonl, its command line, flags and input hashes (run.json) are
shown, and its parses are --test CORPUS (sentences with gold "heads")
decoded in-process with its model.jsonl. A run without model.jsonl has not
finished and is refused. A DMV is scored on heads (every table below); a
CCM on brackets, as score scores them (CORPUS needs gold "tree"s); an HMM
on its tags, as score-tags scores them. A positional run is named after
its folder; --run runs come first.

A run can also be given by its files: LOG is the trainer's --log file
(optional: without it the run has no learning curve) and PARSED is decode's
output, sentences with gold "heads" and predicted "pred". The page shows
each run's accuracy root counted and root excluded, the learning curves,
accuracy by gold tag, by gold tag pair and by gold arc length, a few
sentences drawn with the gold tree above and the predicted one below
(wrong arcs dashed), and, with several runs, a sentence-level sign test of
each against the first. Several runs must parse the same sentences in the
same order. The page needs no network: styles and figures are inline.
A run is split at its first "=" and its last ",".

--json writes one JSON line per run instead of the page (-o optional): the
record of scores score, score-tags and select-model write — sentences,
tokens, and root, directed, undirected, counted, excluded (heads), brackets,
or score-tags' fields — with run, family, iterations and objective (the
log's last), and for each run scored on heads after the first, score's
sign_test against the first, then the run's error analyses, every row, as
score --analysis and score-tags --analysis write them: links, by_distance
and paths (heads), by_label and sequences (brackets), or confusion,
by_gold_tag, sizes and words (tags). Shares are fractions there,
percentages on the page.

Examples:
   train-em --run-dir km --init km train.jsonl; train-em --run-dir uni --init uniform train.jsonl
   report -o cmp.html --test test.jsonl km uni
   train-em --log em.log c.jsonl > m.jsonl; decode -m m.jsonl c.jsonl > p.jsonl
   report -o em.html --run EM=em.log,p.jsonl
   report -o cmp.html --run EM=em.log,em.jsonl --run DA=da.log,da.jsonl --title 'WSJ10'
   report --json --test test.jsonl km uni | jq -r '[.run, .directed, .sign_test.sentences.p] | @tsv'
   report --json --test test.jsonl km uni | jq -r '[.run, .paths.undirected.micro] | @tsv'`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"},
				Usage: "write the page to `FILE` (required but with --json; - for stdout); it appears only when the run succeeds"},
			&cli.BoolFlag{Name: "json", Usage: "write one JSON line per run, the record of scores score writes, instead of the page"},
			&cli.StringSliceFlag{Name: "run", Usage: "a run, `NAME=RUNDIR` or NAME=[LOG,]PARSED, once per run; the first is the sign tests' baseline"},
			&cli.StringFlag{Name: "test", TakesFile: true, Usage: "decode `CORPUS` (sentences with gold heads) with each run directory's model.jsonl"},
			&cli.IntFlag{Name: "workers", Usage: "`N` decoding goroutines (0: every core); the page does not depend on it"},
			program.MaxMemoryFlag(),
			&cli.StringFlag{Name: "title", DefaultText: "Training report", Usage: "the page's `TITLE`"},
			&cli.IntFlag{Name: "top", Value: report.DefaultTop, Usage: "`N` rows of the tag and tag-pair tables"},
			&cli.IntFlag{Name: "trees", Value: report.DefaultTrees, Usage: "`N` sentences to draw (0 for none)"},
			program.SkipBadFlag(), program.QuietFlag(),
		},
		DisableSliceFlagSeparator: true,
		Action: func(c *cli.Context) error {
			if c.String("output") == "" && !c.Bool("json") {
				return program.Usagef("missing -o FILE: report writes an HTML page (or JSON lines with --json)")
			}
			specs, err := parseRuns(c.StringSlice("run"), c.Args().Slice())
			if err != nil {
				return err
			}
			test := c.String("test")
			dirs := 0
			for _, s := range specs {
				if s.dir != "" {
					dirs++
				}
			}
			switch {
			case dirs > 0 && test == "":
				return program.Usagef("missing --test CORPUS: a run directory's model is scored on the sentences of --test")
			case dirs == 0 && test != "":
				return program.Usagef("--test is for run directories, and no run is one (a folder)")
			case test == "-":
				return program.Usagef("--test -: the corpus is decoded once for every run; give a file")
			}
			if c.Int("top") < 1 {
				return program.Usagef("--top must be at least 1, not %d", c.Int("top"))
			}
			if c.Int("trees") < 0 {
				return program.Usagef("--trees must be 0 or more, not %d", c.Int("trees"))
			}
			if err := program.CheckWorkers(c); err != nil {
				return err
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			opts := report.Options{Title: c.String("title"), Top: c.Int("top"), Trees: c.Int("trees")}
			if opts.Trees == 0 {
				opts.Trees = -1
			}
			if err := program.CheckFiles(c, program.Files{Inputs: runFiles(specs, test), Outputs: program.FlagFiles(c).Outputs}); err != nil {
				return err
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				var runs []*report.Run
				testBad := src.Bad // the test corpus's bad records, counted once
				var testHash string
				if dirs > 0 {
					if testHash, err = rundir.HashFile(test); err != nil {
						return err
					}
				}
				for _, s := range specs {
					var r *report.Run
					var err error
					if s.dir != "" {
						r, err = report.LoadDir(report.DirSpec{Name: s.Name, Dir: s.dir, Test: test, TestHash: testHash, Workers: c.Int("workers"), MaxMemory: limit}, testBad)
						testBad = &pipeline.BadRecords{Skip: src.Bad.Skip}
					} else {
						r, err = report.Load(s.Spec, c.App.Reader, src.Bad)
					}
					if err != nil {
						return err
					}
					runs = append(runs, r)
				}
				if c.Bool("json") {
					return report.WriteJSON(w, runs)
				}
				return report.Write(w, runs, opts)
			})
		},
	}
}

// runFiles are the files the runs of specs are read from: a run
// directory's run.json, log and model, and the test corpus they decode.
func runFiles(specs []runSpec, test string) []string {
	var files []string
	for _, s := range specs {
		if s.dir != "" {
			files = append(files, filepath.Join(s.dir, "run.json"), filepath.Join(s.dir, rundir.Log), filepath.Join(s.dir, rundir.Model))
		} else {
			files = append(files, s.Log, s.Parsed)
		}
	}
	if test != "" {
		files = append(files, test)
	}
	return files
}

// runSpec is one run of the command line: a run directory, or its files.
type runSpec struct {
	report.Spec
	dir string
}

// parseRuns reads the --run values (NAME=RUNDIR, NAME=PARSED or
// NAME=LOG,PARSED) and then the positional run directories, named after
// their folders. A value without a comma that names a folder is a run
// directory.
func parseRuns(values, dirs []string) ([]runSpec, error) {
	if len(values) == 0 && len(dirs) == 0 {
		return nil, program.Usagef("no run given: name at least one run directory, or --run NAME=[LOG,]PARSED")
	}
	var specs []runSpec
	seen := map[string]bool{}
	name := func(n, v string) error {
		if seen[n] {
			return program.Usagef("%s: two runs named %q (name them with --run NAME=RUNDIR)", v, n)
		}
		seen[n] = true
		return nil
	}
	for _, v := range values {
		n, files, ok := strings.Cut(v, "=")
		if !ok || n == "" || files == "" {
			return nil, program.Usagef("--run %q: want NAME=RUNDIR or NAME=[LOG,]PARSED", v)
		}
		if err := name(n, "--run"); err != nil {
			return nil, err
		}
		s := runSpec{Spec: report.Spec{Name: n, Parsed: files}}
		if i := strings.LastIndex(files, ","); i >= 0 {
			s.Log, s.Parsed = files[:i], files[i+1:]
			if s.Log == "" || s.Parsed == "" {
				return nil, program.Usagef("--run %q: want NAME=RUNDIR or NAME=[LOG,]PARSED", v)
			}
		} else if fi, err := os.Stat(files); err == nil && fi.IsDir() {
			s.dir, s.Parsed = files, ""
		}
		specs = append(specs, s)
	}
	for _, d := range dirs {
		if d == "" || d == "-" {
			return nil, program.Usagef("run directory %q: name a folder", d)
		}
		n := filepath.Base(filepath.Clean(d))
		if err := name(n, d); err != nil {
			return nil, err
		}
		specs = append(specs, runSpec{Spec: report.Spec{Name: n}, dir: d})
	}
	return specs, nil
}
