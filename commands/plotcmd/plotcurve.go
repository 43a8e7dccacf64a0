// Package plotcmd is the command line of plotcurve. It lives apart from
// package commands so that only the plotcurve binary carries the plotting
// library.
package plotcmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/plotcurve"
)

func init() { program.Register("plotcurve", plotcurveApp) }

func plotcurveApp() *cli.App {
	return &cli.App{
		Usage:     "draw learning curves from training logs",
		UsageText: "plotcurve -o FILE [options] [LOG...]",
		Description: `Reads the iteration logs the trainers write with --log (stdin when no LOG
is named) and draws, one line per log, the objective per iteration and,
below it on the same x axis, the directed (solid) and undirected (dashed)
attachment accuracy when the logs hold them. Stage boundaries of annealing
runs are light vertical lines, labelled with the new stage's β or δ.
The image format comes from the name of the -o file: .svg, .png or .pdf.
Iterations whose objective is -inf or nan are left out, with a note.

Examples:
   train-em --init km --log em.log wsj10.jsonl > model.jsonl
   plotcurve -o em.png em.log
   plotcurve em.log da.log --label EM --label DA --x seconds --title WSJ10 -o curves.svg`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"},
				Usage: "write the image to `FILE` (required); its extension, .svg, .png or .pdf, chooses the format, and it appears only when the run succeeds"},
			&cli.StringSliceFlag{Name: "label", DefaultText: "the logs' base names", Usage: "legend `NAME` of a log, once per log in order"},
			&cli.StringFlag{Name: "x", Value: string(plotcurve.ByIter), Usage: "the x `AXIS`: iter (iteration) or seconds (wall time)"},
			&cli.StringFlag{Name: "title", Usage: "a `TITLE` above the plot"},
			&cli.StringFlag{Name: "width", Value: "7in", Usage: "image width, a `LENGTH` in in, cm, mm or pt (a bare number is inches)"},
			&cli.StringFlag{Name: "height", DefaultText: "3.5in with one panel, 5.8in with two, 0.3in more with a title", Usage: "image height, a `LENGTH`"},
			&cli.IntFlag{Name: "dpi", Value: plotcurve.DefaultDPI, Usage: "pixels per inch of a PNG, `N`"},
			program.SkipBadFlag(), program.QuietFlag(),
		},
		DisableSliceFlagSeparator: true, // a label may hold a comma
		Action: func(c *cli.Context) error {
			opts, err := plotcurveOptions(c)
			if err != nil {
				return err
			}
			src := program.Source(c)
			if opts.Labels != nil && len(opts.Labels) != max(c.NArg(), 1) {
				return program.Usagef("%d --label for %d logs: give one per log", len(opts.Labels), max(c.NArg(), 1))
			}
			var series []*plotcurve.Series
			err = pipeline.WriteFile(c.String("output"), c.App.Writer, func(o *pipeline.Output) error {
				series, err = plotcurve.Plot(src, o, opts)
				return err
			})
			if !c.Bool("quiet") {
				src.Bad.Report(c.App.ErrWriter, c.App.Name)
				for _, s := range series {
					reportNonFinite(c.App.ErrWriter, c.App.Name, s)
				}
			}
			return err
		},
	}
}

func plotcurveOptions(c *cli.Context) (plotcurve.Options, error) {
	var opts plotcurve.Options
	out := c.String("output")
	if out == "" || out == "-" {
		return opts, program.Usagef("missing -o FILE: plotcurve writes an image file (.svg, .png or .pdf)")
	}
	var err error
	if opts.Format, err = plotcurve.FormatOf(out); err != nil {
		return opts, program.Usagef("%v", err)
	}
	if opts.X, err = plotcurve.ParseXAxis(c.String("x")); err != nil {
		return opts, program.Usagef("--x: %v", err)
	}
	if opts.Width, err = plotcurve.ParseLength(c.String("width")); err != nil {
		return opts, program.Usagef("--width: %v", err)
	}
	if h := c.String("height"); h != "" {
		if opts.Height, err = plotcurve.ParseLength(h); err != nil {
			return opts, program.Usagef("--height: %v", err)
		}
	}
	opts.DPI = c.Int("dpi")
	opts.Title = c.String("title")
	opts.Labels = c.StringSlice("label")
	if err := opts.Validate(); err != nil {
		return opts, program.Usagef("%v", err)
	}
	return opts, nil
}

// reportNonFinite tells people which iterations have no point on the
// objective curve, naming the first few lines.
func reportNonFinite(w io.Writer, program string, s *plotcurve.Series) {
	n := len(s.NonFinite)
	if n == 0 {
		return
	}
	const shown = 5
	lines := make([]string, 0, shown)
	for _, l := range s.NonFinite[:min(n, shown)] {
		lines = append(lines, fmt.Sprint(l))
	}
	more := ""
	if n > shown {
		more = ", …"
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	fmt.Fprintf(w, "%s: %s: %d non-finite objective%s not plotted (line%s %s%s)\n",
		program, s.File, n, plural, plural, strings.Join(lines, ", "), more)
}
