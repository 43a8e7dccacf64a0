package report

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/dmvccm"
	"github.com/grind-nlp/grind/stages/plotcurve"
	"github.com/grind-nlp/grind/stages/rundir"
	"github.com/grind-nlp/grind/stages/score"
	"gonum.org/v1/plot/vg"
)

// Options control Write.
type Options struct {
	Title string // the page's heading; "" for "Training report"
	Top   int    // rows of the tag and tag-pair tables; 0 for DefaultTop
	Trees int    // sentences drawn; 0 for DefaultTrees, negative for none
}

// Defaults of Options.
const (
	DefaultTop   = 20
	DefaultTrees = 3
)

//go:embed page.html
var pageSource string

var page = template.Must(template.New("page").Parse(pageSource))

// cells are one run's figures of a row: directed and undirected accuracy
// root counted, directed F1 root excluded. A group has no undirected
// root-excluded score: a reversed arc matches the gold arc of another
// token, which may sit in another group.
type cells [3]cell

// cell is a figure as text, and whether it is the best of its row (or
// column), which the page sets in bold.
type cell struct {
	Text string
	Best bool
}

type tableRow struct {
	Key    string
	Tokens int
	Runs   []cells
}

type table struct {
	Title, Note string
	Rows        []tableRow
	Hidden      int // rows left out after the top ones
}

type runView struct {
	Name, Log, Parsed string
	Sentences, Tokens int
	Iterations        int
	Objective         string
	Counted           score.Counted
	Excluded          score.Excluded
	Cells             []cell // directed and undirected root counted, directed and undirected F1 root excluded
}

// logView is a run's training log: its file, length, last objective and
// records ("" and none without a log).
type logView struct {
	Name, File, Objective string
	Iterations            int
	Curve                 []iterView // the log's records, the curve's points
}

// bracketView is a constituent run's line: brackets scored as score does.
type bracketView struct {
	logView
	Parsed                     string
	Sentences, Skipped, Tokens int
	Cells                      []cell // UP, UR, F1, UP′, UR′, F1′, S&E F1, crossing
}

// tagView is a tagger's line: tags scored as score-tags does.
type tagView struct {
	logView
	Parsed                string
	Tokens, Induced, Gold int
	Cells                 []cell // many-to-1, 1-to-1, VI, V-measure
}

// iterView is one record of a training log, as text. Objective is exact
// (the shortest form that reads back as the same float64).
type iterView struct {
	Iter, Stage                                     int
	Objective, Change, Anneal, Directed, Undirected string
	Seconds                                         string
}

// provView is a run directory's record: where the run came from.
type provView struct {
	Name, Dir, Program, Command string
	Grind, Host, Started, Ended string // absent from an older grind's record
	Inputs                      []fileView
	Model, Test                 fileView
	Unknown                     int
	Trained                     bool // the test corpus is one the run trained on
	Flags                       []flagView
}

type fileView struct{ Role, Path, SHA256 string }

type flagView struct{ Name, Value string }

type signView struct {
	Name               string
	Wins, Losses, Ties int
	P                  string
}

type treeView struct {
	ID, Run string
	Correct string
	SVG     template.HTML
}

type pageData struct {
	Title       string
	Runs        []runView
	BracketRuns []bracketView
	TagRuns     []tagView
	Logs        []logView
	Dirs        []provView
	Curves      template.HTML
	Signs       []signView
	First       string
	Tables      []table
	Analyses    []analysisTable
	Trees       []treeView
}

