package cesearch

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/grind-nlp/grind/format"
)

// State is a search saved while it waits for an evaluation: what Restore
// rebuilds it from. In JSON (its fields' tags) every number is exact (the
// shortest form that reads back to the same float64), and −∞, +∞ and NaN
// are the strings "-inf", "inf" and "nan".
type State struct {
	Linesearch Linesearch  `json:"linesearch"`
	Rule       Rule        `json:"rule"`
	Tol        format.Real `json:"tol"`
	MaxIter    int         `json:"max_iter"`
	MaxEvals   int         `json:"max_evals"`
	KeepTies   bool        `json:"keep_ties"`
	Memory     int         `json:"memory"`
	// Accepted counts the accepted points (the start's included: gonum's
	// major iterations), FuncEvals gonum's function evaluations, and
	// Evals the points evaluated.
	Accepted  int    `json:"accepted"`
	FuncEvals int    `json:"func_evals"`
	Evals     int    `json:"evals"`
	Start     Vector `json:"start"`
	// Window is the last accepted points, oldest first, at most Memory+1:
	// L-BFGS's memory is made of them.
	Window []PointJSON `json:"window"`
	// Trials are the points the line search under way has tried, from
	// the last accepted point: each one's objective and derivative along
	// the search direction (of −objective, gonum's sign).
	Trials        []TrialJSON `json:"trials"`
	Best          Vector      `json:"best"`
	BestObjective format.Real `json:"best_objective"`
}

// PointJSON is a Point as a State holds it.
type PointJSON struct {
	X         Vector      `json:"x"`
	Objective format.Real `json:"objective"`
	Gradient  Vector      `json:"gradient"`
}

// TrialJSON is a Trial as a State holds it.
type TrialJSON struct {
	Objective  format.Real `json:"objective"`
	Derivative format.Real `json:"derivative"`
}

// Vector is a list of numbers written exactly, the non-finite ones as
// format.Real writes them.
type Vector []float64

// MarshalJSON writes v as a JSON array.
func (v Vector) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+24*len(v))
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			r, _ := format.Real(x).MarshalJSON()
			b = append(b, r...)
		} else {
			b = strconv.AppendFloat(b, x, 'g', -1, 64)
		}
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads an array of numbers (or "-inf", "inf", "nan").
func (v *Vector) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) < 2 || data[0] != '[' || data[len(data)-1] != ']' {
		return fmt.Errorf("not a list of numbers: %.40s", data)
	}
	body := bytes.TrimSpace(data[1 : len(data)-1])
	out := (*v)[:0]
	for len(body) > 0 {
		item := body
		if i := bytes.IndexByte(body, ','); i >= 0 {
			item, body = body[:i], body[i+1:]
			if len(bytes.TrimSpace(body)) == 0 {
				return errors.New("a list of numbers ends with a comma")
			}
		} else {
			body = nil
		}
		item = bytes.TrimSpace(item)
		var x float64
		if len(item) > 0 && item[0] == '"' {
			var r format.Real
			if err := r.UnmarshalJSON(item); err != nil {
				return err
			}
			x = float64(r)
		} else {
			var err error
			if x, err = strconv.ParseFloat(string(item), 64); err != nil {
				return fmt.Errorf("not a number: %s", item)
			}
		}
		out = append(out, x)
	}
	*v = out
	return nil
}

// State is the search saved; nil once it has ended (an ended search has
// nothing to continue).
func (s *Search) State() *State {
	if s.done {
		return nil
	}
	st := &State{Linesearch: s.opts.Linesearch, Rule: s.opts.Rule, Tol: format.Real(s.opts.Tol),
		MaxIter: s.opts.MaxIter, MaxEvals: s.opts.MaxEvals, KeepTies: s.opts.KeepTies, Memory: Memory,
		Accepted: s.major, FuncEvals: s.funcEvals, Evals: s.evals,
		Start: s.start, Best: s.best, BestObjective: format.Real(s.bestObj),
		Window: []PointJSON{}, Trials: []TrialJSON{}}
	for _, p := range s.window {
		st.Window = append(st.Window, PointJSON{X: p.X, Objective: format.Real(p.Objective), Gradient: p.Gradient})
	}
	for _, t := range s.trials {
		st.Trials = append(st.Trials, TrialJSON{Objective: format.Real(t.Objective), Derivative: format.Real(t.Derivative)})
	}
	return st
}

