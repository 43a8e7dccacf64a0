package report

import (
	"errors"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/score"
	"github.com/grind-nlp/grind/stages/tageval"
)

// Record is one run's line of report --json: the record of scores that
// score, score-tags and select-model write (README, Conventions) — the
// sentences and tokens scored, and the scores on heads (root counted as
// the headline, as the page's), on brackets or on tags — with the run's
// own fields: its name, its model's family, its log's length and last
// objective, and for a run scored on heads after the first, score's sign
// test of it against the first. Each run's error analyses are there too,
// as score --analysis and score-tags --analysis write them: a run scored
// on heads has links, by_distance and paths, one on brackets by_label and
// sequences (score.ErrorAnalyses), one on tags confusion, by_gold_tag,
// sizes and words (in tageval.Report).
type Record struct {
	Run        string       `json:"run"`
	Family     string       `json:"family,omitempty"`
	Iterations int          `json:"iterations,omitempty"`
	Objective  *format.Real `json:"objective,omitempty"`
	Sentences  int          `json:"sentences"`
	Tokens     int          `json:"tokens"`
	*score.Heads
	Brackets *score.BracketReport `json:"brackets,omitempty"`
	*tageval.Report
	*score.ErrorAnalyses
	SignTest *score.SignTest `json:"sign_test,omitempty"`
}

// Records are the runs' lines of report --json, in order.
func Records(runs []*Run) ([]Record, error) {
	var first *Run // the baseline of the sign tests
	var out []Record
	for _, r := range runs {
		rec := Record{Run: r.Name, Family: r.Family}
		if r.Log != nil {
			its := r.Log.Iterations
			rec.Iterations, rec.Objective = len(its), &its[len(its)-1].Objective
		}
		switch r.Kind {
		case Brackets:
			rec.Sentences, rec.Tokens, rec.Brackets = r.Scored, r.Tokens, r.Brackets
			rec.ErrorAnalyses = &r.Analyses.ErrorAnalyses
		case Tags:
			rec.Sentences, rec.Tokens, rec.Report = r.Scored, r.Tokens, r.TagScores
		default:
			var t score.Tally
			for _, s := range r.Sentences {
				t.Add(s.Heads, s.Pred)
			}
			rec.Sentences, rec.Tokens, rec.Heads = t.Sentences, t.Tokens, score.HeadsOf(t, score.RootCounted)
			rec.ErrorAnalyses = &analyses(r).ErrorAnalyses
			if first == nil {
				first = r
			} else {
				if err := sameCorpus(first, r); err != nil {
					return nil, err
				}
				rec.SignTest = compare(first, r)
			}
		}
		out = append(out, rec)
	}
	return out, nil
}

// WriteJSON writes the runs' records, one JSON line each.
func WriteJSON(w io.Writer, runs []*Run) error {
	if len(runs) == 0 {
		return errors.New("no runs to report")
	}
	recs, err := Records(runs)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := pipeline.WriteRecord(w, r); err != nil {
			return err
		}
	}
	return nil
}
