package cesearch

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	"github.com/grind-nlp/grind/format"
)

// problem is an objective to maximise, with its gradient.
type problem struct {
	name string
	x0   []float64
	f    func(x []float64) Eval
}

// rosenbrock is −(1 + Rosenbrock's function), whose maximum, −1, is
// reached with the relative change small.
func rosenbrock(n int) problem {
	x0 := make([]float64, n)
	for i := range x0 {
		x0[i] = []float64{-1.2, 1}[i%2]
	}
	return problem{fmt.Sprintf("rosenbrock %d", n), x0, func(x []float64) Eval {
		f, g := 0.0, make([]float64, len(x))
		for i := 0; i+1 < len(x); i++ {
			a, b := x[i+1]-x[i]*x[i], 1-x[i]
			f += 100*a*a + b*b
			g[i] += -400*a*x[i] - 2*b
			g[i+1] += 200 * a
		}
		for i := range g {
			g[i] = -g[i]
		}
		return Eval{Objective: -1 - f, Gradient: g}
	}}
}

// walled has its maximum beyond a wall where the objective has no value
// (−Inf, and a gradient of NaN): the guard steps back from it.
func walled() problem {
	return problem{"walled", []float64{0, 0.5, -1}, func(x []float64) Eval {
		f, g := 0.0, make([]float64, len(x))
		for i, v := range x {
			if v > 1.5 {
				for j := range g {
					g[j] = math.NaN()
				}
				return Eval{Objective: math.Inf(-1), Gradient: g}
			}
			d := v - 3 - float64(i)
			f -= d*d + 0.1*d*d*d*d
			g[i] = -2*d - 0.4*d*d*d
		}
		return Eval{Objective: f, Gradient: g}
	}}
}

// flat is constant: L-BFGS's first direction does not descend.
func flat() problem {
	return problem{"flat", []float64{1, 2}, func(x []float64) Eval { return Eval{Objective: 3, Gradient: make([]float64, len(x))} }}
}

// converger is the stopping rule of Options as a gonum Converger, for
// Minimize.
type converger struct {
	opts    Options
	n       int
	prev    float64
	best    []float64
	bestObj float64
	objs    []float64
}

func (c *converger) Init(int) {}

func (c *converger) Converged(loc *optimize.Location) optimize.Status {
	obj := -loc.F
	c.objs = append(c.objs, obj)
	if obj > c.bestObj || c.opts.KeepTies && obj >= c.bestObj {
		c.best, c.bestObj = slices.Clone(loc.X), obj
	}
	done := false
	if c.n > 0 {
		done = (&Search{opts: c.opts}).converged(c.prev, obj)
	}
	c.n++
	c.prev = obj
	if done {
		return optimize.FunctionConvergence
	}
	return optimize.NotTerminated
}

// trace is what a search did: the points evaluated, the objectives of the
// accepted points, and how it ended.
type trace struct {
	points        [][]float64
	objs          []float64
	best          []float64
	bestObj       float64
	status        optimize.Status
	err           string
	accepted, fev int
}

