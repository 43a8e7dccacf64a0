package dmv

import (
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// ReadModel reads a model file (probabilities or log-linear weights).
func ReadModel(path string) (*Table, error) {
	b := &TableBuilder{}
	err := pipeline.EachRecord(pipeline.Source{Names: []string{path}}, func(e *format.Event, at *pipeline.Lines) error {
		return badRecord(b.Add(*e))
	})
	if err != nil {
		return nil, err
	}
	t, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if t.Unit == format.Count {
		return nil, fmt.Errorf("%s: holds counts (\"n\"), not a model; run mstep on it", path)
	}
	return t, nil
}

// ReadCounts reads and adds count streams (shards). Each input must end
// with its stats record: a shard without one was cut short (a crashed or
// killed E-step), and its counts would silently be missing.
func ReadCounts(src pipeline.Source) (*Table, error) {
	b := &TableBuilder{Sum: true}
	err := pipeline.EachInput(src.Names, src.Stdin, func(in *pipeline.Input) error {
		closed, events := true, 0
		err := pipeline.EachRecordIn(in, src.Bad, func(e *format.Event, at *pipeline.Lines) error {
			if e.Unit != 0 && e.Unit != format.Count {
				return pipeline.BadRecord(fmt.Errorf("a count stream holds %q values; counts carry \"n\"", string(e.Unit)))
			}
			closed = e.Ev == format.EvStats
			events++
			return badRecord(b.Add(*e))
		})
		if err != nil {
			return err
		}
		switch {
		case events == 0:
			return fmt.Errorf("%s: no counts", in.Name)
		case !closed:
			return fmt.Errorf("%s: counts do not end with a stats record: the shard is truncated or its E-step failed", in.Name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	return t, nil
}

func badRecord(err error) error {
	if err != nil {
		return pipeline.BadRecord(err)
	}
	return nil
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
