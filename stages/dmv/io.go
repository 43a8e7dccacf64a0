package dmv

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/eventio"
)

// Family is the model family named in the headers of DMV models and
// counts.
const Family = "dmv"

// MaxWeight bounds the magnitude of a log-linear weight read from a model:
// e^±MaxWeight is still a normal float64, so potentials never overflow.
const MaxWeight = 700

// NumEvents is how many event records a DMV over t tags has: every root,
// stop, cont and child entry.
func NumEvents(t int) int { return t + 8*t + 2*t*t }

// ReadModel reads a model file (probabilities or log-linear weights): its
// header, exactly the events the header announces, every parameter once;
// a probability model's multinomials each sum to 1 (SumTolerance).
func ReadModel(path string) (*Table, error) {
	return readModel(pipeline.Source{Names: []string{path}}, path)
}

// readModel reads the model of src (one input), called path in errors.
func readModel(src pipeline.Source, path string) (*Table, error) {
	b := &TableBuilder{}
	if _, err := eventio.ReadModel(src, path, b.kind()); err != nil {
		return nil, err
	}
	t, err := b.Build()
	if err == nil {
		err = t.checkModel()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// shortRoad says whether the readers take plain lines by scanLine (the
// tests turn it off to hold the short road to the long one).
var shortRoad = true

// kind tells eventio's readers the DMV's family and events.
func (b *TableBuilder) kind() eventio.Kind {
	k := eventio.Kind{
		Families: []string{Family},
		Add:      b.addValid,
		Expect:   b.expect,
		Key:      func(e *format.Event) string { return describe(*e) },
		ID:       b.id,
	}
	if shortRoad {
		k.Short, k.Commit = b.scanLine, b.commit
	}
	return k
}

// checkModel checks a model read whole: every parameter given, a
// probability model normalised, log-linear weights within MaxWeight.
func (t *Table) checkModel() error {
	if got, want := t.events, NumEvents(t.Tags.Len()); got != want {
		return fmt.Errorf("%d events for %d tags, a model has %d: some parameters are missing", got, t.Tags.Len(), want)
	}
	switch t.Unit {
	case format.Prob:
		return CheckDistribution(t.Tags, t.Params)
	case format.Weight:
		for _, tab := range t.Params.Tables() {
			for _, w := range tab {
				if math.Abs(w) > MaxWeight {
					return fmt.Errorf("weight %v beyond ±%d: its potential exp(w) leaves floating point", w, MaxWeight)
				}
			}
		}
	}
	return nil
}

// ReadCounts reads and adds count streams (eventio.ReadCounts: shards
// cut short, lost, repeated or of different models are refused). The
// total must be finite; dense tables over limit bytes (≤ 0: no limit)
// are refused.
func ReadCounts(src pipeline.Source, limit int64) (*Table, error) {
	b := &TableBuilder{Sum: true, MaxMemory: limit}
	shards, err := eventio.ReadCounts(src, b.kind())
	if err != nil {
		return nil, err
	}
	t, err := b.Build()
	if err == nil {
		err = checkFinite(t.Params, "counts")
	}
	if err == nil && shards.Stats == nil {
		err = errors.New("no stats record")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	t.Stats = shards.Stats
	t.Model, t.Corpus, t.Shards = shards.Model, shards.Corpus, shards.Shards
	return t, nil
}

func checkFinite(p *Params, what string) error {
	for _, tab := range p.Tables() {
		for _, v := range tab {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return fmt.Errorf("%s overflow: a total is %v, beyond floating point", what, v)
			}
		}
	}
	return nil
}

// WriteTable writes a model: its header, then every entry of p as an
// event with unit (format.Prob or format.Weight). stats must be nil:
// counts go through WriteCounts.
func WriteTable(w io.Writer, ts *TagSet, p *Params, unit format.Unit, stats *format.Stats) error {
	if unit == format.Count || stats != nil {
		return errors.New("counts are written by WriteCounts, with their shard's header")
	}
	return writeTable(w, ts, p, &format.Header{Family: Family, Unit: unit}, nil)
}

// WriteCounts writes one shard of counts: its header (the hashes of the
// model the E-step ran with, eventio.ModelNone for none, and of its sentences),
// every entry of counts, and the stats record.
func WriteCounts(w io.Writer, ts *TagSet, counts *Params, model, corpus string, stats *format.Stats) error {
	if stats == nil {
		return errors.New("counts need their stats record")
	}
	return writeTable(w, ts, counts, &format.Header{Family: Family, Unit: format.Count, Model: model, Corpus: corpus}, stats)
}

// writeTable is the one writer of models and counts: it checks what it
// writes as a reader will (never a NaN or an overflowed total written),
// then writes the header, the events and the stats record.
func writeTable(w io.Writer, ts *TagSet, p *Params, hdr *format.Header, stats *format.Stats) error {
	what := "model"
	if hdr.Unit == format.Count {
		what = "counts"
	}
	if err := checkFinite(p, what); err != nil {
		return fmt.Errorf("%v: nothing written", err)
	}
	t := &Table{Tags: ts, Params: p, Unit: hdr.Unit, events: NumEvents(ts.Len())}
	switch hdr.Unit {
	case format.Prob, format.Weight:
		if err := t.checkModel(); err != nil {
			return fmt.Errorf("the model made is not valid (%v): nothing written", err)
		}
	case format.Count:
		for _, tab := range p.Tables() {
			for _, v := range tab {
				if v < 0 {
					return fmt.Errorf("a negative count (%v): nothing written", v)
				}
			}
		}
	default:
		return fmt.Errorf("unit %q: want \"n\", \"p\" or \"w\"", string(hdr.Unit))
	}
	return eventio.WriteLines(w, hdr, NumEvents(ts.Len()), func(emit func(line []byte) error) error {
		return eachLine(ts, p, hdr.Unit, emit)
	}, stats)
}

// Hash identifies a model by its content: unit, tags and every parameter's
// bits, as 16 hex digits (FNV-1a). Count headers carry it.
func (t *Table) Hash() string {
	h := eventio.NewHasher()
	h.Byte(byte(t.Unit))
	for _, name := range t.Tags.Names() {
		h.String(name)
		h.Byte(0)
	}
	for _, tab := range t.Params.Tables() {
		for _, v := range tab {
			h.Float(v)
		}
	}
	return h.Sum()
}