func (a *trace) diff(b *trace) string {
	n := min(len(a.points), len(b.points))
	for i := 0; i < n; i++ {
		if !slices.Equal(a.points[i], b.points[i]) {
			return fmt.Sprintf("evaluation %d at %v, not %v", i+1, a.points[i], b.points[i])
		}
	}
	switch {
	case len(a.points) != len(b.points):
		return fmt.Sprintf("%d evaluations, not %d", len(a.points), len(b.points))
	case !slices.Equal(a.objs, b.objs):
		return fmt.Sprintf("accepted objectives %v, not %v", a.objs, b.objs)
	case !slices.Equal(a.best, b.best) || a.bestObj != b.bestObj:
		return fmt.Sprintf("best %v (%v), not %v (%v)", a.best, a.bestObj, b.best, b.bestObj)
	case a.status != b.status || a.err != b.err:
		return fmt.Sprintf("ended %v (%s), not %v (%s)", a.status, a.err, b.status, b.err)
	case a.accepted != b.accepted || a.fev != b.fev:
		return fmt.Sprintf("%d iterations and %d function evaluations, not %d and %d", a.accepted, a.fev, b.accepted, b.fev)
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// minimize runs gonum's Minimize as train-ce did before this package:
// each point evaluated once (gonum asks for the value and the gradient
// apart).
func minimize(p problem, opts Options) *trace {
	tr := &trace{}
	var atX []float64
	var at Eval
	eval := func(x []float64) Eval {
		if atX == nil || !slices.Equal(x, atX) {
			at, atX = p.f(x), slices.Clone(x)
			tr.points = append(tr.points, atX)
		}
		return at
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { return -eval(x).Objective },
		Grad: func(g, x []float64) {
			for i, v := range eval(x).Gradient {
				g[i] = -v
			}
		},
	}
	conv := &converger{opts: opts, bestObj: math.Inf(-1), best: slices.Clone(p.x0)}
	settings := &optimize.Settings{MajorIterations: opts.MaxIter + 1, FuncEvaluations: opts.MaxEvals, Converger: conv}
	method := &optimize.LBFGS{}
	if opts.Linesearch == Guarded {
		method.Linesearcher = &guarded{inner: &optimize.MoreThuente{}}
	}
	res, err := optimize.Minimize(prob, p.x0, settings, method)
	tr.objs, tr.best, tr.bestObj = conv.objs, conv.best, conv.bestObj
	tr.status, tr.err = res.Status, errText(err)
	tr.accepted, tr.fev = res.Stats.MajorIterations, res.Stats.FuncEvaluations
	return tr
}

// search runs a Search; with saveAll, it is saved (through JSON) and
// restored before every evaluation (every 101st past the 150th: a line
// search that tries thousands of points is replayed whole at each).
func search(t *testing.T, p problem, opts Options, saveAll bool) *trace {
	tr := &trace{}
	s, err := New(opts, p.x0)
	if err != nil {
		t.Fatal(err)
	}
	observe := func(it Iteration) error {
		tr.objs = append(tr.objs, it.Objective)
		return nil
	}
	for !s.Done() {
		if n := len(tr.points); saveAll && (n < 150 || n%101 == 0) {
			want := slices.Clone(s.Pending())
			b, err := json.Marshal(s.State())
			if err != nil {
				t.Fatal(err)
			}
			var st State
			if err := json.Unmarshal(b, &st); err != nil {
				t.Fatal(err)
			}
			if s, err = Restore(&st); err != nil {
				t.Fatalf("%s: after %d evaluations: %v", p.name, len(tr.points), err)
			}
			if !slices.Equal(s.Pending(), want) {
				t.Fatalf("%s: restored after %d evaluations, it waits for %v, not %v", p.name, len(tr.points), s.Pending(), want)
			}
		}
		x := slices.Clone(s.Pending())
		tr.points = append(tr.points, x)
		if err := s.Give(p.f(x), observe); err != nil {
			t.Fatal(err)
		}
	}
	tr.best, tr.bestObj = s.Best()
	tr.status, tr.err = s.status, errText(s.err)
	tr.accepted, tr.fev = s.major, s.funcEvals
	if s.Evals() != len(tr.points) {
		t.Errorf("%s: %d evaluations counted, %d made", p.name, s.Evals(), len(tr.points))
	}
	return tr
}

var (
	dmvOptions = Options{Linesearch: Guarded, Rule: RelativeChange, Tol: 1e-5, MaxIter: 100, MaxEvals: 40 * 101, KeepTies: true}
	hmmOptions = Options{Linesearch: Bisection, Rule: WithinTol, Tol: 1e-7, MaxIter: 100, MaxEvals: 20 * 101}
)

// The search evaluates the points gonum's Minimize evaluates, bit for
// bit, accepts the same ones and ends the same way, under train-ce's
// options and train-hmm's; and saved and restored before every
// evaluation, it does the same again.
func TestSameAsMinimize(t *testing.T) {
	tight := dmvOptions
	tight.Tol = 0
	short := dmvOptions
	short.MaxEvals = 7
	fewIters := hmmOptions
	fewIters.MaxIter = 4
	cases := []struct {
		p    problem
		opts Options
		want string // how it ends (a word of the status or error)
	}{
		{rosenbrock(6), dmvOptions, "FunctionConvergence"},
		{rosenbrock(6), tight, "GradientThreshold"},
		{rosenbrock(6), hmmOptions, "FunctionConvergence"},
		{rosenbrock(2), short, "FunctionEvaluationLimit"},
		{rosenbrock(6), fewIters, "IterationLimit"},
		{walled(), dmvOptions, ""},
		{walled(), tight, ""},
		{flat(), dmvOptions, "non-descent"},
		{flat(), hmmOptions, "non-descent"},
	}
	for _, c := range cases {
		start := time.Now()
		name := fmt.Sprintf("%s %s tol %g", c.p.name, c.opts.Linesearch, c.opts.Tol)
		want := minimize(c.p, c.opts)
		if !strings.Contains(want.status.String()+want.err, c.want) {
			t.Errorf("%s: Minimize ended %v (%s), not the case meant (%s)", name, want.status, want.err, c.want)
		}
		if len(want.objs) > Memory+2 {
			t.Logf("%s: %d iterations (beyond L-BFGS's memory), %d evaluations, %v %s", name, len(want.objs), len(want.points), want.status, want.err)
		}
		for _, saveAll := range []bool{false, true} {
			if d := search(t, c.p, c.opts, saveAll).diff(want); d != "" {
				t.Errorf("%s (saved at every evaluation: %v): %s", name, saveAll, d)
			}
		}
		t.Logf("%s: %v", name, time.Since(start))
	}
}

// An observer's error ends the search and is Give's.
func TestObserverError(t *testing.T) {
	p := rosenbrock(2)
	s, _ := New(dmvOptions, p.x0)
	stop := errors.New("stop")
	n := 0
	for !s.Done() {
		err := s.Give(p.f(s.Pending()), func(it Iteration) error {
			if n++; n == 3 {
				return stop
			}
			return nil
		})
		if err != nil {
			if err != stop {
				t.Fatalf("error %v", err)
			}
			break
		}
	}
	if !s.Done() || n != 3 {
		t.Fatalf("done %v after %d iterations", s.Done(), n)
	}
}

// A saved state that no search could have saved is refused.
func TestRestoreRefusesEditedStates(t *testing.T) {
	p := rosenbrock(4)
	s, _ := New(dmvOptions, p.x0)
	for i := 0; i < 25 && !s.Done(); i++ {
		if err := s.Give(p.f(s.Pending()), nil); err != nil {
			t.Fatal(err)
		}
	}
	good := s.State()
	if len(good.Window) != Memory+1 {
		t.Fatalf("a window of %d points", len(good.Window))
	}
	edits := map[string]func(st *State){
		"memory":        func(st *State) { st.Memory = 10 },
		"window short":  func(st *State) { st.Window = st.Window[1:] },
		"start length":  func(st *State) { st.Start = st.Start[1:] },
		"gradient":      func(st *State) { st.Window[3].Gradient = st.Window[3].Gradient[:2] },
		"x not finite":  func(st *State) { st.Window[0].X[0] = math.NaN() },
		"objective inf": func(st *State) { st.Window[2].Objective = format.Real(math.Inf(1)) },
		"counts":        func(st *State) { st.FuncEvals = st.MaxEvals },
		"accepted":      func(st *State) { st.Accepted = 0 },
		"line search":   func(st *State) { st.Linesearch = "golden" },
		"iterations":    func(st *State) { st.MaxIter = 0 },
	}
	for name, edit := range edits {
		b, _ := json.Marshal(good)
		var st State
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		edit(&st)
		if _, err := Restore(&st); err == nil {
			t.Errorf("%s: an edited state restored", name)
		}
	}
	// A trial that the line search would have stopped at (its first
	// step accepted) cannot be waiting.
	var st State
	b, _ := json.Marshal(good)
	_ = json.Unmarshal(b, &st)
	if rs, err := Restore(&st); err != nil {
		t.Fatal(err)
	} else {
		e := p.f(rs.Pending())
		neg := make([]float64, len(e.Gradient))
		for i, g := range e.Gradient {
			neg[i] = -g
		}
		st.Trials = append(st.Trials, TrialJSON{Objective: format.Real(e.Objective), Derivative: format.Real(floats.Dot(neg, rs.d))})
		if _, err := Restore(&st); err == nil {
			t.Error("a state whose line search had accepted its trial restored")
		}
	}
}

func TestVectorJSON(t *testing.T) {
	v := Vector{0, -0.1, 1e-300, math.Inf(-1), math.NaN(), math.Inf(1), 123456789.123456789}
	b, _ := json.Marshal(v)
	var w Vector
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	if len(w) != len(v) || math.Float64bits(w[6]) != math.Float64bits(v[6]) || !math.IsNaN(w[4]) || !math.IsInf(w[3], -1) {
		t.Fatalf("%s read back as %v", b, w)
	}
	for _, bad := range []string{`[1,]`, `[1,,2]`, `[1 2]`, `{"a":1}`, `["x"]`, `[true]`} {
		if err := json.Unmarshal([]byte(bad), &w); err == nil {
			t.Errorf("%s read as %v", bad, w)
		}
	}
}

// The guard steps back from points without a value instead of handing
// them to the inner line search.
func TestGuardedLineSearch(t *testing.T) {
	l := &guarded{inner: &optimize.MoreThuente{}}
	if op := l.Init(10, -1, 1); op&optimize.FuncEvaluation == 0 {
		t.Fatalf("Init asks for %v", op)
	}
	for _, want := range []float64{0.1, 0.01} {
		op, step, err := l.Iterate(math.Inf(1), math.NaN())
		if err != nil || step != want || op&optimize.FuncEvaluation == 0 {
			t.Fatalf("after an infinite value: %v %v %v, want step %v", op, step, err, want)
		}
	}
	// A finite value goes to the inner search, which accepts this point.
	op, step, err := l.Iterate(9.99, -0.001)
	if err != nil || math.IsNaN(step) || op != optimize.MajorIteration {
		t.Fatalf("finite value: %v %v %v", op, step, err)
	}
}

// A line search that never settles ends within the evaluations allowed:
// here the gradient promises an ascent that the values never show, and
// every step is shortened again.
func TestLineSearchBoundedByMaxEvals(t *testing.T) {
	x0 := []float64{1, -2}
	f := func(x []float64) Eval {
		return Eval{Objective: -5 - 1e-3*math.Abs(x[0]-x0[0]) - 1e-3*math.Abs(x[1]-x0[1]), Gradient: []float64{-1, -1}}
	}
	opts := dmvOptions
	opts.MaxIter, opts.MaxEvals = 1, 80
	s, _ := New(opts, x0)
	evals := 0
	for !s.Done() {
		evals++
		if err := s.Give(f(s.Pending()), nil); err != nil {
			t.Fatal(err)
		}
	}
	if evals > opts.MaxEvals {
		t.Fatalf("%d evaluations (limit %d)", evals, opts.MaxEvals)
	}
}

// Any state a file may hold either restores or is refused: nothing
// panics, and a restored search goes on.
func FuzzRestore(f *testing.F) {
	p := rosenbrock(3)
	for _, n := range []int{0, 1, 5, 30} {
		s, _ := New(dmvOptions, p.x0)
		for i := 0; i < n && !s.Done(); i++ {
			s.Give(p.f(s.Pending()), nil)
		}
		if st := s.State(); st != nil {
			b, _ := json.Marshal(st)
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st State
		if json.Unmarshal(data, &st) != nil {
			return
		}
		s, err := Restore(&st)
		if err != nil {
			return
		}
		for i := 0; i < 5 && !s.Done(); i++ {
			if x := s.Pending(); len(x) != len(st.Start) {
				t.Fatalf("restored over %d weights, waits for %d", len(st.Start), len(x))
			} else {
				s.Give(p.f(x), nil) // Rosenbrock's function takes any length
			}
		}
	})
}
