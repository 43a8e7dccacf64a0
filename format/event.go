package format

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	jsoniter "github.com/json-iterator/go"
)

// Event kinds. Models and counts share one record shape, so an M-step is
// "group by condition, normalise" and a model can be read with jq. A model
// file and each shard of a count stream open with a header record:
//
//	{"ev":"header","family":"dmv","unit":"p","events":2765}
//	{"ev":"header","family":"dmv","unit":"n","events":2765,"model":"9c1e0f3a6b2d4e58","corpus":"04d2a7c9e1f3b6a8"}
//	{"ev":"child","head":"VBD","dir":"right","arg":"NN","n":12.5}
//	{"ev":"stop","head":"VBD","dir":"left","adj":true,"n":3}
//	{"ev":"cont","head":"VBD","dir":"left","adj":true,"n":9}
//	{"ev":"root","arg":"VBD","n":40}
//	{"ev":"stats","sentences":5301,"tokens":37000,"loglik":-123456.7}
//
// The CCM's (family "ccm", or "ccm2" for Smith & Eisner's model 2) are
// its four multinomials, yields and contexts given or distituents
// (Boundary beyond the sentence edges), and the probability of a yield or
// context its M-step never saw (under ccm2 by yield length; 0 under ccm):
//
//	{"ev":"span","yield":["DT","NN"],"constituent":true,"p":0.0123}
//	{"ev":"context","left":"<>","right":"VBD","constituent":false,"p":0.004}
//	{"ev":"unseen_span","constituent":true,"length":0,"p":1.2e-05}
//	{"ev":"unseen_context","constituent":false,"p":3.4e-06}
const (
	EvRoot   = "root"
	EvChild  = "child"
	EvStop   = "stop"
	EvCont   = "cont"
	EvStats  = "stats"
	EvHeader = "header"

	EvSpan          = "span"
	EvContext       = "context"
	EvUnseenSpan    = "unseen_span"
	EvUnseenContext = "unseen_context"
)

// Boundary is the tag of a CCM context beyond a sentence edge.
const Boundary = "<>"

// Directions of child, stop and cont events.
const (
	Left  = "left"
	Right = "right"
)

// Unit says which number an event carries: a count n, a probability p, or
// a real weight w (log-linear models).
type Unit byte

const (
	Count  Unit = 'n'
	Prob   Unit = 'p'
	Weight Unit = 'w'
)

// Event is one parameter or one count of the DMV, or the stats record that
// closes a count stream.
type Event struct {
	Ev   string
	Head string // child, stop, cont
	Dir  string // child, stop, cont: Left or Right
	Adj  bool   // stop, cont: no child yet on that side
	Arg  string // child, root
	// The CCM's: a span's yield (the tags it covers, [] the empty span),
	// a context's tags before and after (Boundary beyond an edge), a
	// yield length (unseen_span), and the bracket value of all four.
	Yield       []string
	Left, Right string
	Length      int
	Constituent bool
	Unit        Unit
	Value       float64
	Stats       *Stats  // only for Ev == EvStats
	Header      *Header // only for Ev == EvHeader

	notEvent bool // read from a sentence or lattice record (Validate says so)
}

// Header opens a model file, or one shard of a count stream. Events is how
// many event records follow it (the stats record not included), so a file
// cut off even at a line boundary is told from a whole one. A shard's
// header names the model its E-step ran with and the sentences it read,
// by hash (16 hex digits; Model is "none" for gold counts without one), so
// that shards of different models, a shard given twice and, with Events
// and the stats record that closes each shard, a shard lost or cut short
// anywhere in a concatenated stream are refused. Family is the model
// family ("dmv"); the next families (CCM, HMM) keep the same header.
type Header struct {
	Family string
	Unit   Unit
	Events int
	Model  string // counts only
	Corpus string // counts only
}

// Stats closes a count stream: how much data the counts came from and its
// log-likelihood (natural log; -Inf when some sentence has probability 0).
// sumcounts adds stats records; mstep refuses a stream without one.
type Stats struct {
	Sentences int
	Tokens    int
	Loglik    float64
}

