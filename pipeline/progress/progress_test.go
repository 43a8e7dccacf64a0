package progress

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/golden"
)

// clock is a fake clock that a test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)} }

func real(v float64) *format.Real   { r := format.Real(v); return &r }
func float64ptr(v float64) *float64 { return &v }
func lines(b *bytes.Buffer) []string {
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// fixed is a reporter off a terminal on clock c.
func fixed(c *clock, w *bytes.Buffer, p Plan) *Reporter {
	return newReporter(w, "train-em", p, nil, c.now)
}

// TestLinesGolden: the lines off a terminal of an EM run with accuracies,
// a DA run whose last stage carries bits/token, a Gibbs run of an exact
// number of sweeps and a CE run with δ, each iteration taking a known
// time.
func TestLinesGolden(t *testing.T) {
	var out bytes.Buffer
	run := func(title string, plan Plan, its []format.Iteration, step time.Duration) {
		c := newClock()
		fmt.Fprintf(&out, "# %s\n", title)
		r := fixed(c, &out, plan)
		for _, it := range its {
			c.advance(step)
			r.Iteration(it)
		}
		r.Note("a note")
		r.Done()
	}
	var em []format.Iteration
	for i, obj := range []float64{-847263.4124, -81165.90327, -9.5, -1.234567891e+06, -1669.104126} {
		it := format.Iteration{Iter: i + 1, Objective: format.Real(obj), CrossEntropy: real(4.185946 - float64(i)), Seconds: float64(i) * 1.25,
			Directed: float64ptr(0.297 + 0.1*float64(i)), Undirected: float64ptr(0.455)}
		if i > 0 {
			it.Change = real(0.01459 / float64(i))
		}
		em = append(em, it)
	}
	em[2].Directed = float64ptr(1)
	run("train-em --max-iter 100: an upper bound, accuracies", Plan{MaxIter: 100}, em, 1250*time.Millisecond)

	var da []format.Iteration
	iter := 0
	for stage, beta := range []float64{0.1, 0.5, 1} {
		for k := range 2 {
			iter++
			it := format.Iteration{Iter: iter, Stage: stage + 1, Beta: float64ptr(beta), Objective: format.Real(-1000 * float64(iter)), Seconds: float64(iter) * 2}
			if k > 0 {
				it.Change = real(1e-3)
			}
			if beta == 1 {
				it.CrossEntropy = real(10.5)
			}
			da = append(da, it)
		}
	}
	run("train-da, 3 stages of at most 10 iterations", Plan{MaxIter: 10, Stages: 3}, da, 2*time.Second)

	var gibbs []format.Iteration
	for i := range 3 {
		it := format.Iteration{Iter: 998 + i, Objective: format.Real(-12345.5 - float64(i)), Beta: float64ptr(1.5 - 0.25*float64(i)), Seconds: 30}
		if i > 0 {
			it.Change = real(2e-5)
		}
		gibbs = append(gibbs, it)
	}
	run("train-hmm --estimator gibbs: exactly 2000 sweeps, resumed at 998", Plan{MaxIter: 2000, Exact: true, NoCrossEntropy: true}, gibbs, 50*time.Millisecond)

	var ce []format.Iteration
	for i := range 3 {
		it := format.Iteration{Iter: i + 1, Stage: 1 + i/2, Delta: float64ptr(-0.6 + 0.6*float64(i/2)), Objective: format.Real(-42.25 * float64(i+1))}
		if i%2 == 1 {
			it.Change = real(0.5)
		}
		ce = append(ce, it)
	}
	run("train-ce, 2 δ stages of the start and at most 3 iterations", Plan{MaxIter: 4, Stages: 2, NoCrossEntropy: true}, ce, 90*time.Minute)
	golden.Check(t, "testdata/lines.txt", out.Bytes())
}

// TestLinesAligned: whatever the magnitudes of iteration, objective,
// change, accuracies and seconds, every field of a run's lines starts at
// the same column, also when bits/token appears only in the last stage.
func TestLinesAligned(t *testing.T) {
	for _, plan := range []Plan{{MaxIter: 1000}, {MaxIter: 100, Stages: 12}, {}} {
		c := newClock()
		var out bytes.Buffer
		r := fixed(c, &out, plan)
		objs := []float64{-1, -12.5, -847263.4124, -1.234567891e+06, -1e-300, 3.25e+100, -81165.90327}
		for i := range 120 {
			it := format.Iteration{Iter: 1 + i*i/15 /* 1 to 945: within the plans' bounds */, Objective: format.Real(objs[i%len(objs)]), Seconds: float64(i*i) * 1.5,
				Directed: float64ptr(float64(i%11) / 10), Undirected: float64ptr(1)}
			if i%3 != 0 {
				it.Change = real(float64(i) * 1e-7)
			}
			if plan.Stages > 0 {
				it.Stage = 1 + i/10
				it.Beta = float64ptr(float64(it.Stage) / 12)
				if it.Stage == 12 {
					it.CrossEntropy = real(float64(i) / 7)
				}
			}
			c.advance(time.Duration(i*i) * time.Millisecond)
			r.Iteration(it)
		}
		ls := lines(&out)
		for _, label := range []string{"objective", "change", "dir", "undir", "s  ", "/iter"} {
			col := -1
			for _, l := range ls {
				k := strings.Index(l, label)
				if k < 0 {
					t.Fatalf("plan %+v: no %q in %q", plan, label, l)
				}
				k = utf8.RuneCountInString(l[:k])
				if col >= 0 && k != col {
					t.Errorf("plan %+v: %q at column %d, not %d as above:\n%s", plan, label, k, col, l)
				}
				col = k
			}
		}
	}
}

// TestRemaining: the iterations the plan allows after an iteration, with
// and without stages; a stage that converged early shortens the bound.
func TestRemaining(t *testing.T) {
	for _, tc := range []struct {
		plan                    Plan
		iter, stage, stageIters int
		want                    int
		known                   bool
	}{
		{Plan{MaxIter: 100}, 1, 0, 1, 99, true},
		{Plan{MaxIter: 100}, 100, 0, 100, 0, true},
		{Plan{MaxIter: 100}, 120, 0, 120, 0, true}, // never negative
		{Plan{}, 5, 0, 5, 0, false},
		{Plan{MaxIter: 10, Stages: 5}, 1, 1, 1, 9 + 40, true},
		{Plan{MaxIter: 10, Stages: 5}, 13, 2, 3, 7 + 30, true}, // stage 1 ended after 10
		{Plan{MaxIter: 10, Stages: 5}, 5, 3, 1, 9 + 20, true},  // stages 1, 2 converged in 2 each
		{Plan{MaxIter: 10, Stages: 5}, 30, 5, 10, 0, true},
	} {
		got, known := Remaining(tc.plan, tc.iter, tc.stage, tc.stageIters)
		if got != tc.want || known != tc.known {
			t.Errorf("Remaining(%+v, iter %d, stage %d, %d in stage) = %d, %v; want %d, %v", tc.plan, tc.iter, tc.stage, tc.stageIters, got, known, tc.want, tc.known)
		}
	}
}

// TestETA: the rate is the mean interval between the iterations seen (the
// first: the time since the reporter was made), the time left the rate
// times the iterations left, counting down between iterations.
func TestETA(t *testing.T) {
	c := newClock()
	var out bytes.Buffer
	r := fixed(c, &out, Plan{MaxIter: 10, Stages: 3})
	c.advance(5 * time.Second) // reading the corpus
	r.Iteration(format.Iteration{Iter: 1, Stage: 1})
	check := func(wantRate float64, wantETA time.Duration) {
		t.Helper()
		if got := r.rateLocked(); got != wantRate {
			t.Errorf("rate %v s/iter, want %v", got, wantRate)
		}
		if got, ok := r.etaLocked(c.now()); !ok || got != wantETA {
			t.Errorf("ETA %v (%v), want %v", got, ok, wantETA)
		}
	}
	check(5, 5*29*time.Second)
	c.advance(2 * time.Second)
	check(5, 5*29*time.Second-2*time.Second) // counting down
	c.advance(1 * time.Second)
	r.Iteration(format.Iteration{Iter: 2, Stage: 1})
	check(3, 3*28*time.Second) // the first interval, 3 s; 8 left in stage 1, 10 in each of 2 and 3
	c.advance(1 * time.Second)
	r.Iteration(format.Iteration{Iter: 3, Stage: 2}) // stage 1 converged after 2
	// Intervals 3 s and 1 s: 2 s each; 9 left in stage 2, 10 in stage 3.
	check(2, 2*19*time.Second)
	c.advance(time.Hour) // longer than the estimate: never negative
	check(2, 0)
	if !strings.Contains(out.String(), "ETA ≤ ") {
		t.Errorf("a run --tol may stop early shows no upper bound: %q", out.String())
	}
}

// TestDuration: the time left for people.
func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 400 * time.Millisecond: "0s", 45 * time.Second: "45s", 59*time.Second + 600*time.Millisecond: "1m00s",
		192 * time.Second: "3m12s", 2*time.Hour + 5*time.Minute: "2h05m", 99*time.Hour + 59*time.Minute: "99h59m",
		76 * time.Hour * 2: "6d08h",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
	for secs, want := range map[float64]string{0.000228: "0.228 ms/iter", 0.0451: "45.1 ms/iter", 1.234: "1.23 s/iter", 312.4: "312 s/iter"} {
		if got := Rate(secs); got != want {
			t.Errorf("Rate(%v) = %q, want %q", secs, got, want)
		}
	}
}