// Options are the options the state was saved with.
func (st *State) Options() Options {
	return Options{Linesearch: st.Linesearch, Rule: st.Rule, Tol: float64(st.Tol), MaxIter: st.MaxIter, MaxEvals: st.MaxEvals, KeepTies: st.KeepTies}
}

// Restore rebuilds the search st was saved from, waiting for the same
// evaluation. A state no search could have saved (edited, or of another
// version) is an error saying what is wrong.
func Restore(st *State) (*Search, error) {
	if st.Memory != Memory {
		return nil, fmt.Errorf("an L-BFGS memory of %d pairs, not %d", st.Memory, Memory)
	}
	s, err := New(st.Options(), st.Start)
	if err != nil {
		return nil, err
	}
	dim := len(st.Start)
	vec := func(what string, v []float64, finite bool) error {
		if len(v) != dim {
			return fmt.Errorf("%s has %d numbers, the start %d", what, len(v), dim)
		}
		if finite {
			for i, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Errorf("%s: number %d is %v", what, i+1, x)
				}
			}
		}
		return nil
	}
	switch {
	case st.Accepted < 0 || st.FuncEvals < st.Accepted || st.Evals < st.Accepted || st.FuncEvals >= st.MaxEvals || st.Accepted > st.MaxIter:
		return nil, fmt.Errorf("%d accepted points after %d evaluations (%d counted) within %d iterations and %d evaluations", st.Accepted, st.Evals, st.FuncEvals, st.MaxIter, st.MaxEvals)
	case len(st.Window) != min(st.Accepted, Memory+1):
		return nil, fmt.Errorf("%d points of L-BFGS's memory after %d accepted", len(st.Window), st.Accepted)
	case st.Accepted == 0 && len(st.Trials) > 0:
		return nil, errors.New("line search trials before the start is evaluated")
	}
	if err := errors.Join(vec("start", st.Start, true), vec("best", st.Best, true)); err != nil {
		return nil, err
	}
	s.major, s.funcEvals, s.evals = st.Accepted, st.FuncEvals, st.Evals
	s.best, s.bestObj = slices.Clone(st.Best), float64(st.BestObjective)
	if st.Accepted == 0 {
		return s, nil
	}
	for i, p := range st.Window {
		if err := errors.Join(vec(fmt.Sprintf("point %d of the memory", i+1), p.X, true), vec(fmt.Sprintf("the gradient at point %d of the memory", i+1), p.Gradient, true)); err != nil {
			return nil, err
		}
		if obj := float64(p.Objective); math.IsNaN(obj) || math.IsInf(obj, 0) {
			return nil, fmt.Errorf("point %d of the memory has objective %v", i+1, obj)
		}
		s.window = append(s.window, Point{X: slices.Clone(p.X), Eval: Eval{Objective: float64(p.Objective), Gradient: slices.Clone(p.Gradient)}})
	}
	last := s.window[len(s.window)-1]
	for i, v := range last.Gradient {
		s.loc.Gradient[i] = -v
	}
	copy(s.loc.X, last.X)
	s.loc.F = -last.Objective
	s.lastX, s.last, s.haveLast = slices.Clone(last.X), last.Eval, true
	s.started = true
	s.dir.seed = s.window
	s.lineSearch(s.dir.InitDirection(s.loc, s.d))
	if s.done {
		return nil, fmt.Errorf("its last point starts no line search: %v", s.err)
	}
	s.replay = true
	for i, t := range st.Trials {
		if err := s.giveTrial(Trial{Objective: float64(t.Objective), Derivative: float64(t.Derivative)}); err != nil || s.done {
			return nil, fmt.Errorf("its line search does not wait after trial %d", i+1)
		}
	}
	s.replay = false
	return s, nil
}
