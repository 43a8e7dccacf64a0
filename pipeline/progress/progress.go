// Package progress tells people how training goes: on a terminal one
// status line, redrawn in place (iteration, stage, a bar, the rate and the
// time left, the objective); elsewhere one line per iteration, its fields
// in fixed-width columns. It is a package of its own so that programs
// without a training loop (estep, mstep) do not link it.
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/grind-nlp/grind/format"
)

// Plan is what a run will do at most, for the rate and the time left.
type Plan struct {
	// MaxIter bounds the iterations (records) of a run, or of each stage
	// when Stages > 0; 0 is unknown (no time left is shown).
	MaxIter int
	// Stages is the number of stages of a schedule (annealing's βs,
	// structural annealing's epochs, CE's δs); 0 for none.
	Stages int
	// Exact says the run does every iteration of the bound (Gibbs'
	// sweeps, --tol 0); otherwise a stopping rule may end it (or a stage)
	// earlier, and the time left is an upper bound ("ETA ≤").
	Exact bool
	// NoCrossEntropy says no iteration of the run carries bits/token (the
	// CCM, contrastive estimation), so no column is kept for it.
	NoCrossEntropy bool
}

// FallbackWidth is the width of the status line when the terminal does
// not say how wide it is (or says 0 columns); MaxWidth bounds it.
const (
	FallbackWidth = 80
	MaxWidth      = 100
)

// tick is how often the status line is redrawn between iterations (the
// time left counts down).
const tick = time.Second

// Reporter tells people how training goes: a status line when stderr is
// a terminal, one line per iteration otherwise, nothing when quiet.
type Reporter struct {
	w       io.Writer
	program string
	plan    Plan
	now     func() time.Time
	width   func() int // the terminal's columns; nil off a terminal

	mu         sync.Mutex
	origin     time.Time // when the reporter was made
	first      time.Time // the first iteration seen
	last       time.Time // the latest
	seen       int       // iterations seen by this process
	stage      int       // the latest iteration's stage
	stageIters int       // iterations of that stage seen
	latest     format.Iteration
	shown      bool // the status line is on the screen
	crossEnt   bool // a bits/token column was shown
	accuracy   bool // accuracy columns were shown
	stop       chan struct{}
	stopped    sync.WaitGroup
}

// New reports to w on a run of the plan: a status line when w is a
// terminal, lines otherwise.
func New(w io.Writer, program string, plan Plan, quiet bool) *Reporter {
	if quiet {
		return &Reporter{}
	}
	var width func() int
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		width = func() int {
			cols, _, err := term.GetSize(int(f.Fd()))
			return TerminalWidth(cols, err)
		}
	}
	r := newReporter(w, program, plan, width, time.Now)
	if width != nil {
		r.stop = make(chan struct{})
		r.stopped.Add(1)
		go r.redraw()
	}
	return r
}

// newReporter is New with the terminal's width (nil: not a terminal) and
// the clock given.
func newReporter(w io.Writer, program string, plan Plan, width func() int, now func() time.Time) *Reporter {
	return &Reporter{w: w, program: program, plan: plan, width: width, now: now, origin: now()}
}

// TerminalWidth is the status line's width on a terminal of cols columns
// (err: the terminal did not say): FallbackWidth when it reports none,
// at most MaxWidth.
func TerminalWidth(cols int, err error) int {
	if err != nil || cols <= 0 {
		return FallbackWidth
	}
	return min(cols, MaxWidth)
}

// redraw refreshes the status line every tick until Done.
func (p *Reporter) redraw() {
	defer p.stopped.Done()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.shown {
				p.drawLocked()
			}
			p.mu.Unlock()
		}
	}
}

// Iteration reports one iteration.
func (p *Reporter) Iteration(it format.Iteration) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.seen == 0 {
		p.first = now
	}
	p.seen++
	p.last = now
	if it.Stage != p.stage || p.seen == 1 {
		p.stage, p.stageIters = it.Stage, 0
	}
	p.stageIters++
	p.latest = it
	if p.width != nil {
		p.shown = true
		p.drawLocked()
		return
	}
	fmt.Fprintln(p.w, p.lineLocked(it))
}

// Quiet says whether the report prints nothing (notes included), so
// that what only a note would show need not be computed.
func (p *Reporter) Quiet() bool { return p == nil || p.w == nil }