// TestLeft: induce's estimate of the candidates still to train.
func TestLeft(t *testing.T) {
	for _, tc := range []struct {
		elapsed     time.Duration
		done, total int
		want        time.Duration
	}{{10 * time.Second, 1, 4, 30 * time.Second}, {9 * time.Second, 3, 12, 27 * time.Second}, {time.Minute, 12, 12, 0}, {time.Minute, 0, 12, 0}} {
		if got := Left(tc.elapsed, tc.done, tc.total); got != tc.want {
			t.Errorf("Left(%v, %d, %d) = %v, want %v", tc.elapsed, tc.done, tc.total, got, tc.want)
		}
	}
}

// TestTerminalWidth: a terminal that reports 0 columns, or none, gets
// the fallback width; a wide one is bounded.
func TestTerminalWidth(t *testing.T) {
	for _, tc := range []struct {
		cols int
		err  error
		want int
	}{{0, nil, FallbackWidth}, {-1, nil, FallbackWidth}, {120, errors.New("not a terminal"), FallbackWidth}, {60, nil, 60}, {300, nil, MaxWidth}} {
		if got := TerminalWidth(tc.cols, tc.err); got != tc.want {
			t.Errorf("TerminalWidth(%d, %v) = %d, want %d", tc.cols, tc.err, got, tc.want)
		}
	}
}

