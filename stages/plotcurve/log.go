package plotcurve

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"gonum.org/v1/plot/plotter"
)

// XAxis is what the shared horizontal axis measures.
type XAxis string

// The quantities the horizontal axis can show.
const (
	ByIter    XAxis = "iter"    // the iteration number
	BySeconds XAxis = "seconds" // wall time since training began
)

// ParseXAxis reads the name of an XAxis.
func ParseXAxis(s string) (XAxis, error) {
	switch x := XAxis(s); x {
	case ByIter, BySeconds:
		return x, nil
	}
	return "", fmt.Errorf("the x axis is %q or %q, not %q", ByIter, BySeconds, s)
}

// Series is one training log: its iterations in order, and where the
// objective was not a finite number (those iterations are kept for their
// accuracies but have no objective point).
type Series struct {
	File       string // where the log was read from, for messages
	Name       string // the legend's name for it: the file's base name, or a --label
	Iterations []format.Iteration
	NonFinite  []int // line numbers whose objective is -inf, inf or nan
	// Objective names what the log's objective is ("contrastive
	// objective", "variational bound", …) when the caller knows it from
	// elsewhere (report: the run's program and flags); "" lets the log's
	// fields tell (Kind).
	ObjectiveName string
}

// logLine decodes one log line and tells absent fields from zero ones, so
// that a record missing "iter" or "objective" is an error, not iteration 0.
type logLine struct {
	format.Iteration
	Iter      *int         `json:"iter"`
	Objective *format.Real `json:"objective"`
}

