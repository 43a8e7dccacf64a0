// Package plotcurve draws learning curves from the training logs the
// trainers write with --log: the objective per iteration and, when the logs
// hold them, attachment accuracies, one line per log, as an SVG, PNG or PDF
// image. It reads logs and draws; it does not train or score anything.
package plotcurve

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/grind-nlp/grind/pipeline"
)

// Options say what to draw and how big.
type Options struct {
	Format string   // "svg", "png" or "pdf" (see FormatOf)
	X      XAxis    // the shared horizontal axis; "" is ByIter
	Labels []string // legend names, one per log; nil for the logs' base names
	Title  string   // above the panels; "" for none
	// Width and Height are the image's size; a zero Height is chosen from
	// the number of panels (DefaultHeight).
	Width, Height vg.Length
	DPI           int // pixels per inch of a PNG; 0 is DefaultDPI
}

// Defaults that suit a README: readable text at the width of a page.
const (
	DefaultWidth = 7 * vg.Inch
	DefaultDPI   = 120
)

// DefaultHeight is the height of an image with the given number of panels
// (and a title or not).
func DefaultHeight(panels int, title bool) vg.Length {
	h := 1.2*vg.Inch + vg.Length(panels)*2.3*vg.Inch
	if title {
		h += 0.3 * vg.Inch
	}
	return h
}

// Limits on the image, so that a slip of the finger ("--width 700") is an
// error rather than a gigabyte of PNG.
const (
	minSide   = 2 * vg.Inch
	maxSide   = 100 * vg.Inch
	maxPixels = 50_000_000
)

// Formats lists the image formats by file extension.
var Formats = []string{"svg", "png", "pdf"}

// FormatOf is the image format of an output file, from its extension.
func FormatOf(path string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	for _, f := range Formats {
		if ext == f {
			return f, nil
		}
	}
	return "", fmt.Errorf("cannot tell the image format of %q: the name must end in .svg, .png or .pdf", path)
}

// ParseLength reads an image side: a number and a unit, "in", "cm", "mm"
// or "pt" ("15cm", "6.5in"); a bare number is inches.
func ParseLength(s string) (vg.Length, error) {
	units := []struct {
		suffix string
		unit   vg.Length
	}{{"in", vg.Inch}, {"cm", vg.Centimeter}, {"mm", vg.Millimeter}, {"pt", vg.Points(1)}, {"", vg.Inch}}
	t := strings.TrimSpace(s)
	for _, u := range units {
		num, ok := strings.CutSuffix(t, u.suffix)
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			break
		}
		return vg.Length(v) * u.unit, nil
	}
	return 0, fmt.Errorf("%q is not a length such as 6in, 15cm, 150mm or 400pt", s)
}