// TestStatusGolden: the status line on terminals of several widths: the
// bar and the objective when they fit, never longer than width−1 columns.
func TestStatusGolden(t *testing.T) {
	var out bytes.Buffer
	for _, tc := range []struct {
		plan Plan
		it   format.Iteration
	}{
		{Plan{MaxIter: 100}, format.Iteration{Iter: 37, Objective: -81165.90327}},
		{Plan{MaxIter: 10, Stages: 52}, format.Iteration{Iter: 137, Stage: 14, Beta: float64ptr(0.0012), Objective: -847263.4124}},
		{Plan{MaxIter: 2000, Exact: true}, format.Iteration{Iter: 1500, Objective: -1.234567891e+06}},
		{Plan{}, format.Iteration{Iter: 3, Objective: -5}},
	} {
		for _, width := range []int{FallbackWidth, 120, 60, 30} {
			c := newClock()
			var screen bytes.Buffer
			r := newReporter(&screen, "train-da", tc.plan, func() int { return width }, c.now)
			c.advance(1500 * time.Millisecond)
			r.Iteration(tc.it)
			c.advance(300 * time.Millisecond)
			line := r.statusLocked(c.now(), width)
			if n := utf8.RuneCountInString(line); n > width-1 {
				t.Errorf("width %d: a line of %d columns: %q", width, n, line)
			}
			fmt.Fprintf(&out, "%3d |%s|\n", width, line)
		}
	}
	golden.Check(t, "testdata/status.txt", out.Bytes())
}

// TestTerminalRedraws: on a terminal each iteration redraws the line in
// place, a note goes above it, and Done clears it.
func TestTerminalRedraws(t *testing.T) {
	c := newClock()
	var screen bytes.Buffer
	// A terminal that reports 0 columns.
	r := newReporter(&screen, "train-em", Plan{MaxIter: 4}, func() int { return TerminalWidth(0, nil) }, c.now)
	for i := 1; i <= 2; i++ {
		c.advance(time.Second)
		r.Iteration(format.Iteration{Iter: i, Objective: format.Real(-float64(i))})
	}
	r.Note("stage %d done", 1)
	r.Done()
	// 80 columns: a bar of 15.
	want := "\r\033[Ktrain-em  iter 1  [===>           ]  1 s/iter  ETA ≤ 3s  objective -1" +
		"\r\033[Ktrain-em  iter 2  [=======>       ]  1 s/iter  ETA ≤ 2s  objective -2" +
		"\r\033[Kstage 1 done\n" +
		"\r\033[Ktrain-em  iter 2  [=======>       ]  1 s/iter  ETA ≤ 2s  objective -2" +
		"\r\033[K"
	if screen.String() != want {
		t.Errorf("screen:\n%q\nwant\n%q", screen.String(), want)
	}
}

// TestQuiet: a quiet reporter says nothing.
func TestQuiet(t *testing.T) {
	var out bytes.Buffer
	r := New(&out, "train-em", Plan{MaxIter: 3}, true)
	r.Iteration(format.Iteration{Iter: 1})
	r.Note("x")
	r.Done()
	if out.Len() != 0 {
		t.Errorf("quiet wrote %q", out.String())
	}
}