// ReadLog reads one training log. A line that is not a valid iteration
// record is an error located at its line (or skipped and counted when bad
// says so); a log with no iterations at all is an error.
func ReadLog(in *pipeline.Input, bad *pipeline.BadRecords) (*Series, error) {
	s := &Series{File: in.Name, Name: displayName(in.Name)}
	err := pipeline.EachRecordIn(in, bad, func(rec *logLine, at *pipeline.Lines) error {
		if rec.Iter == nil {
			return pipeline.BadRecord(errors.New(`missing "iter": not an iteration record`))
		}
		if rec.Objective == nil {
			return pipeline.BadRecord(errors.New(`missing "objective"`))
		}
		it := rec.Iteration
		it.Iter, it.Objective = *rec.Iter, *rec.Objective
		if err := s.check(&it); err != nil {
			return pipeline.BadRecord(err)
		}
		if f := float64(it.Objective); math.IsNaN(f) || math.IsInf(f, 0) {
			s.NonFinite = append(s.NonFinite, at.Line())
		}
		s.Iterations = append(s.Iterations, it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(s.Iterations) == 0 {
		return nil, fmt.Errorf("%s: no iterations: an empty training log", in.Name)
	}
	return s, nil
}

// check rejects what would draw a wrong picture rather than fail: logs of
// two runs in one file, accuracies in percent instead of fractions.
func (s *Series) check(it *format.Iteration) error {
	if it.Iter < 0 {
		return fmt.Errorf("iter %d is negative", it.Iter)
	}
	if it.Stage < 0 {
		return fmt.Errorf("stage %d is negative", it.Stage)
	}
	if it.Seconds < 0 {
		return fmt.Errorf("seconds %g is negative", it.Seconds)
	}
	if n := len(s.Iterations); n > 0 {
		prev := &s.Iterations[n-1]
		if it.Iter <= prev.Iter {
			return fmt.Errorf("iter %d after iter %d: iterations must increase (one run per log)", it.Iter, prev.Iter)
		}
		if it.Seconds < prev.Seconds {
			return fmt.Errorf("seconds %g after %g: time must not go backwards", it.Seconds, prev.Seconds)
		}
	}
	for _, a := range []struct {
		name string
		v    *float64
	}{{"directed", it.Directed}, {"undirected", it.Undirected}} {
		if a.v != nil && !(*a.v >= 0 && *a.v <= 1) {
			return fmt.Errorf("%s %g is not a fraction between 0 and 1", a.name, *a.v)
		}
	}
	return nil
}

// displayName is how the legend names a log: its base name.
func displayName(name string) string {
	if name == pipeline.StdinName {
		return "stdin"
	}
	return filepath.Base(name)
}

// x is the horizontal position of an iteration.
func (x XAxis) of(it *format.Iteration) float64 {
	if x == BySeconds {
		return it.Seconds
	}
	return float64(it.Iter)
}

// Objective returns the objective curve as runs of consecutive finite
// values: an iteration whose objective is not finite breaks the line
// instead of being drawn at a made-up height.
func (s *Series) Objective(x XAxis) []plotter.XYs {
	return s.runs(x, func(it *format.Iteration) (float64, bool) {
		f := float64(it.Objective)
		return f, !math.IsNaN(f) && !math.IsInf(f, 0)
	})
}

// Accuracy returns the directed (or undirected) attachment accuracy in
// percent, as runs of consecutive iterations that logged it.
func (s *Series) Accuracy(x XAxis, directed bool) []plotter.XYs {
	return s.runs(x, func(it *format.Iteration) (float64, bool) {
		v := it.Undirected
		if directed {
			v = it.Directed
		}
		if v == nil {
			return 0, false
		}
		return 100 * *v, true
	})
}

// HasAccuracy reports whether any iteration logged an accuracy.
func (s *Series) HasAccuracy() bool {
	for i := range s.Iterations {
		if s.Iterations[i].Directed != nil || s.Iterations[i].Undirected != nil {
			return true
		}
	}
	return false
}

func (s *Series) runs(x XAxis, y func(*format.Iteration) (float64, bool)) []plotter.XYs {
	var runs []plotter.XYs
	var cur plotter.XYs
	for i := range s.Iterations {
		it := &s.Iterations[i]
		v, ok := y(it)
		if !ok {
			if len(cur) > 0 {
				runs = append(runs, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, plotter.XY{X: x.of(it), Y: v})
	}
	if len(cur) > 0 {
		runs = append(runs, cur)
	}
	return runs
}

// Boundary is where one stage of a training run ends and the next begins.
type Boundary struct {
	X     float64 // halfway between the stages' last and first iterations
	Label string  // the new stage's annealing parameters, e.g. "β=0.5", or "stage 2"
}

// Stages returns the series' stage boundaries, and the label of its first
// stage. Labels show the annealing parameters (β, δ, segmentation β) that
// vary in this log; a run whose stages differ in nothing logged gets the
// stages' numbers ("stage 2").
func (s *Series) Stages(x XAxis) (first string, bounds []Boundary) {
	its := s.Iterations
	varies := func(get func(*format.Iteration) *float64) bool {
		for i := range its {
			a, b := get(&its[0]), get(&its[i])
			if (a == nil) != (b == nil) || (a != nil && *a != *b) {
				return true
			}
		}
		return false
	}
	params := []struct {
		name string
		get  func(*format.Iteration) *float64
	}{
		{"β", func(it *format.Iteration) *float64 { return it.Beta }},
		{"δ", func(it *format.Iteration) *float64 { return it.Delta }},
		{"seg β", func(it *format.Iteration) *float64 { return it.SegBeta }},
	}
	var shown []int // the parameters that vary, in the order above
	for i, p := range params {
		if varies(p.get) {
			shown = append(shown, i)
		}
	}
	label := func(it *format.Iteration) string {
		if len(shown) == 0 {
			return fmt.Sprintf("stage %d", it.Stage)
		}
		var l string
		for _, i := range shown {
			if v := params[i].get(it); v != nil {
				if l != "" {
					l += " "
				}
				l += fmt.Sprintf("%s=%.3g", params[i].name, *v+0) // +0: no "-0"
			}
		}
		return l
	}
	for i := 1; i < len(its); i++ {
		if its[i].Stage != its[i-1].Stage {
			mid := (x.of(&its[i-1]) + x.of(&its[i])) / 2
			bounds = append(bounds, Boundary{X: mid, Label: label(&its[i])})
		}
	}
	if len(bounds) > 0 {
		first = label(&its[0])
	}
	return first, bounds
}
