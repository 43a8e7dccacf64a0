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
func NumEvents(t int, v Valence) int { return t + 4*v.Stop*t + 2*v.Child*t*t }

// numEvents is how many event records p is written as: NumEvents, and a
// backoff event for each child entry when p has a Backoff.
func (p *Params) numEvents() int { return NumEvents(p.T, p.V) + len(p.Backoff) }

// ReadModel reads a model file (probabilities or log-linear weights): its
// header, exactly the events the header announces, every parameter once;
// a probability model's multinomials each sum to 1 (SumTolerance), or to
// at most 1 when its header marks it a model of variational Bayes.
// A model over refined tags (its header's "refine") is refused: only
// the parsers know how to refine a sentence's tags (ReadParsingModel).
func ReadModel(path string) (*Table, error) {
	t, err := ReadParsingModel(path)
	if err == nil && t.Refine != "" {
		err = fmt.Errorf(`%s: a model over tags refined by their words (its header's "refine" %q): decode and select-model read it, this program does not`, path, t.Refine)
	}
	return t, err
}

// ReadParsingModel reads a model as ReadModel does, and a model over
// refined tags too, for the programs that parse with it (decode,
// select-model): their Decoder refines the tags it encodes.
func ReadParsingModel(path string) (*Table, error) {
	return readModel(pipeline.Source{Names: []string{path}}, path)
}

// readModel reads the model of src (one input), called path in errors.
func readModel(src pipeline.Source, path string) (*Table, error) {
	b := &TableBuilder{}
	hdr, err := eventio.ReadModel(src, path, b.kind())
	if err != nil {
		return nil, err
	}
	t, err := b.Build()
	if err == nil {
		t.VB, t.Refine = vbOf(hdr), hdr.Refine
		err = errors.Join(checkRefine(t.Refine), t.checkModel())
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
		Key:      func(e *format.Event) string { return Describe(*e) },
		ID:       b.id,
		VB:       true,
		Header:   b.header,
	}
	if shortRoad {
		k.Short, k.Commit = b.scanLine, b.commit
	}
	return k
}

// checkModel checks a model read whole: every parameter given, a
// probability model normalised (a VB model's sums at most 1), log-linear
// weights within MaxWeight.
func (t *Table) checkModel() error {
	if got, want := t.events, t.Params.numEvents(); got != want {
		return fmt.Errorf("%d events for %d tags, a model has %d: some parameters are missing", got, t.Tags.Len(), want)
	}
	switch t.Unit {
	case format.Prob:
		if t.VB != nil {
			return CheckSubDistribution(t.Tags, t.Params)
		}
		if t.Params.Backoff != nil {
			if err := checkBackoff(t.Tags, t.Params); err != nil {
				return err
			}
		}
		return CheckDistribution(t.Tags, t.Params)
	case format.Weight:
		if t.Params.Backoff != nil {
			return errors.New("a log-linear model has no back-off events")
		}
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
	for _, tab := range p.entries() {
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

// WriteVB writes a model of variational Bayes: its header (with vb's
// α and bound), then the weights p as probabilities.
func WriteVB(w io.Writer, ts *TagSet, p *Params, vb VB) error {
	if err := CheckAlpha(vb.Alpha); err != nil {
		return fmt.Errorf("%v: nothing written", err)
	}
	if b := vb.Bound; b != nil && (math.IsNaN(*b) || math.IsInf(*b, 1)) {
		return fmt.Errorf("a variational bound of %v: nothing written", *b)
	}
	return writeTable(w, ts, p, &format.Header{Family: Family, Unit: format.Prob, VBAlpha: vb.Alpha, VBBound: vb.Bound}, nil)
}

// vbOf is what a header says of a model of variational Bayes (nil: it
// is none).
func vbOf(h *format.Header) *VB {
	if h.VBAlpha > 0 {
		return &VB{Alpha: h.VBAlpha, Bound: h.VBBound}
	}
	return nil
}

// WriteModel writes t's parameters as the model it is: a model of
// variational Bayes when t.VB says so, over refined tags when t.Refine
// does.
func WriteModel(w io.Writer, t *Table) error {
	switch {
	case t.Refine == "" && t.VB != nil:
		return WriteVB(w, t.Tags, t.Params, *t.VB)
	case t.Refine == "":
		return WriteTable(w, t.Tags, t.Params, t.Unit, nil)
	case t.VB != nil || t.Unit == format.Count:
		return errors.New("a model over refined tags is of probabilities or weights, not of variational Bayes or counts: nothing written")
	}
	if err := checkRefine(t.Refine); err != nil {
		return fmt.Errorf("%v: nothing written", err)
	}
	return writeTable(w, t.Tags, t.Params, &format.Header{Family: Family, Unit: t.Unit, Refine: t.Refine}, nil)
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
	t := &Table{Tags: ts, Params: p, Unit: hdr.Unit, VB: vbOf(hdr), events: p.numEvents()}
	switch hdr.Unit {
	case format.Prob, format.Weight:
		if err := t.checkModel(); err != nil {
			return fmt.Errorf("the model made is not valid (%v): nothing written", err)
		}
	case format.Count:
		for _, tab := range p.entries() {
			for _, v := range tab {
				if v < 0 {
					return fmt.Errorf("a negative count (%v): nothing written", v)
				}
			}
		}
	default:
		return fmt.Errorf("unit %q: want \"n\", \"p\" or \"w\"", string(hdr.Unit))
	}
	return eventio.WriteLines(w, p.V.header(hdr), p.numEvents(), func(emit func(line []byte) error) error {
		return eachLine(ts, p, hdr.Unit, emit)
	}, stats)
}

// Hash identifies a model by its content: unit, tags and every parameter's
// bits, as 16 hex digits (FNV-1a). Count headers carry it.
func (t *Table) Hash() string {
	h := eventio.NewHasher()
	h.Byte(byte(t.Unit))
	if v := t.Params.V; !v.IsDMV() { // the plain DMV's hash as it always was
		h.Byte(byte(v.Stop))
		h.Byte(byte(v.Child))
	}
	for _, name := range t.Tags.Names() {
		h.String(name)
		h.Byte(0)
	}
	for _, tab := range t.Params.entries() { // a plain table's hash as it always was
		for _, v := range tab {
			h.Float(v)
		}
	}
	return h.Sum()
}
