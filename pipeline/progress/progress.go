// Package progress tells people how training goes. It is a package of its
// own so that programs without a training loop (estep, mstep) do not link
// the progress-bar library or pay for its initialisation at every start.
package progress

import (
	"fmt"
	"io"
	"os"

	"github.com/cheggaaa/pb/v3"
	"golang.org/x/term"

	"github.com/grind-nlp/grind/format"
)

// Reporter tells people how training goes: a progress bar when stderr is
// a terminal, one line per iteration otherwise, nothing when quiet.
type Reporter struct {
	w   io.Writer
	bar *pb.ProgressBar
}

// barTemplate shows the program, iterations done of at most how many, a
// bar, the time taken, and the latest objective.
const barTemplate = `{{string . "prefix"}} {{counters . }} {{bar . }} {{etime . }} {{string . "suffix"}}`

// New reports to w on a run of at most total iterations.
func New(w io.Writer, program string, total int, quiet bool) *Reporter {
	if quiet {
		return &Reporter{}
	}
	p := &Reporter{w: w}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = pb.New(total).SetWriter(w).SetTemplateString(barTemplate).SetMaxWidth(100).
			Set("prefix", program).Set(pb.CleanOnFinish, true).Start()
	}
	return p
}

// Iteration reports one iteration.
func (p *Reporter) Iteration(it format.Iteration) {
	switch {
	case p.w == nil:
	case p.bar != nil:
		p.bar.Set("suffix", fmt.Sprintf("objective %.6g", float64(it.Objective)))
		p.bar.Increment()
	default:
		fmt.Fprintln(p.w, IterationLine(it))
	}
}

// Note prints a line for people (above the bar on a terminal).
func (p *Reporter) Note(format string, args ...any) {
	switch {
	case p.w == nil:
	case p.bar != nil:
		// Clear the bar's line; it redraws itself below the note.
		fmt.Fprintf(p.w, "\r\033[K"+format+"\n", args...)
	default:
		fmt.Fprintf(p.w, format+"\n", args...)
	}
}

// Done ends the report.
func (p *Reporter) Done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// IterationLine is the one-line summary of an iteration.
func IterationLine(it format.Iteration) string {
	s := fmt.Sprintf("iter %3d", it.Iter)
	if it.Stage > 0 {
		s += fmt.Sprintf("  stage %d", it.Stage)
	}
	if it.Beta != nil {
		s += fmt.Sprintf("  beta %.4g", *it.Beta)
	}
	if it.Delta != nil {
		s += fmt.Sprintf("  delta %.3g", *it.Delta)
	}
	if it.SegBeta != nil {
		s += fmt.Sprintf("  seg-beta %.3g", *it.SegBeta)
	}
	s += fmt.Sprintf("  objective %.10g", float64(it.Objective))
	if it.CrossEntropy != nil {
		s += fmt.Sprintf("  bits/token %.6f", float64(*it.CrossEntropy))
	}
	if it.Change != nil {
		s += fmt.Sprintf("  change %.3e", float64(*it.Change))
	}
	if it.Directed != nil {
		s += fmt.Sprintf("  dir %.1f%%", 100**it.Directed)
	}
	if it.Undirected != nil {
		s += fmt.Sprintf("  undir %.1f%%", 100**it.Undirected)
	}
	return s + fmt.Sprintf("  %.3fs", it.Seconds)
}