// Plot reads the training logs of src, one curve per input (stdin when it
// names none), and writes their image to w. It returns the logs it read,
// so that the caller can tell people about non-finite objectives.
func Plot(src pipeline.Source, w io.Writer, opts Options) ([]*Series, error) {
	var series []*Series
	err := pipeline.EachInput(src.Names, src.Stdin, func(in *pipeline.Input) error {
		s, err := ReadLog(in, src.Bad)
		if err != nil {
			return err
		}
		series = append(series, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if opts.Labels != nil {
		if len(opts.Labels) != len(series) {
			return nil, fmt.Errorf("%d labels for %d logs: give one label per log", len(opts.Labels), len(series))
		}
		for i, s := range series {
			s.Name = opts.Labels[i]
		}
	}
	return series, Render(w, series, opts)
}

// The look of the figure. Colours are Okabe and Ito's, which people with
// colour-blindness can tell apart, without the yellow that white paper
// hides.
var (
	palette = []color.Color{
		color.RGBA{0x00, 0x72, 0xb2, 0xff}, // blue
		color.RGBA{0xd5, 0x5e, 0x00, 0xff}, // vermillion
		color.RGBA{0x00, 0x9e, 0x73, 0xff}, // bluish green
		color.RGBA{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
		color.RGBA{0xe6, 0x9f, 0x00, 0xff}, // orange
		color.RGBA{0x56, 0xb4, 0xe9, 0xff}, // sky blue
		color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
	}
	sans       = font.Font{Typeface: "Liberation", Variant: "Sans"}
	undirected = []vg.Length{vg.Points(5), vg.Points(2.5)}
	gridColor  = color.Gray{0xe4}
	legendGray = color.Gray{0x55}
)

func seriesColor(i int) color.Color { return palette[i%len(palette)] }

// tint mixes c with white, for lines that should stay in the background.
func tint(c color.Color, amount float64) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8(math.Round(float64(v>>8)*amount + 255*(1-amount))) }
	return color.RGBA{mix(r), mix(g), mix(b), 0xff}
}

// Render draws the series: an objective panel, and below it, sharing the
// x axis, an accuracy panel when any series logged accuracies (each panel
// only when it has something to show). The legend and the stage labels
// sit outside the panels, so they never hide a curve.
func Render(w io.Writer, series []*Series, opts Options) error {
	if len(series) == 0 {
		return errors.New("no training logs to plot")
	}
	if err := opts.Validate(); err != nil {
		return err
	}
	x := opts.X
	if x == "" {
		x = ByIter
	}
	if x == BySeconds {
		for _, s := range series {
			if n := len(s.Iterations); n > 1 && s.Iterations[0].Seconds == s.Iterations[n-1].Seconds {
				return fmt.Errorf("%s: cannot plot by seconds: the log records no time passing", s.File)
			}
		}
	}
	finite := false
	withAccuracy := false
	for _, s := range series {
		finite = finite || len(s.Objective(x)) > 0
		withAccuracy = withAccuracy || s.HasAccuracy()
	}
	if !finite && !withAccuracy {
		return errors.New("nothing to plot: no log has a finite objective or an accuracy")
	}
	if err := checkDrawable(series, x); err != nil {
		return err
	}
	// Trainers climb different objectives, on different scales: each kind
	// (Series.Kind) gets a panel and an axis of its own, and when there
	// are several, the legend says which curve is which.
	var kinds []string
	panelOf := make([]int, len(series)) // the series' objective panel, -1 for none
	for i, s := range series {
		panelOf[i] = -1
		if len(s.Objective(x)) == 0 {
			continue
		}
		k := slices.Index(kinds, s.Kind())
		if k < 0 {
			k = len(kinds)
			kinds = append(kinds, s.Kind())
		}
		panelOf[i] = k
	}
	mixed := false
	for _, s := range series {
		mixed = mixed || s.Kind() != series[0].Kind()
	}
	// A panel without a single point would show a made-up axis.
	var objectives []*plot.Plot
	var accuracy *plot.Plot
	var plots [][]*plot.Plot
	for _, k := range kinds {
		p := newPanel(x, k+" (nats)")
		objectives = append(objectives, p)
		plots = append(plots, []*plot.Plot{p})
	}
	if withAccuracy {
		// The logs' accuracies are of each iteration's parses of the
		// corpus the run trained on.
		accuracy = newPanel(x, "training-set accuracy (%)")
		plots = append(plots, []*plot.Plot{accuracy})
	}
	legend := newLegend()
	labels := make([][]stageLabel, len(plots)) // above each panel
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for i, s := range series {
		col := seriesColor(i)
		// The series' stages are marked in its own objective panel and in
		// the accuracy panel, and labelled above the first of them.
		var own []*plot.Plot
		if panelOf[i] >= 0 {
			own = append(own, objectives[panelOf[i]])
		}
		if accuracy != nil && s.HasAccuracy() {
			own = append(own, accuracy)
		}
		first, bounds := s.Stages(x)
		if len(bounds) > 0 && len(own) > 0 {
			top := slices.IndexFunc(plots, func(row []*plot.Plot) bool { return row[0] == own[0] })
			labels[top] = append(labels[top], stageLabel{x: x.of(&s.Iterations[0]), text: first, color: col})
			xs := make([]float64, len(bounds))
			for j, b := range bounds {
				xs[j] = b.X
				labels[top] = append(labels[top], stageLabel{x: b.X, text: b.Label, color: col})
			}
			boundary := stageLines{x: xs, style: draw.LineStyle{Color: tint(col, 0.35), Width: vg.Points(1), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}}
			for _, p := range own {
				p.Add(boundary)
			}
		}
		solid := draw.LineStyle{Color: col, Width: vg.Points(1.6)}
		if panelOf[i] >= 0 {
			if err := addCurves(objectives[panelOf[i]], s.Objective(x), solid); err != nil {
				return fmt.Errorf("%s: %w", s.File, err)
			}
		}
		if accuracy != nil {
			dashed := draw.LineStyle{Color: col, Width: vg.Points(1.3), Dashes: undirected}
			if err := addCurves(accuracy, s.Accuracy(x, true), solid); err != nil {
				return fmt.Errorf("%s: %w", s.File, err)
			}
			if err := addCurves(accuracy, s.Accuracy(x, false), dashed); err != nil {
				return fmt.Errorf("%s: %w", s.File, err)
			}
		}
		name := s.Name
		if mixed {
			name += " (" + s.Kind() + ")"
		}
		legend.Add(name, lineThumb(solid))
		for j := range s.Iterations {
			v := x.of(&s.Iterations[j])
			xmin, xmax = math.Min(xmin, v), math.Max(xmax, v)
		}
	}
	if accuracy != nil {
		legend.Add("") // a gap between the logs and the line styles
		legend.Add("directed", lineThumb{Color: legendGray, Width: vg.Points(1.6)})
		legend.Add("undirected", lineThumb{Color: legendGray, Width: vg.Points(1.3), Dashes: undirected})
	}
	for _, row := range plots {
		row[0].X.Min, row[0].X.Max = xmin, xmax
	}
	// Only the bottom panel labels the shared x axis.
	for _, row := range plots[:len(plots)-1] {
		row[0].X.Label.Text = ""
		row[0].X.Tick.Marker = unlabelled{row[0].X.Tick.Marker}
	}

	width, height, dpi := opts.size(len(plots))
	if opts.Height == 0 {
		// The rows of stage labels come on top of the default height: a
		// first layout, on a canvas thrown away, counts them.
		rows, err := drawFigure(vgsvg.New(width, height), plots, labels, legend, opts.Title)
		if err != nil {
			return err
		}
		height += rows
	}
	newCanvas, _ := newCanvasFunc(opts.Format)
	canvas := newCanvas(width, height, dpi)
	if _, err := drawFigure(canvas, plots, labels, legend, opts.Title); err != nil {
		return err
	}
	if opts.Format == "svg" {
		return writeSVG(w, canvas)
	}
	_, err := canvas.WriteTo(w)
	return err
}

// drawFigure draws the panels (one above the other, sharing their x
// axis), the stage labels above each panel and the legend on canvas, and
// returns the height the rows of labels took from the panels.
func drawFigure(canvas vg.CanvasWriterTo, plots [][]*plot.Plot, labels [][]stageLabel, legend plot.Legend, title string) (vg.Length, error) {
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	margin := vg.Points(8)
	area := draw.Crop(dc, margin, -margin, margin, -margin)
	if title != "" {
		sty := textStyle(13, draw.XCenter, draw.YTop)
		area.FillText(sty, vg.Point{X: area.Center().X, Y: area.Max.Y}, title)
		area.Max.Y -= sty.Rectangle(title).Size().Y + vg.Points(6)
	}
	legendWidth := legend.Rectangle(area).Size().X
	if legendWidth > (area.Max.X-area.Min.X)/2 {
		return 0, fmt.Errorf("the legend's names are too long for a %.3gin wide image: shorten them with --label or widen the image", dc.Size().X/vg.Inch)
	}
	panelArea := draw.Crop(area, 0, -(legendWidth + vg.Points(14)), 0, 0)
	labelStyle := textStyle(9, draw.XLeft, draw.YBottom)
	rowHeight := labelStyle.Rectangle("β").Size().Y + vg.Points(2)
	// Every stage is labelled: a label that would overlap another goes on
	// a row above it, and each panel gives up the room its rows take at
	// its top. The labels' places along x do not depend on that room (the
	// panels keep their alignment), so the layout before it tells how many
	// rows each panel needs.
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(10)}
	canvases := plot.Align(plots, tiles, panelArea)
	var taken vg.Length
	for j, row := range plots {
		if rows := placeStageLabels(row[0].DataCanvas(canvases[j][0]), row[0], labels[j], labelStyle, area.Max.X, false); rows > 0 {
			room := vg.Length(rows)*rowHeight + vg.Points(2)
			canvases[j][0].Max.Y -= room
			taken += room
		}
	}
	for j, row := range plots {
		row[0].Draw(canvases[j][0])
	}
	for j, row := range plots {
		placeStageLabels(row[0].DataCanvas(canvases[j][0]), row[0], labels[j], labelStyle, area.Max.X, true)
	}
	top := plots[0][0].DataCanvas(canvases[0][0])
	legendArea := area
	legendArea.Min.X = area.Max.X - legendWidth
	legendArea.Max.Y = top.Max.Y
	legend.Draw(legendArea)
	return taken, nil
}

// writeSVG writes an SVG whose text falls back to Arial (whose metrics
// Liberation Sans shares, so the layout holds) and then to any sans-serif
// font where Liberation Sans is not installed, rather than to the
// browser's default serif.
func writeSVG(w io.Writer, canvas io.WriterTo) error {
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return err
	}
	svg := bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	_, err := w.Write(svg)
	return err
}