// MarshalJSON writes only the fields that the event's kind has.
func (e Event) MarshalJSON() ([]byte, error) {
	switch e.Ev {
	case EvStats:
		if e.Stats == nil {
			return nil, errors.New("stats event without stats")
		}
	case EvHeader:
		if e.Header == nil {
			return nil, errors.New("header event without header")
		}
	case EvRoot, EvChild, EvStop, EvCont, EvSpan, EvContext, EvUnseenSpan, EvUnseenContext:
		if e.Unit != Count && e.Unit != Prob && e.Unit != Weight {
			return nil, fmt.Errorf("event %q has no unit", e.Ev)
		}
	default:
		return nil, fmt.Errorf("unknown event kind %q", e.Ev)
	}
	return encodeObject(func(o *object) {
		o.str("ev", e.Ev)
		switch e.Ev {
		case EvHeader:
			h := e.Header
			o.str("family", h.Family)
			o.str("unit", string(h.Unit))
			o.int("events", h.Events)
			if h.Unit == Count {
				o.str("model", h.Model)
				o.str("corpus", h.Corpus)
			}
			return
		case EvStats:
			o.int("sentences", e.Stats.Sentences)
			o.int("tokens", e.Stats.Tokens)
			o.real("loglik", e.Stats.Loglik)
			return
		case EvRoot:
			o.str("arg", e.Arg)
		case EvChild:
			o.str("head", e.Head)
			o.str("dir", e.Dir)
			o.str("arg", e.Arg)
		case EvStop, EvCont:
			o.str("head", e.Head)
			o.str("dir", e.Dir)
			o.field("adj").WriteBool(e.Adj)
		case EvSpan:
			o.strings("yield", e.Yield)
			o.field("constituent").WriteBool(e.Constituent)
		case EvContext:
			o.str("left", e.Left)
			o.str("right", e.Right)
			o.field("constituent").WriteBool(e.Constituent)
		case EvUnseenSpan:
			o.field("constituent").WriteBool(e.Constituent)
			o.int("length", e.Length)
		case EvUnseenContext:
			o.field("constituent").WriteBool(e.Constituent)
		}
		o.real(string(e.Unit), e.Value)
	})
}

// UnmarshalJSON reads an event and checks that it has the fields its kind
// needs and exactly one of n, p, w. Models and counts are read on every
// step of a shell loop, so it reads with the codec's streaming iterator.
func (e *Event) UnmarshalJSON(data []byte) error {
	*e = Event{}
	var adj, constituent, yield *bool
	var length *int
	var values []Unit
	var sentences, tokens, events *int
	var family, unit, model, corpus string
	sentence := false // a sentence or lattice record where an event is due
	loglik := math.NaN()
	readReal := func(it *jsoniter.Iterator) float64 {
		if it.WhatIsNext() == jsoniter.StringValue {
			var r Real
			if err := r.UnmarshalJSON([]byte(strconv.Quote(it.ReadString()))); err != nil {
				it.ReportError("read number", err.Error())
			}
			return float64(r)
		}
		return it.ReadFloat64()
	}
	err := decodeObject(data, "event", func(it *jsoniter.Iterator, field string) {
		switch field {
		case "ev":
			e.Ev = it.ReadString()
		case "head":
			e.Head = it.ReadString()
		case "dir":
			e.Dir = it.ReadString()
		case "arg":
			e.Arg = it.ReadString()
		case "adj":
			b := it.ReadBool()
			adj = &b
		case "yield":
			e.Yield = readStrings(it, nil)
			if e.Yield == nil {
				e.Yield = []string{}
			}
			t := true
			yield = &t
		case "left":
			e.Left = it.ReadString()
		case "right":
			e.Right = it.ReadString()
		case "length":
			v := it.ReadInt()
			length = &v
		case "constituent":
			b := it.ReadBool()
			constituent = &b
		case "n", "p", "w":
			values = append(values, Unit(field[0]))
			e.Unit, e.Value = Unit(field[0]), readReal(it)
		case "sentences":
			v := it.ReadInt()
			sentences = &v
		case "tokens":
			v := it.ReadInt()
			tokens = &v
		case "loglik":
			loglik = readReal(it)
		case "family":
			family = it.ReadString()
		case "unit":
			unit = it.ReadString()
		case "events":
			v := it.ReadInt()
			events = &v
		case "model":
			model = it.ReadString()
		case "corpus":
			corpus = it.ReadString()
		case "tags", "arcs":
			sentence = true
			it.Skip()
		default:
			it.Skip()
		}
	})
	if err != nil {
		return err
	}
	need := func(ok bool, field string) error {
		if !ok {
			return fmt.Errorf("%q event without %q", e.Ev, field)
		}
		return nil
	}
	if e.Ev == "" && sentence {
		e.notEvent = true // a corpus in the wrong place: Validate names it
		return nil
	}
	if e.Ev == EvStats {
		if err := errors.Join(need(sentences != nil, "sentences"), need(tokens != nil, "tokens")); err != nil {
			return err
		}
		e.Unit, e.Value = 0, 0
		e.Stats = &Stats{Sentences: *sentences, Tokens: *tokens, Loglik: loglik}
		return nil
	}
	if e.Ev == EvHeader {
		if err := errors.Join(need(family != "", "family"), need(unit != "", "unit"), need(events != nil, "events")); err != nil {
			return err
		}
		u := Unit(unit[0])
		if len(unit) != 1 || u != Count && u != Prob && u != Weight {
			return fmt.Errorf(`header with unit %q: want "n", "p" or "w"`, unit)
		}
		if *events < 0 {
			return fmt.Errorf("header with %d events", *events)
		}
		if u == Count {
			if err := errors.Join(need(model != "", "model"), need(corpus != "", "corpus")); err != nil {
				return err
			}
		}
		e.Header = &Header{Family: family, Unit: u, Events: *events, Model: model, Corpus: corpus}
		return nil
	}
	switch e.Ev {
	case EvRoot:
		err = need(e.Arg != "", "arg")
	case EvChild:
		err = errors.Join(need(e.Head != "", "head"), need(e.Arg != "", "arg"), checkDir(e.Dir))
	case EvStop, EvCont:
		err = errors.Join(need(e.Head != "", "head"), need(adj != nil, "adj"), checkDir(e.Dir))
		if adj != nil {
			e.Adj = *adj
		}
	case EvSpan:
		err = errors.Join(need(yield != nil, "yield"), need(constituent != nil, "constituent"))
	case EvContext:
		err = errors.Join(need(e.Left != "", "left"), need(e.Right != "", "right"), need(constituent != nil, "constituent"))
	case EvUnseenSpan:
		err = errors.Join(need(constituent != nil, "constituent"), need(length != nil, "length"))
		if length != nil && *length < 0 {
			err = fmt.Errorf("%q event with length %d", e.Ev, *length)
		}
	case EvUnseenContext:
		err = need(constituent != nil, "constituent")
	case "":
		err = errors.New(`record without "ev"`)
	default:
		err = fmt.Errorf("unknown event kind %q", e.Ev)
	}
	if err != nil {
		return err
	}
	if constituent != nil {
		e.Constituent = *constituent
	}
	if length != nil {
		e.Length = *length
	}
	if len(values) != 1 {
		return fmt.Errorf("%q event needs exactly one of \"n\", \"p\", \"w\"", e.Ev)
	}
	return nil
}

