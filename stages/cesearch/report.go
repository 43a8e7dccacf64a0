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