// Validate checks the options before any log is read, so that a slip of
// the finger ("--width 700") is a usage error rather than a gigabyte of PNG.
func (o Options) Validate() error {
	if _, err := newCanvasFunc(o.Format); err != nil {
		return err
	}
	if o.X != "" {
		if _, err := ParseXAxis(string(o.X)); err != nil {
			return err
		}
	}
	width, height, dpi := o.size(2)
	for _, side := range []struct {
		name string
		v    vg.Length
	}{{"width", width}, {"height", height}} {
		if side.v < minSide || side.v > maxSide {
			return fmt.Errorf("the %s, %.3gin, is outside %gin..%gin", side.name, side.v/vg.Inch, minSide/vg.Inch, maxSide/vg.Inch)
		}
	}
	if o.Format == "png" {
		if dpi < 10 || dpi > 2400 {
			return fmt.Errorf("%d dpi is outside 10..2400", dpi)
		}
		w, h := width.Dots(float64(dpi)), height.Dots(float64(dpi))
		if w*h > maxPixels {
			return fmt.Errorf("a %.0f×%.0f pixel PNG is too large: make it smaller or lower the dpi", w, h)
		}
	}
	return nil
}

// size is the image's size with the defaults filled in.
func (o Options) size(panels int) (width, height vg.Length, dpi int) {
	width, height, dpi = o.Width, o.Height, o.DPI
	if width == 0 {
		width = DefaultWidth
	}
	if height == 0 {
		height = DefaultHeight(panels, o.Title != "")
	}
	if dpi == 0 {
		dpi = DefaultDPI
	}
	return width, height, dpi
}