// Validate checks what a well-formed event holds, for the readers of
// models and counts: the numbers of models and counts are finite (a count
// or probability ≥ 0, a probability ≤ 1, a log-linear weight any finite
// number); a stats record counts sentences and tokens ≥ 0 and its loglik
// is a number or −inf; and a sentence record is no event at all.
func (e *Event) Validate() error {
	switch {
	case e.notEvent:
		return ErrNotEvent
	case e.Ev == EvHeader:
		return nil
	case e.Ev == EvStats:
		st := e.Stats
		switch {
		case st.Sentences < 0 || st.Tokens < 0:
			return errors.New("stats record with a negative number of sentences or tokens")
		case math.IsNaN(st.Loglik) || math.IsInf(st.Loglik, 1):
			// A sum of log Z: a number, or −inf when a sentence has
			// weight 0 (positive under log-linear or re-weighted models).
			return fmt.Errorf("stats record with loglik %v: want a number or \"-inf\"", st.Loglik)
		}
		return nil
	}
	switch {
	case math.IsNaN(e.Value) || math.IsInf(e.Value, 0):
		return fmt.Errorf("%q value %v is not a finite number", string(e.Unit), e.Value)
	case e.Unit != Weight && e.Value < 0:
		return fmt.Errorf("%q value %v is negative", string(e.Unit), e.Value)
	case e.Unit == Prob && e.Value > 1:
		return fmt.Errorf("probability %v is more than 1", e.Value)
	}
	return nil
}

// ErrNotEvent is the error for a sentence or lattice record read where a
// model or counts are due: a corpus given in the wrong place.
var ErrNotEvent = errors.New(`a sentence record (it has "tags"), not an event of a model or counts: a corpus where a model or counts are due (models come from train-em, dmv-init or mstep; counts from estep)`)

func checkDir(d string) error {
	if d != Left && d != Right {
		return fmt.Errorf("dir must be %q or %q, not %q", Left, Right, d)
	}
	return nil
}

// Real is a float64 whose JSON form allows the values JSON lacks: -Inf, +Inf
// and NaN are written as the strings "-inf", "inf" and "nan".
type Real float64

// MarshalJSON writes finite numbers in their shortest exact form.
func (r Real) MarshalJSON() ([]byte, error) { return appendReal(nil, float64(r)), nil }

// UnmarshalJSON reads a number or one of the strings MarshalJSON writes.
func (r *Real) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case `"nan"`:
		*r = Real(math.NaN())
		return nil
	case `"inf"`, `"+inf"`:
		*r = Real(math.Inf(1))
		return nil
	case `"-inf"`:
		*r = Real(math.Inf(-1))
		return nil
	}
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", data)
	}
	*r = Real(f)
	return nil
}
