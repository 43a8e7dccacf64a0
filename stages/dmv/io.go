package dmv

import (
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// ReadTable reads event records (a model, or count shards with sum) from
// src. An empty stream is an error.
func ReadTable(src pipeline.Source, sum bool) (*Table, error) {
	b := &TableBuilder{Sum: sum}
	err := pipeline.EachRecord(src, func(e *format.Event, at *pipeline.Lines) error {
		if err := b.Add(*e); err != nil {
			return pipeline.BadRecord(err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", describeSource(src), err)
	}
	return t, nil
}

// ReadModel reads a model file (probabilities or weights).
func ReadModel(path string) (*Table, error) {
	t, err := ReadTable(pipeline.Source{Names: []string{path}}, false)
	if err != nil {
		return nil, err
	}
	if t.Unit == format.Count {
		return nil, fmt.Errorf("%s: holds counts (\"n\"), not a model; run mstep on it", path)
	}
	return t, nil
}

func describeSource(src pipeline.Source) string {
	switch len(src.Names) {
	case 0:
		return pipeline.StdinName
	case 1:
		return src.Names[0]
	}
	return fmt.Sprintf("%s and %d more", src.Names[0], len(src.Names)-1)
}

// WriteTable writes every entry of p as an event with unit, then the
// stats record when stats is not nil.
func WriteTable(w io.Writer, ts *TagSet, p *Params, unit format.Unit, stats *format.Stats) error {
	for _, e := range Events(ts, p, unit) {
		if err := pipeline.WriteRecord(w, e); err != nil {
			return err
		}
	}
	if stats != nil {
		return pipeline.WriteRecord(w, format.Event{Ev: format.EvStats, Stats: stats})
	}
	return nil
}