// newCanvasFunc is the canvas maker of an image format.
func newCanvasFunc(format string) (func(width, height vg.Length, dpi int) vg.CanvasWriterTo, error) {
	switch format {
	case "svg":
		return func(w, h vg.Length, _ int) vg.CanvasWriterTo { return vgsvg.New(w, h) }, nil
	case "png":
		return func(w, h vg.Length, dpi int) vg.CanvasWriterTo {
			return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))}
		}, nil
	case "pdf":
		return func(w, h vg.Length, _ int) vg.CanvasWriterTo { return vgpdf.New(w, h) }, nil
	}
	return nil, fmt.Errorf("unknown image format %q: one of %s", format, strings.Join(Formats, ", "))
}

func textStyle(size vg.Length, x draw.XAlignment, y draw.YAlignment) draw.TextStyle {
	return text.Style{Color: color.Black, Font: font.From(sans, size), XAlign: x, YAlign: y, Handler: plot.DefaultTextHandler}
}

// newPanel is one plot of the figure, in the figure's fonts, with a light
// horizontal grid (vertical lines would look like stage boundaries).
func newPanel(x XAxis, ylabel string) *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil // the figure paints one background for all
	p.X.Label.Text = "iteration"
	p.X.Tick.Marker = niceTicks{Labels: 8, Integer: true}
	if x == BySeconds {
		p.X.Label.Text = "seconds"
		p.X.Tick.Marker = niceTicks{Labels: 8}
	}
	p.Y.Label.Text = ylabel
	p.Y.Tick.Marker = niceTicks{Labels: 5}
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Label.Font = font.From(sans, 10)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal = draw.LineStyle{Color: gridColor, Width: vg.Points(0.5)}
	p.Add(grid)
	return p
}