// Note prints a line for people (above the status line on a terminal).
func (p *Reporter) Note(format string, args ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.width != nil && p.shown {
		// Clear the status line, write the note, draw the line below it.
		fmt.Fprintf(p.w, "\r\033[K"+format+"\n", args...)
		p.drawLocked()
		return
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

// Done ends the report, clearing the status line.
func (p *Reporter) Done() {
	if p.w == nil {
		return
	}
	if p.stop != nil {
		close(p.stop)
		p.stopped.Wait()
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// Rate is the seconds per iteration so far: the mean interval between the
// iterations seen, or for the first the time since the reporter was made;
// 0 before any.
func (p *Reporter) rateLocked() float64 {
	switch p.seen {
	case 0:
		return 0
	case 1:
		return p.first.Sub(p.origin).Seconds()
	}
	return p.last.Sub(p.first).Seconds() / float64(p.seen-1)
}

// remainingLocked is how many iterations the plan allows after the latest
// one, and false when the plan has no bound.
func (p *Reporter) remainingLocked() (int, bool) {
	return Remaining(p.plan, p.latest.Iter, p.stage, p.stageIters)
}

// Remaining is the iterations the plan allows after iteration iter (as
// the log numbers it, across stages), the stageIters-th of stage stage
// (from 1; 0 when the plan has no stages); false when the plan has no
// bound.
func Remaining(plan Plan, iter, stage, stageIters int) (int, bool) {
	if plan.MaxIter <= 0 {
		return 0, false
	}
	if plan.Stages <= 0 {
		return max(0, plan.MaxIter-iter), true
	}
	stage = max(stage, 1)
	return max(0, plan.MaxIter-stageIters) + max(0, plan.Stages-stage)*plan.MaxIter, true
}

// etaLocked is the time left at now: the rate times the iterations left,
// less the time since the latest iteration; false when unknown.
func (p *Reporter) etaLocked(now time.Time) (time.Duration, bool) {
	left, ok := p.remainingLocked()
	if !ok || p.seen == 0 {
		return 0, false
	}
	eta := time.Duration(p.rateLocked()*float64(left)*float64(time.Second)) - now.Sub(p.last)
	return max(0, eta), true
}

// etaText is "ETA 3m12s", or "ETA ≤ 3m12s" when a stopping rule may end
// the run sooner; "" when unknown.
func (p *Reporter) etaText(now time.Time) string {
	eta, ok := p.etaLocked(now)
	if !ok {
		return ""
	}
	if !p.plan.Exact {
		return "ETA ≤ " + Duration(eta)
	}
	return "ETA " + Duration(eta)
}

// Left is the time the rest of total jobs take, done of them having taken
// elapsed (however many run at once): an estimate, not a bound.
func Left(elapsed time.Duration, done, total int) time.Duration {
	if done <= 0 || done >= total {
		return 0
	}
	return time.Duration(float64(elapsed) / float64(done) * float64(total-done))
}

// Duration is d for people, to the second: 45s, 3m12s, 2h05m, 3d04h.
func Duration(d time.Duration) string {
	s := int64(math.Round(d.Seconds()))
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 100*3600:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%dd%02dh", s/86400, s%86400/3600)
}

// Rate is the time an iteration takes for people, in three significant
// digits: in milliseconds below a second (0.228 ms/iter, 45.1 ms/iter),
// else in seconds (1.23 s/iter, 312 s/iter, 5400 s/iter).
func Rate(secs float64) string {
	switch {
	case secs < 1:
		return fmt.Sprintf("%.3g ms/iter", secs*1000)
	case secs < 100:
		return fmt.Sprintf("%.3g s/iter", secs)
	}
	return fmt.Sprintf("%.0f s/iter", secs)
}

// digits is the width of n in decimal.
func digits(n int) int {
	return len(fmt.Sprint(n))
}

// Column widths of the lines off a terminal: each field is padded to its
// widest usual value, so that the lines of a run stay aligned whatever
// the magnitudes (an objective of -847263.4124 or -1.234567891e+06, an
// iteration 9 or 10).
const (
	objectiveWidth = 16 // %.10g: sign, 10 digits, point, e+NN
	betaWidth      = 7  // %.4g: 0.0001, 1.2e-05
	deltaWidth     = 8  // %.3g
	bitsWidth      = 9  // %.6f of up to 99 bits
	changeWidth    = 9  // %.3e
	percentWidth   = 6  // 100.0%
	secondsWidth   = 10 // %.3f s, up to 11 days
	rateWidth      = 13 // 0.228 ms/iter
)

// lineLocked is the line of an iteration off a terminal: fixed-width
// fields, so that the lines of a run stay aligned, and at the end the
// rate and the time left.
func (p *Reporter) lineLocked(it format.Iteration) string {
	var b strings.Builder
	b.WriteString(p.fieldsLocked(it))
	fmt.Fprintf(&b, "  %*s", rateWidth, Rate(p.rateLocked()))
	if eta := p.etaText(p.last); eta != "" { // the last column: not padded
		b.WriteString("  " + eta)
	}
	return b.String()
}

// IterationLine is an iteration's line without a rate or the time left,
// for a program that reports iterations one step at a time (ce-step),
// which knows neither.
func IterationLine(it format.Iteration) string {
	return (&Reporter{}).fieldsLocked(it)
}

// fieldsLocked is an iteration's line up to its seconds.
func (p *Reporter) fieldsLocked(it format.Iteration) string {
	var b strings.Builder
	iterWidth := 5 // no bound: up to 99999 iterations
	if p.plan.MaxIter > 0 {
		iterWidth = max(3, digits(p.plan.MaxIter*max(1, p.plan.Stages)))
	}
	fmt.Fprintf(&b, "iter %*d", iterWidth, it.Iter)
	if it.Stage > 0 {
		if p.plan.Stages > 0 {
			fmt.Fprintf(&b, "  stage %*d/%d", digits(p.plan.Stages), it.Stage, p.plan.Stages)
		} else {
			fmt.Fprintf(&b, "  stage %2d", it.Stage)
		}
	}
	if it.Beta != nil {
		fmt.Fprintf(&b, "  beta %*s", betaWidth, fmt.Sprintf("%.4g", *it.Beta))
	}
	if it.Delta != nil {
		fmt.Fprintf(&b, "  delta %*s", deltaWidth, fmt.Sprintf("%.3g", *it.Delta))
	}
	if it.SegBeta != nil {
		fmt.Fprintf(&b, "  seg-beta %*s", deltaWidth, fmt.Sprintf("%.3g", *it.SegBeta))
	}
	fmt.Fprintf(&b, "  objective %*s", objectiveWidth, fmt.Sprintf("%.10g", float64(it.Objective)))
	// bits/token is kept as a column (blank where an iteration has none)
	// once shown, and in every stage of a schedule, whose last stage may
	// carry it (DA's at β = 1).
	const bitsLabel = "  bits/token "
	switch {
	case it.CrossEntropy != nil:
		p.crossEnt = true
		fmt.Fprintf(&b, "%s%*s", bitsLabel, bitsWidth, fmt.Sprintf("%.6f", float64(*it.CrossEntropy)))
	case !p.plan.NoCrossEntropy && (p.crossEnt || it.Stage > 0 && p.plan.Stages > 0):
		b.WriteString(strings.Repeat(" ", len(bitsLabel)+bitsWidth))
	}
	change := "-"
	if it.Change != nil {
		change = fmt.Sprintf("%.3e", float64(*it.Change))
	}
	fmt.Fprintf(&b, "  change %*s", changeWidth, change)
	if it.Directed != nil || it.Undirected != nil || p.accuracy {
		p.accuracy = true
		fmt.Fprintf(&b, "  dir %*s  undir %*s", percentWidth, percent(it.Directed), percentWidth, percent(it.Undirected))
	}
	fmt.Fprintf(&b, "  %*.3fs", secondsWidth, it.Seconds)
	return b.String()
}

func percent(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}

// drawLocked redraws the status line in place.
func (p *Reporter) drawLocked() {
	fmt.Fprint(p.w, "\r\033[K"+p.statusLocked(p.now(), p.width()))
}

// statusLocked is the status line at now for a terminal of width
// columns: the program, the iteration and stage, a bar of the iterations
// done against the plan's bound, the rate, the time left and the latest
// objective; what does not fit is left out (the bar shrinks to 10 cells,
// then the objective goes, then the bar), and the line is cut to width−1
// columns (the last column would wrap on some terminals).
func (p *Reporter) statusLocked(now time.Time, width int) string {
	it := p.latest
	head := fmt.Sprintf("%s  iter %d", p.program, it.Iter)
	if it.Stage > 0 {
		if p.plan.Stages > 0 {
			head += fmt.Sprintf("  stage %d/%d", it.Stage, p.plan.Stages)
		} else {
			head += fmt.Sprintf("  stage %d", it.Stage)
		}
	}
	tail := "  " + Rate(p.rateLocked())
	if eta := p.etaText(now); eta != "" {
		tail += "  " + eta
	}
	obj := fmt.Sprintf("  objective %.6g", float64(it.Objective))
	room := width - 1
	fits := func(parts ...string) bool {
		n := 0
		for _, s := range parts {
			n += utf8.RuneCountInString(s)
		}
		return n <= room
	}
	// The bar is a fifth of the line (10 to 20 cells), less when that
	// makes room for the objective.
	left, ok := p.remainingLocked()
	bar := func(width int) string { return "  [" + Bar(it.Iter, it.Iter+left, width) + "]" }
	if ok {
		for w := max(10, min(20, room/5)); w >= 10; w-- {
			if fits(head, bar(w), tail, obj) {
				return head + bar(w) + tail + obj
			}
		}
		if b := bar(max(10, min(20, room/5))); fits(head, b, tail) {
			return head + b + tail
		}
	}
	line := head + tail
	if fits(line, obj) {
		line += obj
	}
	return truncate(line, room)
}

// Bar is a bar of width cells, done of total filled.
func Bar(done, total, width int) string {
	if width <= 0 {
		return ""
	}
	filled := width
	if total > 0 && done < total {
		filled = done * width / total
	}
	filled = max(0, min(width, filled))
	if filled < width {
		return strings.Repeat("=", filled) + ">" + strings.Repeat(" ", width-filled-1)
	}
	return strings.Repeat("=", width)
}

// truncate cuts s to at most n runes.
func truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
