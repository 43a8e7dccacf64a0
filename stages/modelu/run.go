package modelu

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/train"
)

// RunOptions are train-ce --family modelu's settings.
type RunOptions struct {
	Kind     string
	Spelling bool
	Options
	LogPath string
	// MaxMemory refuses charts that would need more bytes (≤ 0: no limit).
	MaxMemory int64
	Progress  *progress.Reporter
}

// Run trains Model U by CE on the sentences of src from weights 0 and
// writes it to w.
func Run(src pipeline.Source, w io.Writer, opts RunOptions) error {
	sents, err := pipeline.ReadSentences(src)
	if err != nil {
		return err
	}
	if len(sents) == 0 {
		return fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(src.Names))
	}
	var tags []string
	seen := map[string]bool{}
	for _, s := range sents {
		for _, t := range s.Tags {
			if !seen[t] {
				seen[t] = true
				tags = append(tags, t)
			}
		}
	}
	slices.Sort(tags)
	m := New(tags, opts.Spelling)
	m.Nbhd = opts.Kind
	p, err := NewProblem(m, sents, opts.Kind, opts.Workers, opts.MaxMemory)
	if err != nil {
		return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	if opts.Progress != nil {
		opts.Progress.Note("Model U: %d sentences, %d tags, %d features (spelling %v), neighbourhood %s", len(sents), len(tags), len(m.Theta), opts.Spelling, opts.Kind)
	}
	var log io.WriteCloser
	if opts.LogPath != "" {
		f, err := os.Create(opts.LogPath)
		if err != nil {
			return err
		}
		log = f
		defer f.Close()
	}
	start := time.Now()
	prev := math.NaN()
	o := opts.Options
	o.Observe = func(iter int, obj float64, _ []float64) error {
		if log == nil {
			return nil
		}
		it := format.Iteration{Iter: iter + 1, Objective: format.Real(obj), Seconds: time.Since(start).Seconds()}
		if !math.IsNaN(prev) {
			c := format.Real(train.RelativeChange(prev, obj))
			it.Change = &c
		}
		prev = obj
		return pipeline.WriteRecord(log, it)
	}
	res, err := Train(p, o)
	if err != nil {
		return err
	}
	if log != nil {
		if err := log.Close(); err != nil {
			return err
		}
	}
	if opts.Progress != nil {
		state := "converged"
		if !res.Converged {
			state = "stopped (" + res.Status + ")"
		}
		opts.Progress.Note("%s after %d L-BFGS iterations (%d evaluations); objective %.10g", state, res.Iters, res.Evals, res.Objective)
	}
	return m.Write(w)
}