func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(sans, 10)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(24)
	l.Padding = vg.Points(2)
	return l
}

// addCurves adds runs of points in one style: lines, and a dot for a run of
// one point, which a line cannot show.
func addCurves(p *plot.Plot, runs []plotter.XYs, style draw.LineStyle) error {
	for _, run := range runs {
		if len(run) == 1 {
			dot, err := plotter.NewScatter(run)
			if err != nil {
				return err
			}
			dot.GlyphStyle = draw.GlyphStyle{Color: style.Color, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
			p.Add(dot)
			continue
		}
		line, err := plotter.NewLine(run)
		if err != nil {
			return err
		}
		line.LineStyle = style
		p.Add(line)
	}
	return nil
}

// lineThumb is a legend entry's sample of a line style.
type lineThumb draw.LineStyle

func (t lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle(t), c.Min.X, y, c.Max.X, y)
}

// stageLines draws stage boundaries across a panel's full height.
type stageLines struct {
	x     []float64
	style draw.LineStyle
}

func (s stageLines) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, x := range s.x {
		if px := trX(x); c.ContainsX(px) {
			c.StrokeLine2(s.style, px, c.Min.Y, px, c.Max.Y)
		}
	}
}

// stageLabel names the stage that starts at x.
type stageLabel struct {
	x     float64
	text  string
	color color.Color
}

// maxLabelRows bounds the rows of stage labels above a panel: a schedule
// of many short stages (52 for Smith & Eisner's tagging one) would
// otherwise stack its labels over the whole figure. A label that finds no
// room in them is left out.
const maxLabelRows = 6

// placeStageLabels lays out the labels just above a panel's frame, each
// at the start of its stage (moved left, or right, to stay within the
// figure), on the lowest row where it overlaps no other, and returns the
// number of rows used; write says to draw them.
func placeStageLabels(dc draw.Canvas, p *plot.Plot, labels []stageLabel, sty draw.TextStyle, maxX vg.Length, write bool) int {
	trX, _ := p.Transforms(&dc)
	rowHeight := sty.Rectangle("β").Size().Y + vg.Points(2)
	var rows [][]vg.Rectangle
	gap := vg.Points(3)
	for _, l := range labels {
		if l.text == "" {
			continue
		}
		at := vg.Point{X: trX(l.x) + vg.Points(2), Y: dc.Max.Y + vg.Points(2)}
		size := sty.Rectangle(l.text).Size()
		at.X = max(dc.Min.X, min(at.X, maxX-size.X))
		r := sty.Rectangle(l.text).Add(at)
		row := 0
		for ; row < len(rows); row++ {
			free := true
			for _, d := range rows[row] {
				if r.Min.X < d.Max.X+gap && d.Min.X < r.Max.X+gap {
					free = false
					break
				}
			}
			if free {
				break
			}
		}
		if row == maxLabelRows {
			continue
		}
		if row == len(rows) {
			rows = append(rows, nil)
		}
		rows[row] = append(rows[row], r)
		if write {
			sty.Color = l.color
			dc.FillText(sty, vg.Point{X: at.X, Y: at.Y + vg.Length(row)*rowHeight}, l.text)
		}
	}
	return len(rows)
}

// maxDrawable bounds the values an axis can show: beyond it, the padding
// and tick arithmetic of an axis overflow.
const maxDrawable = 1e300

// checkDrawable refuses objectives too large to draw, naming the log.
func checkDrawable(series []*Series, x XAxis) error {
	for _, s := range series {
		for _, run := range s.Objective(x) {
			for _, p := range run {
				if math.Abs(p.Y) > maxDrawable || math.Abs(p.X) > maxDrawable {
					return fmt.Errorf("%s: objective %g at %s %g is beyond ±%g, too large to draw", s.File, p.Y, x, p.X, maxDrawable)
				}
			}
		}
	}
	return nil
}

// Kinds of objective a log's fields tell apart (Series.Kind).
const (
	LogLikelihood = "log-likelihood"     // records with a cross-entropy: EM, MAP, Viterbi EM
	Tempered      = "tempered objective" // records with β: DA, SDA (and a cooling sampler)
	Biased        = "biased objective"   // records with δ or a segmentation β: SA, CE with δ
	Plain         = "plain objective"    // none of these: CE's contrastive one, VB's bound, a sampler's log joint, …
)

