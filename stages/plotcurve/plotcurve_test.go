package plotcurve

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// readLog reads a log written to a temporary file, so errors name it.
func readLog(t *testing.T, text string, bad *pipeline.BadRecords) (*Series, string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.log")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := pipeline.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	s, err := ReadLog(in, bad)
	return s, path, err
}

func readTestdata(t *testing.T, name string) *Series {
	t.Helper()
	in, err := pipeline.Open(filepath.Join("testdata", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	s, err := ReadLog(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadLogEM(t *testing.T) {
	s := readTestdata(t, "em.log")
	if s.Name != "em.log" || len(s.Iterations) != 40 || len(s.NonFinite) != 0 {
		t.Fatalf("name %q, %d iterations, non-finite %v", s.Name, len(s.Iterations), s.NonFinite)
	}
	runs := s.Objective(ByIter)
	if len(runs) != 1 || len(runs[0]) != 40 {
		t.Fatalf("objective runs %d, want one of 40 points", len(runs))
	}
	if p := runs[0][0]; p.X != 1 || p.Y != -182150 {
		t.Errorf("first point %+v, want {1 -182150}", p)
	}
	if p := runs[0][39]; p.X != 40 || p.Y != -151216.45 {
		t.Errorf("last point %+v, want {40 -151216.45}", p)
	}
	for i := 1; i < 40; i++ {
		if runs[0][i].Y < runs[0][i-1].Y {
			t.Errorf("EM objective falls at iteration %v", runs[0][i].X)
		}
	}
	dir, undir := s.Accuracy(ByIter, true), s.Accuracy(ByIter, false)
	if len(dir) != 1 || len(dir[0]) != 40 || len(undir) != 1 || len(undir[0]) != 40 {
		t.Fatalf("accuracy runs %d and %d, want one of 40 points each", len(dir), len(undir))
	}
	if got := dir[0][0].Y; math.Abs(got-30.17) > 1e-9 {
		t.Errorf("first directed accuracy %v%%, want 30.17%%", got)
	}
	if got := undir[0][39].Y; math.Abs(got-64.87) > 1e-9 {
		t.Errorf("last undirected accuracy %v%%, want 64.87%%", got)
	}
	if byTime := s.Objective(BySeconds); byTime[0][0].X != 0.836 || byTime[0][39].X != 33.583 {
		t.Errorf("x by seconds runs from %v to %v, want 0.836 to 33.583", byTime[0][0].X, byTime[0][39].X)
	}
	if first, bounds := s.Stages(ByIter); first != "" || bounds != nil {
		t.Errorf("one-stage run has stages %q %v", first, bounds)
	}
}

func TestReadLogAnnealing(t *testing.T) {
	s := readTestdata(t, "da.log")
	if len(s.Iterations) != 34 {
		t.Fatalf("%d iterations, want 34", len(s.Iterations))
	}
	if it := s.Iterations[18]; it.Stage != 2 || it.Beta == nil || *it.Beta != 1 || it.Change == nil {
		t.Errorf("iteration 19 decoded as %+v", it)
	}
	first, bounds := s.Stages(ByIter)
	if first != "β=0.5" || len(bounds) != 1 || bounds[0] != (Boundary{X: 18.5, Label: "β=1"}) {
		t.Errorf("stages %q %+v, want β=0.5 then {18.5 β=1}", first, bounds)
	}
	_, bounds = s.Stages(BySeconds)
	if want := (15.755 + 16.643) / 2; len(bounds) != 1 || math.Abs(bounds[0].X-want) > 1e-9 {
		t.Errorf("boundary by seconds %+v, want at %v", bounds, want)
	}
}

func TestStageLabels(t *testing.T) {
	s, _, err := readLog(t, `{"iter":1,"stage":1,"objective":-9,"delta":-0.6,"beta":1}
{"iter":2,"stage":1,"objective":-8,"delta":-0.6,"beta":1}
{"iter":3,"stage":2,"objective":-8.5,"delta":-0.5,"beta":1}
{"iter":4,"stage":3,"objective":-8.2,"delta":-0.0,"beta":1}
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	// β is the same in every stage, so only δ names them.
	first, bounds := s.Stages(ByIter)
	want := []Boundary{{2.5, "δ=-0.5"}, {3.5, "δ=0"}}
	if first != "δ=-0.6" || len(bounds) != 2 || bounds[0] != want[0] || bounds[1] != want[1] {
		t.Errorf("stages %q %+v, want δ=-0.6 then %+v", first, bounds, want)
	}
	// Stages that differ in nothing logged are labelled by their numbers.
	s, _, err = readLog(t, "{\"iter\":1,\"stage\":1,\"objective\":-9}\n{\"iter\":2,\"stage\":2,\"objective\":-8}\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if first, bounds := s.Stages(ByIter); first != "stage 1" || len(bounds) != 1 || bounds[0] != (Boundary{X: 1.5, Label: "stage 2"}) {
		t.Errorf("stages %q %+v, want stage 1, then stage 2 at 1.5", first, bounds)
	}
}

func TestReadLogNonFinite(t *testing.T) {
	s, _, err := readLog(t, `{"iter":1,"objective":"-inf","directed":0.2}
{"iter":2,"objective":-50}

{"iter":3,"objective":"nan"}
{"iter":4,"objective":-40}
{"iter":5,"objective":-39.5}
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 4}; len(s.NonFinite) != 2 || s.NonFinite[0] != want[0] || s.NonFinite[1] != want[1] {
		t.Errorf("non-finite lines %v, want %v", s.NonFinite, want)
	}
	runs := s.Objective(ByIter)
	if len(runs) != 2 || len(runs[0]) != 1 || runs[0][0].X != 2 || len(runs[1]) != 2 || runs[1][1].Y != -39.5 {
		t.Errorf("objective runs %v, want [[2 -50]] [[4 -40] [5 -39.5]]", runs)
	}
	if acc := s.Accuracy(ByIter, true); len(acc) != 1 || len(acc[0]) != 1 || acc[0][0].Y != 20 {
		t.Errorf("directed runs %v, want [[1 20]]", acc)
	}
	if acc := s.Accuracy(ByIter, false); len(acc) != 0 {
		t.Errorf("undirected runs %v, want none", acc)
	}
}

func TestReadLogErrors(t *testing.T) {
	for _, tc := range []struct{ name, log, want string }{
		{"invalid JSON", "{\"iter\":1,\"objective\":-3}\n{\"iter\":2,\n", `:2: invalid JSON`},
		{"not an iteration", `{"ev":"stats","sentences":3}`, `:1: missing "iter": not an iteration record`},
		{"no objective", `{"iter":1,"seconds":0.5}`, `:1: missing "objective"`},
		{"objective not a number", `{"iter":1,"objective":"high"}`, `:1: invalid JSON`},
		{"two runs", "{\"iter\":1,\"objective\":-3}\n{\"iter\":2,\"objective\":-2}\n{\"iter\":1,\"objective\":-3}\n", `:3: iter 1 after iter 2: iterations must increase`},
		{"time backwards", "{\"iter\":1,\"objective\":-3,\"seconds\":2}\n{\"iter\":2,\"objective\":-2,\"seconds\":1}\n", `:2: seconds 1 after 2`},
		{"percent", `{"iter":1,"objective":-3,"directed":45.2}`, `:1: directed 45.2 is not a fraction between 0 and 1`},
		{"negative iter", `{"iter":-1,"objective":-3}`, `:1: iter -1 is negative`},
		{"empty", "", `: no iterations: an empty training log`},
		{"blank lines", "\n  \n", `: no iterations`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, path, err := readLog(t, tc.log, nil)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want %s%s…", err, path, tc.want)
			}
		})
	}
}

func TestReadLogSkipBad(t *testing.T) {
	bad := &pipeline.BadRecords{Skip: true}
	s, _, err := readLog(t, "{\"iter\":1,\"objective\":-3}\nnot json\n{\"iter\":2}\n{\"iter\":3,\"objective\":-2}\n", bad)
	if err != nil {
		t.Fatal(err)
	}
	if bad.Count != 2 || len(s.Iterations) != 2 || s.Iterations[1].Iter != 3 {
		t.Errorf("skipped %d, kept %d iterations, want 2 and 2", bad.Count, len(s.Iterations))
	}
	var le *pipeline.LineError
	if !errors.As(bad.First, &le) || le.Line != 2 {
		t.Errorf("first bad record %v, want line 2", bad.First)
	}
}

func TestParseLength(t *testing.T) {
	for in, want := range map[string]vg.Length{
		"6in": 6 * vg.Inch, "15cm": 15 * vg.Centimeter, "150mm": 150 * vg.Millimeter,
		"400pt": 400, "6.5": 6.5 * vg.Inch, " 4 in": 4 * vg.Inch,
	} {
		if got, err := ParseLength(in); err != nil || math.Abs(float64(got-want)) > 1e-9 {
			t.Errorf("ParseLength(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "in", "6px", "-3cm", "0", "NaN", "inf", "6 inches"} {
		if got, err := ParseLength(in); err == nil {
			t.Errorf("ParseLength(%q) = %v, want an error", in, got)
		}
	}
}

func TestFormatOf(t *testing.T) {
	for in, want := range map[string]string{"a.svg": "svg", "dir/b.PNG": "png", "c.pdf": "pdf"} {
		if got, err := FormatOf(in); err != nil || got != want {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"a.jpg", "a", "a.svg.gz", "png"} {
		if _, err := FormatOf(in); err == nil {
			t.Errorf("FormatOf(%q) succeeded, want an error", in)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Options{Format: "png", Width: 6 * vg.Inch}
	if err := ok.Validate(); err != nil {
		t.Fatalf("default size: %v", err)
	}
	for _, o := range []Options{
		{Format: "gif"},
		{Format: "svg", X: "time"},
		{Format: "svg", Width: vg.Inch},
		{Format: "svg", Height: 700 * vg.Inch},
		{Format: "png", DPI: 5},
		{Format: "png", Width: 90 * vg.Inch, Height: 90 * vg.Inch},
	} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v validated, want an error", o)
		}
	}
}

// TestNiceTicks checks the tick labels are round, inside the range, about
// as many as asked, and whole numbers on an iteration axis.
func TestNiceTicks(t *testing.T) {
	for _, r := range [][2]float64{{1, 40}, {1, 3}, {0, 2}, {-182150, -151216}, {28, 66}, {0.8, 33.6}, {0.3, 0.45}, {1, 250}, {-1e-9, 1e-9}} {
		for _, integer := range []bool{false, true} {
			if integer && (r[0] != math.Trunc(r[0]) || r[1]-r[0] < 2) {
				continue
			}
			ticks := niceTicks{Labels: 6, Integer: integer}.Ticks(r[0], r[1])
			var labels []float64
			for _, tk := range ticks {
				if tk.Value < r[0]-1e-12 || tk.Value > r[1]+1e-12 {
					t.Errorf("%v: tick %v outside the range", r, tk.Value)
				}
				if tk.IsMinor() {
					continue
				}
				labels = append(labels, tk.Value)
				if v, err := strconv.ParseFloat(tk.Label, 64); err != nil || math.Abs(v-tk.Value) > 1e-9*math.Max(1, math.Abs(v)) {
					t.Errorf("%v: label %q for %v", r, tk.Label, tk.Value)
				}
				if integer && tk.Value != math.Trunc(tk.Value) {
					t.Errorf("%v: fractional iteration %v", r, tk.Value)
				}
			}
			if len(labels) < 2 || len(labels) > 11 {
				t.Errorf("%v integer=%v: %d labels %v", r, integer, len(labels), labels)
			}
		}
	}
}

// renderTestdata plots em.log and da.log into a file of the given format.
func renderTestdata(t *testing.T, ext string, opts Options) ([]byte, []*Series) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "curves."+ext)
	opts.Format = ext
	var series []*Series
	err := pipeline.WriteFile(out, nil, func(o *pipeline.Output) error {
		var err error
		series, err = Plot(pipeline.Source{Names: []string{"testdata/em.log", "testdata/da.log"}}, o, opts)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data, series
}

func TestRenderPNG(t *testing.T) {
	data, _ := renderTestdata(t, "png", Options{Width: 6 * vg.Inch, Height: 15 * vg.Centimeter, DPI: 100})
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 600 || b.Dy() != 591 {
		t.Errorf("image is %d×%d pixels, want 600×591", b.Dx(), b.Dy())
	}
	// Both curves are drawn, in their colours.
	for i := range 2 {
		want := seriesColor(i)
		found := false
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y && !found; y++ {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X && !found; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				wr, wg, wb, _ := want.RGBA()
				found = r>>8 == wr>>8 && g>>8 == wg>>8 && b>>8 == wb>>8
			}
		}
		if !found {
			t.Errorf("no pixel in the colour of series %d", i)
		}
	}
}

func TestRenderPDF(t *testing.T) {
	data, _ := renderTestdata(t, "pdf", Options{})
	if !bytes.HasPrefix(data, []byte("%PDF-")) || !bytes.Contains(data, []byte("%%EOF")) {
		t.Errorf("not a PDF: %.40q", data)
	}
}

// svgPath is a stroked path of an SVG: its points and style.
type svgPath struct {
	points [][2]float64
	stroke string
	dashed bool
}

type svgText struct {
	x    float64
	text string
}

var svgPoint = regexp.MustCompile(`[ML]([-0-9.e]+),([-0-9.e]+)`)

// parseSVG checks that data is well-formed XML and returns its stroked
// straight-line paths and its texts.
func parseSVG(t *testing.T, data []byte) (paths []svgPath, texts []svgText) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var inText *svgText
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch e.Name.Local {
			case "path":
				m := regexp.MustCompile(`stroke:(#[0-9A-Fa-f]{6})`).FindStringSubmatch(attr["style"])
				if m == nil || strings.ContainsAny(attr["d"], "AQCZ") {
					continue
				}
				p := svgPath{stroke: strings.ToLower(m[1]), dashed: strings.Contains(attr["style"], "dasharray")}
				for _, pt := range svgPoint.FindAllStringSubmatch(attr["d"], -1) {
					x, _ := strconv.ParseFloat(pt[1], 64)
					y, _ := strconv.ParseFloat(pt[2], 64)
					p.points = append(p.points, [2]float64{x, y})
				}
				paths = append(paths, p)
			case "text":
				x, _ := strconv.ParseFloat(attr["x"], 64)
				inText = &svgText{x: x}
			}
		case xml.CharData:
			if inText != nil {
				inText.text += string(e)
			}
		case xml.EndElement:
			if e.Name.Local == "text" && inText != nil {
				texts = append(texts, *inText)
				inText = nil
			}
		}
	}
	return paths, texts
}

func hexColor(i int) string {
	r, g, b, _ := seriesColor(i).RGBA()
	return "#" + strconv.FormatUint(uint64(r>>8)<<16|uint64(g>>8)<<8|uint64(b>>8)|1<<24, 16)[1:]
}

func TestRenderSVG(t *testing.T) {
	data, series := renderTestdata(t, "svg", Options{Title: "EM & DA <WSJ10>"})
	if !bytes.Contains(data, []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")) {
		t.Error("the SVG's text has no fallback font")
	}
	paths, texts := parseSVG(t, data)
	has := map[string]bool{}
	for _, tx := range texts {
		has[tx.text] = true
	}
	// EM's log-likelihood and DA's tempered objective: a panel and an
	// axis each, and the legend says which is which.
	for _, want := range []string{"em.log (log-likelihood)", "da.log (tempered objective)", "directed", "undirected", "β=0.5", "β=1",
		"EM & DA <WSJ10>", "iteration", "log-likelihood (nats)", "tempered objective (nats)", "training-set accuracy (%)"} {
		if !has[want] {
			t.Errorf("no text %q in the SVG", want)
		}
	}

	dataMaxX := math.Inf(-1)
	for i, s := range series {
		n := len(s.Iterations)
		// One path per curve: objective and directed solid, undirected
		// dashed, each through every iteration.
		var solid, dashed []svgPath
		for _, p := range paths {
			if p.stroke != hexColor(i) || len(p.points) < 3 {
				continue
			}
			if len(p.points) != n {
				t.Errorf("%s: a path of %d points, want %d", s.Name, len(p.points), n)
			}
			for _, pt := range p.points {
				dataMaxX = math.Max(dataMaxX, pt[0])
			}
			if p.dashed {
				dashed = append(dashed, p)
			} else {
				solid = append(solid, p)
			}
		}
		if len(solid) != 2 || len(dashed) != 1 {
			t.Fatalf("%s: %d solid and %d dashed curves, want 2 and 1", s.Name, len(solid), len(dashed))
		}
		// The objective panel is the upper one (SVG y grows upwards here).
		obj := solid[0]
		if solid[1].points[0][1] > obj.points[0][1] {
			obj = solid[1]
		}
		// The points are the data under one affine map per axis.
		xs, ys := make([]float64, n), make([]float64, n)
		for j, it := range s.Iterations {
			xs[j], ys[j] = float64(it.Iter), float64(it.Objective)
		}
		checkAffine(t, s.Name+" x", xs, obj.points, 0)
		checkAffine(t, s.Name+" objective", ys, obj.points, 1)
	}

	// da.log's stage boundary at iteration 18.5 crosses both panels.
	xs := []float64{1, 34}
	var ends [][2]float64
	for _, p := range paths {
		if p.stroke == hexColor(1) && !p.dashed && len(p.points) == 34 {
			ends = [][2]float64{p.points[0], p.points[33]}
			break
		}
	}
	wantX := ends[0][0] + (18.5-xs[0])/(xs[1]-xs[0])*(ends[1][0]-ends[0][0])
	boundaries := 0
	for _, p := range paths {
		if p.dashed && len(p.points) == 2 && p.points[0][0] == p.points[1][0] && math.Abs(p.points[0][0]-wantX) < 0.05 {
			boundaries++
		}
	}
	if boundaries != 2 {
		t.Errorf("%d stage boundaries at x=%.2f, want one per panel", boundaries, wantX)
	}

	// The legend is beside the data, not on it.
	for _, tx := range texts {
		if (tx.text == "em.log" || tx.text == "undirected") && tx.x <= dataMaxX {
			t.Errorf("legend text %q at x=%v, inside the data (up to x=%v)", tx.text, tx.x, dataMaxX)
		}
	}
}

// checkAffine checks that coordinate k of the points is a + b·want.
func checkAffine(t *testing.T, what string, want []float64, points [][2]float64, k int) {
	t.Helper()
	last := len(want) - 1
	b := (points[last][k] - points[0][k]) / (want[last] - want[0])
	for i := range want {
		got, exp := points[i][k], points[0][k]+b*(want[i]-want[0])
		if math.Abs(got-exp) > 0.02 { // the SVG keeps 5 significant digits
			t.Errorf("%s: point %d at %v, want %v", what, i, got, exp)
		}
	}
}

func TestRenderOneLogWithoutAccuracy(t *testing.T) {
	var logs []format.Iteration
	for i := 1; i <= 5; i++ {
		logs = append(logs, format.Iteration{Iter: i, Objective: format.Real(-100 + i*i), Seconds: float64(i)})
	}
	logs[2].Objective = format.Real(math.Inf(-1))
	s := &Series{File: "x.log", Name: "x.log", Iterations: logs, NonFinite: []int{3}}
	var buf bytes.Buffer
	if err := Render(&buf, []*Series{s}, Options{Format: "svg", X: BySeconds}); err != nil {
		t.Fatal(err)
	}
	paths, texts := parseSVG(t, buf.Bytes())
	for _, tx := range texts {
		if strings.Contains(tx.text, "accuracy") || tx.text == "directed" {
			t.Errorf("an accuracy panel without accuracies: %q", tx.text)
		}
	}
	curves := 0
	for _, p := range paths {
		if p.stroke == hexColor(0) && len(p.points) == 2 && p.points[0][0] != p.points[1][0] {
			curves++
		}
	}
	if curves != 3 { // the run 4..5, and the legend's sample and the run 1..2
		t.Errorf("%d two-point curves, want 3 (the -inf iteration splits the line)", curves)
	}
	if !bytes.Contains(buf.Bytes(), []byte(">seconds<")) {
		t.Error("the x axis is not labelled seconds")
	}

	// A log with no time in it cannot be drawn by seconds.
	for i := range logs {
		logs[i].Seconds = 0
	}
	if err := Render(&buf, []*Series{s}, Options{Format: "svg", X: BySeconds}); err == nil || !strings.Contains(err.Error(), "x.log: cannot plot by seconds") {
		t.Errorf("error %v, want x.log: cannot plot by seconds", err)
	}
}

func TestRenderAccuracyOnly(t *testing.T) {
	// No finite objective: the objective panel would show a made-up axis,
	// so only the accuracy panel is drawn.
	s, _, err := readLog(t, "{\"iter\":1,\"objective\":\"-inf\",\"directed\":0.25}\n{\"iter\":2,\"objective\":\"-inf\",\"directed\":0.5}\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Render(&buf, []*Series{s}, Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	_, texts := parseSVG(t, buf.Bytes())
	var labels []string
	for _, tx := range texts {
		if strings.Contains(tx.text, "(") {
			labels = append(labels, tx.text)
		}
	}
	if len(labels) != 1 || labels[0] != "training-set accuracy (%)" {
		t.Errorf("axis labels %q, want only the accuracy panel's", labels)
	}
	s.Iterations = s.Iterations[:1]
	s.Iterations[0].Directed = nil
	if err := Render(&buf, []*Series{s}, Options{Format: "svg"}); err == nil || !strings.Contains(err.Error(), "nothing to plot") {
		t.Errorf("error %v, want nothing to plot", err)
	}
}

func TestRenderLongLegend(t *testing.T) {
	s := &Series{File: "x.log", Name: strings.Repeat("a-very-long-log-name-", 8), Iterations: []format.Iteration{{Iter: 1, Objective: -3}, {Iter: 2, Objective: -2}}}
	var buf bytes.Buffer
	if err := Render(&buf, []*Series{s}, Options{Format: "svg"}); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("error %v, want legend names too long", err)
	}
}

// Ticks end, and are few, on ranges that overflow or are narrow next to
// their values (where i+1 == i in floating point).
func TestTicksEndOnHostileRanges(t *testing.T) {
	for _, r := range [][2]float64{
		{-math.MaxFloat64, math.MaxFloat64}, {-1e20, -1e20 + 16384}, {5e-324, 1e-323}, {3, 3}, {1, 1e12},
	} {
		for _, n := range []niceTicks{{Labels: 5}, {Labels: 8, Integer: true}} {
			done := make(chan []plot.Tick, 1)
			go func() { done <- n.Ticks(r[0], r[1]) }()
			select {
			case ticks := <-done:
				if len(ticks) > 2*maxTicks {
					t.Errorf("%v: %d ticks", r, len(ticks))
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%v: Ticks does not end", r)
			}
		}
	}
}

// TestRenderMixedKinds: an EM log's log-likelihood (some −80000 nats) and
// a CE log's contrastive objective (some −3) get a panel and an axis each,
// so that neither is flattened against the other's scale; a DA log of
// eight one-iteration stages has every stage labelled.
func TestRenderMixedKinds(t *testing.T) {
	var em, ce, da []format.Iteration
	for i := 1; i <= 8; i++ {
		x := format.Real(8.5 - float64(i)/4)
		em = append(em, format.Iteration{Iter: i, Objective: format.Real(-80000 + 1000*i), CrossEntropy: &x})
		ce = append(ce, format.Iteration{Iter: i, Objective: format.Real(-3 + 0.2*float64(i))})
		beta := 1 / float64(int(1)<<(8-i))
		da = append(da, format.Iteration{Iter: i, Stage: i, Beta: &beta, Objective: format.Real(-5000 * beta)})
	}
	series := []*Series{{File: "em.log", Name: "EM", Iterations: em}, {File: "ce.log", Name: "CE", Iterations: ce, ObjectiveName: "contrastive objective"},
		{File: "da.log", Name: "DA", Iterations: da}}
	var buf bytes.Buffer
	if err := Render(&buf, series, Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	paths, texts := parseSVG(t, buf.Bytes())
	has := map[string]bool{}
	for _, tx := range texts {
		has[tx.text] = true
	}
	for _, want := range []string{"log-likelihood (nats)", "contrastive objective (nats)", "tempered objective (nats)",
		"EM (log-likelihood)", "CE (contrastive objective)", "DA (tempered objective)"} {
		if !has[want] {
			t.Errorf("no text %q in the SVG", want)
		}
	}
	for i := 1; i <= 8; i++ {
		if want := fmt.Sprintf("β=%.3g", 1/float64(int(1)<<(8-i))); !has[want] {
			t.Errorf("stage %d is not labelled %q", i, want)
		}
	}
	// Each objective curve spans a band of its own, and most of it: the
	// axes are the curves' own.
	type band struct{ lo, hi float64 }
	var bands []band
	for i := range series {
		for _, p := range paths {
			if p.stroke != hexColor(i) || len(p.points) != 8 {
				continue
			}
			b := band{math.Inf(1), math.Inf(-1)}
			for _, pt := range p.points {
				b.lo, b.hi = math.Min(b.lo, pt[1]), math.Max(b.hi, pt[1])
			}
			if b.hi-b.lo < 60 { // of some 120 points of panel height
				t.Errorf("%s: its curve spans %.1f points: flattened", series[i].Name, b.hi-b.lo)
			}
			bands = append(bands, b)
		}
	}
	if len(bands) != 3 {
		t.Fatalf("%d objective curves, want 3", len(bands))
	}
	for i := range bands {
		for j := range i {
			if bands[i].lo < bands[j].hi && bands[j].lo < bands[i].hi {
				t.Errorf("curves %d and %d share a panel: %v, %v", j, i, bands[j], bands[i])
			}
		}
	}
}