// Write renders the report of runs, the first being the baseline of the
// sign tests, as one HTML page with no outside references.
func Write(w io.Writer, runs []*Run, opts Options) error {
	if len(runs) == 0 {
		return errors.New("no runs to report")
	}
	var dep []*Run // the runs scored on heads, compared sentence by sentence
	for _, r := range runs {
		if r.Kind == Heads {
			dep = append(dep, r)
		}
	}
	for _, r := range dep[min(1, len(dep)):] {
		if err := sameCorpus(dep[0], r); err != nil {
			return err
		}
	}
	if opts.Title == "" {
		opts.Title = "Training report"
	}
	if opts.Top <= 0 {
		opts.Top = DefaultTop
	}
	if opts.Trees == 0 {
		opts.Trees = DefaultTrees
	}
	d := pageData{Title: opts.Title}
	if len(dep) > 0 {
		d.First = dep[0].Name
	}
	tables := make([]Tables, len(dep))
	// One figure per kind of run: a CCM's objective is on another scale
	// than a DMV's and would flatten its curve, and so is DMV+CCM's, though
	// scored on heads as the DMV is.
	series := make([][]*plotcurve.Series, Tags+2)
	figure := func(r *Run) int {
		if slices.Contains(dmvccm.Families, r.Family) {
			return int(Tags) + 1
		}
		return int(r.Kind)
	}
	for _, r := range runs {
		lv := logView{Name: r.Name}
		if r.Log != nil {
			lv.File = r.Log.File
			lv.Iterations = len(r.Log.Iterations)
			lv.Objective = fmt.Sprintf("%.6g", float64(r.Log.Iterations[len(r.Log.Iterations)-1].Objective))
			lv.Curve = curveRows(r.Log.Iterations)
			d.Logs = append(d.Logs, lv)
			// A log with nothing drawable (every objective infinite, no
			// accuracy) keeps its row but has no curve.
			if len(r.Log.Objective(plotcurve.ByIter)) > 0 || r.Log.HasAccuracy() {
				if r.Log.Kind() == plotcurve.Plain {
					r.Log.ObjectiveName = objectiveName(r.From)
				}
				series[figure(r)] = append(series[figure(r)], r.Log)
			}
		}
		if r.From != nil {
			d.Dirs = append(d.Dirs, provenance(r.Name, r.From))
		}
		switch r.Kind {
		case Brackets:
			b := r.Brackets
			d.BracketRuns = append(d.BracketRuns, bracketView{logView: lv, Parsed: r.Parsed, Sentences: b.Sentences, Skipped: b.Skipped, Tokens: r.Tokens,
				Cells: texts(score.Pct(b.Standard.Precision), score.Pct(b.Standard.Recall), score.Pct(b.Standard.F1),
					score.Pct(b.Prime.Precision), score.Pct(b.Prime.Recall), score.Pct(b.Prime.F1), score.Pct(b.SmithEisner.F1), fmt.Sprintf("%.2f", b.Crossing))})
			continue
		case Tags:
			t := r.TagScores
			d.TagRuns = append(d.TagRuns, tagView{logView: lv, Parsed: r.Parsed, Tokens: t.Tokens, Induced: t.InducedTags, Gold: t.GoldTags,
				Cells: texts(score.Pct(t.ManyToOne), score.Pct(t.OneToOne), fmt.Sprintf("%.3f", t.VI), score.Pct(t.VMeasure))})
			continue
		}
		i := len(d.Runs)
		tables[i] = Breakdown(r.Sentences)
		v := runView{Name: r.Name, Parsed: r.Parsed, Sentences: tables[i].Total.Sentences, Tokens: tables[i].Total.Tokens,
			Counted: tables[i].Total.Counted(), Excluded: tables[i].Total.Excluded(),
			Log: lv.File, Iterations: lv.Iterations, Objective: lv.Objective}
		v.Cells = texts(score.Pct(v.Counted.Directed.Accuracy), score.Pct(v.Counted.Undirected.Accuracy),
			score.Pct(v.Excluded.Directed.F1), score.Pct(v.Excluded.Undirected.F1))
		d.Runs = append(d.Runs, v)
		if i > 0 {
			t := Sign(dep[0], r)
			d.Signs = append(d.Signs, signView{r.Name, t.Wins, t.Losses, t.Ties, fmt.Sprintf("%.3g", t.P)})
		}
	}
	// The best run of each column in bold: the highest figure, the lowest
	// crossing brackets and VI.
	markColumns(len(d.Runs), func(i, j int) *cell { return &d.Runs[i].Cells[j] }, 4, nil)
	markColumns(len(d.BracketRuns), func(i, j int) *cell { return &d.BracketRuns[i].Cells[j] }, 8, []bool{7: true})
	markColumns(len(d.TagRuns), func(i, j int) *cell { return &d.TagRuns[i].Cells[j] }, 4, []bool{2: true})
	for _, ss := range series {
		if len(ss) > 0 {
			svg, err := curves(ss)
			if err != nil {
				return err
			}
			d.Curves += svg
		}
	}
	pick := func(f func(Tables) []Row) [][]Row {
		out := make([][]Row, len(tables))
		for i, t := range tables {
			out[i] = f(t)
		}
		return out
	}
	ofKind := func(k Kind) []*Run {
		return slices.DeleteFunc(slices.Clone(runs), func(r *Run) bool { return r.Kind != k })
	}
	d.Analyses = slices.Concat(headAnalyses(dep, opts.Top), bracketAnalyses(ofKind(Brackets), opts.Top), tagAnalyses(ofKind(Tags), opts.Top))
	if len(dep) == 0 {
		return render(w, d)
	}
	d.Tables = []table{
		makeTable("By gold tag of the dependent", "", pick(func(t Tables) []Row { return t.ByTag }), opts.Top),
		makeTable("By gold tag pair, head → dependent", "ROOT rows are the tokens gold attaches to the root: root excluded leaves them out.", pick(func(t Tables) []Row { return t.ByPair }), opts.Top),
		makeTable("By gold arc length |head − dependent|", "", pick(func(t Tables) []Row { return t.ByLength }), 0),
	}
	if opts.Trees > 0 {
		for _, k := range pickTrees(dep, opts.Trees) {
			for _, r := range dep {
				s := r.Sentences[k]
				id := s.ID
				if id == "" {
					id = fmt.Sprintf("sentence %d", k+1)
				}
				d.Trees = append(d.Trees, treeView{ID: id, Run: r.Name,
					Correct: fmt.Sprintf("%d of %d", correct(s.Heads, s.Pred), s.Len()), SVG: template.HTML(ArcDiagram(s))})
			}
		}
	}
	return render(w, d)
}