// Kind names what a log's objective is: ObjectiveName when set, else what
// its fields tell — tempered (β), biased (δ, segmentation β), the
// log-likelihood (a record with a cross-entropy, which the trainers write
// only where the objective is one) or the trainer's plain objective.
// Objectives of different kinds are on different scales: Render gives
// each kind an axis of its own.
func (s *Series) Kind() string {
	if s.ObjectiveName != "" {
		return s.ObjectiveName
	}
	likelihood := false
	for _, it := range s.Iterations {
		switch {
		case it.Beta != nil:
			return Tempered
		case it.Delta != nil || it.SegBeta != nil:
			return Biased
		case it.CrossEntropy != nil:
			likelihood = true
		}
	}
	if likelihood {
		return LogLikelihood
	}
	return Plain
}

// niceTicks labels about Labels round values (steps of 1, 2, 2.5 or 5
// times a power of ten), more than gonum's default three, so that values
// can be read off the curves. Integer keeps to whole steps, for iterations.
type niceTicks struct {
	Labels  int
	Integer bool
}

func (n niceTicks) Ticks(min, max float64) []plot.Tick {
	step := n.step(min, max)
	var minor float64
	switch mant := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9)); {
	case math.Abs(mant-2) < 1e-9:
		minor = step / 2
	default:
		minor = step / 5
	}
	if n.Integer && minor < 1 {
		minor = 0
	}
	decimals := 0
	for decimals < 12 && math.Abs(step*math.Pow10(decimals)-math.Round(step*math.Pow10(decimals))) > 1e-6 {
		decimals++
	}
	var ticks []plot.Tick
	eachMultiple(min, max, step, func(i, v float64) {
		if i == 0 {
			v = 0 // not -0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	})
	if minor > 0 {
		eachMultiple(min, max, minor, func(_, v float64) {
			if r := math.Mod(math.Abs(v), step); r > minor/2 && step-r > minor/2 {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		})
	}
	return ticks
}

// maxTicks bounds the marks of an axis, whatever the range: a range
// narrow next to its values (1e20 and 1e20+1e5) could otherwise count
// multiples of the step forever, i+1 being i in floating point.
const maxTicks = 200

// eachMultiple calls fn with each multiple i·step in [min, max], at most
// maxTicks of them, and none twice.
func eachMultiple(min, max, step float64, fn func(i, v float64)) {
	if !(step > 0) || math.IsInf(step, 0) {
		return
	}
	start := math.Ceil(min/step - 1e-9)
	last := math.NaN()
	for k := 0; k < maxTicks; k++ {
		i := start + float64(k)
		v := i * step
		if !(v <= max+step*1e-9) || v == last {
			return
		}
		fn(i, v)
		last = v
	}
}

// step is the round step that gives the number of labels closest to
// n.Labels (the larger step on a tie), with at least two labels.
func (n niceTicks) step(min, max float64) float64 {
	count := func(step float64) int {
		return int(math.Floor(max/step+1e-9) - math.Ceil(min/step-1e-9) + 1)
	}
	best, bestOff := 0.0, math.MaxInt
	span := max - min
	if math.IsInf(span, 1) {
		span = math.MaxFloat64 // ±1e308: the difference overflows, the range does not
	}
	if !(span > 0) {
		return 0
	}
	top := math.Floor(math.Log10(span))
	for e := top - 2; e <= top+1; e++ {
		for _, m := range []float64{1, 2, 2.5, 5} {
			step := m * math.Pow(10, e)
			if n.Integer && step != math.Trunc(step) {
				continue
			}
			c := count(step)
			if c < 2 {
				continue
			}
			if off := abs(c - n.Labels); off < bestOff || (off == bestOff && step > best) {
				best, bestOff = step, off
			}
		}
	}
	if best == 0 { // a range too narrow for two round labels
		best = span
	}
	return best
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// unlabelled keeps a ticker's marks but not their labels, for an x axis
// the panel below labels.
type unlabelled struct{ plot.Ticker }

func (u unlabelled) Ticks(min, max float64) []plot.Tick {
	ticks := u.Ticker.Ticks(min, max)
	for i := range ticks {
		ticks[i].Label = ""
	}
	return ticks
}
