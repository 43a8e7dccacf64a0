package dmv

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"strconv"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
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
	var hdr *format.Header
	n := 0
	err := pipeline.EachRecord(src, func(e *format.Event, at *pipeline.Lines) error {
		if err := e.Validate(); err != nil {
			return pipeline.BadRecord(err)
		}
		switch {
		case e.Ev == format.EvHeader && hdr != nil:
			return pipeline.BadRecord(errors.New("a second header: one model per file"))
		case e.Ev == format.EvHeader:
			if err := checkFamily(e.Header); err != nil {
				return pipeline.BadRecord(err)
			}
			if e.Header.Unit == format.Count {
				return pipeline.BadRecord(errors.New("holds counts (\"n\"), not a model: run mstep on it"))
			}
			hdr = e.Header
			return nil
		case hdr == nil:
			return pipeline.BadRecord(errors.New(`a model begins with its header ({"ev":"header","family":"dmv",...}); this file does not (not a model, or written by an older grind)`))
		case e.Ev == format.EvStats:
			return pipeline.BadRecord(errors.New("a stats record: a model has none (counts? run mstep on them)"))
		case e.Unit != hdr.Unit:
			return pipeline.BadRecord(fmt.Errorf("event carries %q, the header says %q", string(e.Unit), string(hdr.Unit)))
		}
		if n++; n > hdr.Events {
			return pipeline.BadRecord(fmt.Errorf("more events than the header's %d", hdr.Events))
		}
		return badRecord(b.Add(*e))
	})
	if err != nil {
		return nil, err
	}
	switch {
	case hdr == nil:
		return nil, fmt.Errorf("%s: empty: no model", path)
	case n < hdr.Events:
		return nil, fmt.Errorf("%s: cut off: the header announces %d events, the file holds %d", path, hdr.Events, n)
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

func checkFamily(h *format.Header) error {
	if h.Family != Family {
		return fmt.Errorf("a model or counts of family %q; this program reads %q", h.Family, Family)
	}
	return nil
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

// ReadCounts reads and adds count streams. A stream is a sequence of
// shards, each its header, exactly the events the header announces and
// one stats record; inputs are concatenated (a shard may not span two
// files). Refused anywhere in the stream: counts before a header, a shard
// cut short (fewer events, or no stats record, before the next header or
// the end), a second stats record, shards of different models, and a
// shard given twice (the same corpus hash). The total must be finite.
func ReadCounts(src pipeline.Source) (*Table, error) {
	b := &TableBuilder{Sum: true}
	var model string
	seen := map[string]string{} // corpus hash → where its shard began
	shards := 0
	var corpus uint64 // sum of the shards' corpus hashes (order-free)
	err := pipeline.EachInput(src.Names, src.Stdin, func(in *pipeline.Input) error {
		var hdr *format.Header // the open shard's, nil between shards
		n, begun := 0, ""
		var inShard map[string]int // events of the open shard → their line
		before := shards
		err := pipeline.EachRecordIn(in, src.Bad, func(e *format.Event, at *pipeline.Lines) error {
			if err := e.Validate(); err != nil {
				return pipeline.BadRecord(err)
			}
			switch {
			case e.Ev == format.EvHeader:
				where := fmt.Sprintf("%s:%d", in.Name, at.Line())
				if hdr != nil {
					return pipeline.BadRecord(fmt.Errorf("the shard begun at %s is cut short: %d of its %d events and no stats record before this header", begun, n, hdr.Events))
				}
				h := e.Header
				if err := checkFamily(h); err != nil {
					return pipeline.BadRecord(err)
				}
				if h.Unit != format.Count {
					return pipeline.BadRecord(fmt.Errorf("a model (%q), not counts: sumcounts and mstep take estep's counts; a model goes to decode -m or estep -m", string(h.Unit)))
				}
				if model == "" {
					model = h.Model
				} else if h.Model != model {
					return pipeline.BadRecord(fmt.Errorf("counts of different models mixed: this shard's E-step ran model %s, earlier shards' %s", h.Model, model))
				}
				if first, dup := seen[h.Corpus]; dup {
					return pipeline.BadRecord(fmt.Errorf("a shard given twice: the same sentences (corpus %s) as the shard at %s", h.Corpus, first))
				}
				c, err := strconv.ParseUint(h.Corpus, 16, 64)
				if err != nil {
					return pipeline.BadRecord(fmt.Errorf("corpus hash %q is not 16 hex digits", h.Corpus))
				}
				seen[h.Corpus] = where
				corpus += c
				shards++
				hdr, n, begun = h, 0, where
				inShard = map[string]int{}
				return nil
			case hdr == nil && e.Ev == format.EvStats:
				return pipeline.BadRecord(errors.New("a stats record outside a shard: counted twice, or counts without a header"))
			case hdr == nil:
				return pipeline.BadRecord(errors.New(`counts begin with a header ({"ev":"header","family":"dmv","unit":"n",...}); these do not (not estep's output, or from an older grind)`))
			case e.Ev == format.EvStats:
				if n < hdr.Events {
					return pipeline.BadRecord(fmt.Errorf("the shard begun at %s is truncated: %d of its %d events before its stats record", begun, n, hdr.Events))
				}
				hdr = nil
			case e.Unit != format.Count:
				return pipeline.BadRecord(fmt.Errorf("a count stream holds %q values; counts carry \"n\"", string(e.Unit)))
			default:
				if n++; n > hdr.Events {
					return pipeline.BadRecord(fmt.Errorf("more events than the shard's header (at %s) announces: %d", begun, hdr.Events))
				}
				// Shards add up; within one, an event is given once.
				key := describe(*e)
				if first, dup := inShard[key]; dup {
					return pipeline.BadRecord(fmt.Errorf("event given twice in one shard: %s (first at line %d)", key, first))
				}
				inShard[key] = at.Line()
			}
			return badRecord(b.Add(*e))
		})
		if err != nil {
			return err
		}
		switch {
		case shards == before: // an E-step that died before writing
			return fmt.Errorf("%s: no counts", in.Name)
		case hdr != nil:
			return fmt.Errorf("%s: the shard begun at %s is cut short: %d of its %d events and no stats record: truncated, or its E-step failed", in.Name, begun, n, hdr.Events)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t, err := b.Build()
	if err == nil {
		err = checkFinite(t.Params, "counts")
	}
	if err == nil && t.Stats == nil {
		err = errors.New("no stats record")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
	}
	t.Model, t.Corpus, t.Shards = model, fmt.Sprintf("%016x", corpus), shards
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

func badRecord(err error) error {
	if err != nil {
		return pipeline.BadRecord(err)
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
// model the E-step ran with, ModelNone for none, and of its sentences),
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
	}
	evs := Events(ts, p, hdr.Unit)
	hdr.Events = len(evs)
	if err := pipeline.WriteRecord(w, format.Event{Ev: format.EvHeader, Header: hdr}); err != nil {
		return err
	}
	for _, e := range evs {
		if err := pipeline.WriteRecord(w, e); err != nil {
			return err
		}
	}
	if stats != nil {
		return pipeline.WriteRecord(w, format.Event{Ev: format.EvStats, Stats: stats})
	}
	return nil
}

// ModelNone is the model hash of counts made without a model (estep
// --gold without -m).
const ModelNone = "none"

// Hash identifies a model by its content: unit, tags and every parameter's
// bits, as 16 hex digits (FNV-1a). Count headers carry it.
func (t *Table) Hash() string {
	h := fnv.New64a()
	h.Write([]byte{byte(t.Unit)})
	for _, name := range t.Tags.Names() {
		h.Write([]byte(name))
		h.Write([]byte{0})
	}
	var buf [8]byte
	for _, tab := range t.Params.Tables() {
		for _, v := range tab {
			bits := math.Float64bits(v)
			for i := range buf {
				buf[i] = byte(bits >> (8 * i))
			}
			h.Write(buf[:])
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// HashStrings combines strings into one hash of 16 hex digits (FNV-1a).
func HashStrings(parts ...string) string {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// CorpusHash identifies a shard's sentences (each by its id, tags and
// gold heads) as 16 hex digits, for the count header: the sum, mod 2⁶⁴,
// of each sentence's FNV-1a hash. A sum does not depend on how a corpus
// is cut into shards, so the shards' merged hash is the whole corpus's
// and a lost shard shows (mstep --expect-corpus).
func CorpusHash(sents []*format.Sentence) string {
	var sum uint64
	for _, s := range sents {
		h := fnv.New64a()
		h.Write([]byte(s.ID))
		h.Write([]byte{0})
		for _, t := range s.Tags {
			h.Write([]byte(t))
			h.Write([]byte{0})
		}
		for _, x := range s.Heads {
			h.Write([]byte(strconv.Itoa(x)))
			h.Write([]byte{1})
		}
		sum += h.Sum64()
	}
	return fmt.Sprintf("%016x", sum)
}

// LatticeHash identifies a shard's lattices as CorpusHash does sentences.
func LatticeHash(lattices []*format.Lattice) string {
	var sum uint64
	for _, l := range lattices {
		h := fnv.New64a()
		h.Write([]byte(l.ID))
		h.Write([]byte{0})
		for _, t := range l.Tags {
			h.Write([]byte(t))
			h.Write([]byte{0})
		}
		for _, a := range l.Arcs {
			fmt.Fprintf(h, "%d %d %s\x01", a.From, a.To, a.Tag)
		}
		sum += h.Sum64()
	}
	return fmt.Sprintf("%016x", sum)
}
