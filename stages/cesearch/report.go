package cesearch

import (
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline/progress"
)

// Summary is the line that ends a contrastive training: how its search
// ended, in how many L-BFGS iterations and evaluations, at what objective.
func Summary(converged bool, stopped string, iterations, evals int, objective float64) string {
	return fmt.Sprintf("%s after %d L-BFGS iterations (%d evaluations); objective %.10g", Outcome(converged, stopped), iterations, evals, objective)
}

// Outcome is how a search ended: "converged", or "stopped (why)".
func Outcome(converged bool, stopped string) string {
	if converged {
		return "converged"
	}
	return "stopped (" + stopped + ")"
}

// Step is one call of ce-step on a saved training, of any family (each
// family's Step embeds it and runs it).
type Step struct {
	State string // the state file, read and replaced
	// Sentences and Lattices are the count files of the E-steps at the
	// weights the training waits for: over the sentences, and over their
	// neighbourhoods. Without them, a step writes those weights again (or
	// the result, once the training is done) and changes nothing.
	Sentences, Lattices string
	MaxMemory           int64                           // of the DMV's and the HMM's count tables
	Log                 func(it format.Iteration) error // each iteration accepted (nil: none)
	Report              io.Writer                       // a line per iteration accepted, and the outcome (nil: none)
}

// Counted says whether the step was given counts to take.
func (o Step) Counted() bool { return o.Sentences != "" || o.Lattices != "" }

// Ended is the error of counts given to a training that has ended as p
// says.
func (o Step) Ended(p *Progress) error {
	return fmt.Errorf("%s: the training has ended (%s): ce-step --state %s -o FILE writes its model; ce-step --start begins another", o.State, Outcome(p.Converged, p.Stopped), o.State)
}

// ReportStep says what one ce-step evaluation accepted: each iteration to
// log and as a line to report (either nil: not there), then, when the
// training has ended, its summary line to report.
func ReportStep(accepted []format.Iteration, log func(format.Iteration) error, report io.Writer, summary string) error {
	for _, it := range accepted {
		if log != nil {
			if err := log(it); err != nil {
				return err
			}
		}
		if report != nil {
			fmt.Fprintln(report, progress.IterationLine(it))
		}
	}
	if summary != "" && report != nil {
		fmt.Fprintln(report, summary)
	}
	return nil
}
