// Package report turns training runs into one self-contained HTML page:
// learning curves, accuracy tables by tag, tag pair and arc length under
// both root conventions, a few sentences drawn as arc diagrams, and a
// sentence-level sign test of every run against the first.
package report

import (
	"errors"
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/plotcurve"
	"github.com/grind-nlp/grind/stages/score"
	"github.com/grind-nlp/grind/stages/tageval"
)

// Run is one training run as the report sees it: its training log (nil
// when none was given) and its decoded sentences, each with gold "heads"
// and predicted "pred".
type Run struct {
	Name      string
	Log       *plotcurve.Series
	Parsed    string // where the sentences were read from, for messages
	Sentences []*format.Sentence
	From      *Provenance // the run directory it was read from; nil for files
	Family    string      // its model's family (run directories; "" for files)

	// A run of another family than the DMV (from a run directory) has
	// no heads: Kind says what it is scored on instead.
	Kind      Kind
	Scored    int                  // sentences scored (brackets, tags)
	Tokens    int                  // tokens scored (brackets, tags)
	Brackets  *score.BracketReport // Kind Brackets
	TagScores *tageval.Report      // Kind Tags
	// Analyses holds the run's error analyses (analyses.go): a bracket
	// run's are computed as it is read, a heads run's when the page is.
	Analyses *score.Report
}

// Kind is what a run's parses are scored on.
type Kind int

// Kinds of runs: dependency heads (the DMV's), constituent brackets (the
// CCM's), induced tags (the HMM's).
const (
	Heads Kind = iota
	Brackets
	Tags
)

// Spec names the files of one run.
type Spec struct {
	Name, Log, Parsed string // Log may be empty
}

// readLog reads the run's learning curve from the log at path.
func (r *Run) readLog(path string, stdin io.Reader, bad *pipeline.BadRecords) error {
	return pipeline.EachInput([]string{path}, stdin, func(in *pipeline.Input) error {
		s, err := plotcurve.ReadLog(in, bad)
		if err != nil {
			return err
		}
		r.Log = s
		r.Log.Name = r.Name
		return nil
	})
}

// Load reads the files of one run. Every sentence must carry both gold
// heads and a prediction: the report scores them all.
func Load(spec Spec, stdin io.Reader, bad *pipeline.BadRecords) (*Run, error) {
	r := &Run{Name: spec.Name, Parsed: spec.Parsed}
	if spec.Log != "" {
		if err := r.readLog(spec.Log, stdin, bad); err != nil {
			return nil, err
		}
	}
	err := pipeline.EachInput([]string{spec.Parsed}, stdin, func(in *pipeline.Input) error {
		return r.readParsed(in, bad)
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// readParsed reads the decoded sentences of in. Every sentence must carry
// both gold heads and a prediction: the report scores them all.
func (r *Run) readParsed(in *pipeline.Input, bad *pipeline.BadRecords) error {
	err := pipeline.EachRecordIn(in, bad, func(s *format.Sentence, _ *pipeline.Lines) error {
		if err := s.Validate(); err != nil {
			return pipeline.BadRecord(err)
		}
		switch {
		case s.Heads == nil:
			return pipeline.BadRecord(errors.New(`sentence has no gold "heads" to score against`))
		case s.Pred == nil:
			return pipeline.BadRecord(errors.New(`sentence has no prediction "pred" to score (decode's output is due)`))
		}
		r.Sentences = append(r.Sentences, s)
		return nil
	})
	if err != nil {
		return err
	}
	if len(r.Sentences) == 0 {
		return fmt.Errorf("%s: no sentences to score", in.Name)
	}
	return nil
}

// sameCorpus checks that b parsed the sentences a parsed, in the same
// order, so that the two can be compared sentence by sentence.
func sameCorpus(a, b *Run) error {
	if len(a.Sentences) != len(b.Sentences) {
		return fmt.Errorf("run %q has %d sentences, run %q has %d: runs are compared sentence by sentence and must parse the same corpus",
			b.Name, len(b.Sentences), a.Name, len(a.Sentences))
	}
	for k, s := range b.Sentences {
		g := a.Sentences[k]
		same := len(g.Tags) == len(s.Tags)
		for i := 0; same && i < len(g.Tags); i++ {
			same = g.Tags[i] == s.Tags[i] && g.Heads[i] == s.Heads[i]
		}
		if !same {
			return fmt.Errorf("sentence %d of run %q (%s) differs from that of run %q (%s) in its tags or gold heads: runs must parse the same corpus",
				k+1, b.Name, b.Parsed, a.Name, a.Parsed)
		}
	}
	return nil
}