// render writes the page of d.
func render(w io.Writer, d pageData) error {
	var buf bytes.Buffer
	if err := page.Execute(&buf, d); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// curveRows are the points of a learning curve, for the page's tables.
func curveRows(its []format.Iteration) []iterView {
	opt := func(p *float64, f func(float64) string) string {
		if p == nil {
			return "–"
		}
		return f(*p)
	}
	rows := make([]iterView, len(its))
	for i, it := range its {
		var anneal []string
		for _, a := range []struct {
			name string
			v    *float64
		}{{"β", it.Beta}, {"δ", it.Delta}, {"seg β", it.SegBeta}} {
			if a.v != nil {
				anneal = append(anneal, fmt.Sprintf("%s %.4g", a.name, *a.v))
			}
		}
		rows[i] = iterView{Iter: it.Iter, Stage: it.Stage,
			Objective:  strconv.FormatFloat(float64(it.Objective), 'g', -1, 64),
			Change:     "–",
			Anneal:     strings.Join(anneal, ", "),
			Directed:   opt(it.Directed, score.Pct),
			Undirected: opt(it.Undirected, score.Pct),
			Seconds:    fmt.Sprintf("%.3f", it.Seconds)}
		if it.Change != nil {
			rows[i].Change = fmt.Sprintf("%.3g", float64(*it.Change))
		}
	}
	return rows
}

// provenance lays out what run.json says of a run. An older grind's
// record has its inputs' hashes alone: they are the file arguments and
// then the files of --model and --test when set (the order the trainers
// hashed them in).
func provenance(name string, p *Provenance) provView {
	info := &p.Info
	v := provView{Name: name, Dir: p.Dir, Program: info.Program, Command: shellQuote(info.Argv),
		Host: info.Host, Started: info.Started, Ended: info.Ended,
		Model: fileView{"model", filepath.Join(p.Dir, rundir.Model), p.ModelHash},
		Test:  fileView{"scored on", p.Test, p.TestHash}, Unknown: p.UnknownTag}
	if info.Grind != nil {
		v.Grind = info.Grind.String() + " " + info.Go
	}
	var paths, roles []string
	if info.Old() {
		paths = append(paths, info.Args...)
		roles = make([]string, len(paths))
		for i := range roles {
			roles[i] = "input"
		}
		for _, f := range []string{"model", "test"} {
			if x := info.Flags[f]; x != "" {
				paths, roles = append(paths, x), append(roles, "--"+f)
			}
		}
	}
	for i, in := range info.Inputs {
		v.Trained = v.Trained || in.SHA256 == p.TestHash
		f := fileView{Role: "input", Path: in.File, SHA256: in.SHA256}
		if in.Flag != "" {
			f.Role = in.Flag
		}
		if info.Old() && i < len(paths) {
			f.Role, f.Path = roles[i], paths[i]
		}
		v.Inputs = append(v.Inputs, f)
	}
	names := make([]string, 0, len(info.Flags))
	for k := range info.Flags {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v.Flags = append(v.Flags, flagView{k, info.Flags[k]})
	}
	return v
}

// shellQuote writes argv as a shell would read it back.
func shellQuote(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}

// makeTable lines up the runs' rows, which share their keys since the runs
// share their gold trees. top > 0 keeps that many rows.
func makeTable(title, note string, rows [][]Row, top int) table {
	t := table{Title: title, Note: note}
	for j, row := range rows[0] {
		if top > 0 && j == top {
			t.Hidden = len(rows[0]) - top
			break
		}
		tr := tableRow{Key: row.Key, Tokens: row.Tally.Tokens}
		for _, run := range rows {
			tr.Runs = append(tr.Runs, rowCells(run[j].Tally))
		}
		// The best run of the row in bold, measure by measure.
		markColumns(len(tr.Runs), func(i, m int) *cell { return &tr.Runs[i][m] }, len(cells{}), nil)
		t.Rows = append(t.Rows, tr)
	}
	return t
}

func rowCells(t score.Tally) cells {
	c, e := t.Counted(), t.Excluded()
	var out cells
	out[0].Text, out[1].Text = score.Pct(c.Directed.Accuracy), score.Pct(c.Undirected.Accuracy)
	out[2].Text = "–"
	if t.GoldArcs > 0 { // a group of root tokens has nothing to score without the root
		out[2].Text = score.Pct(e.Directed.F1)
	}
	return out
}

// texts are cells of the figures given.
func texts(figures ...string) []cell {
	out := make([]cell, len(figures))
	for i, f := range figures {
		out[i].Text = f
	}
	return out
}

// markBest sets Best on the cells whose figure is the best of them — the
// highest, or the lowest when lower is better — ties all marked, as
// printed (two runs at 41.3 are both the best); nothing with fewer than
// two figures to compare ("–" is none).
func markBest(cs []*cell, lower bool) {
	best, n := math.NaN(), 0
	for _, c := range cs {
		v, err := strconv.ParseFloat(c.Text, 64)
		if err != nil {
			continue
		}
		n++
		if math.IsNaN(best) || (lower && v < best) || (!lower && v > best) {
			best = v
		}
	}
	if n < 2 {
		return
	}
	for _, c := range cs {
		if v, err := strconv.ParseFloat(c.Text, 64); err == nil && v == best {
			c.Best = true
		}
	}
}

// markColumns marks the best of each of the columns of a table of rows
// runs (at(i, j) the cell of run i, column j); lower[j] says lower is
// better in column j.
func markColumns(rows int, at func(i, j int) *cell, columns int, lower []bool) {
	for j := range columns {
		cs := make([]*cell, rows)
		for i := range cs {
			cs[i] = at(i, j)
		}
		markBest(cs, j < len(lower) && lower[j])
	}
}

// objectiveName is what a run's plain objective is, as far as its run
// directory's record says (the trainer and its estimator); "" when it
// does not (a run given by its files).
func objectiveName(p *Provenance) string {
	if p == nil {
		return ""
	}
	switch est := p.Info.Flags["estimator"]; {
	case p.Info.Program == "train-ce", p.Info.Program == "train-hmm" && est == "ce":
		return "contrastive objective"
	case est == "vb":
		return "variational bound"
	}
	return ""
}

// FigureWidth is the width the learning curves are drawn at: the page's
// (72em of 14px), so that their text is the page's size; a narrower
// window scales them down.
const FigureWidth = 10.5 * vg.Inch

// xmlProlog is the declaration gonum puts before an SVG document, which
// has no place inside HTML.
var xmlProlog = regexp.MustCompile(`^\s*<\?xml[^>]*\?>\s*`)

// curves draws the runs' learning curves with plotcurve, as inline SVG.
func curves(series []*plotcurve.Series) (template.HTML, error) {
	var buf bytes.Buffer
	if err := plotcurve.Render(&buf, series, plotcurve.Options{Format: "svg", Width: FigureWidth}); err != nil {
		return "", fmt.Errorf("learning curves: %w", err)
	}
	// gonum escapes the text it draws (run names among it).
	return template.HTML(xmlProlog.ReplaceAll(buf.Bytes(), nil)), nil
}
