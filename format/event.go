package format

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	jsoniter "github.com/json-iterator/go"
)

// Event kinds. Models and counts share one record shape, so an M-step is
// "group by condition, normalise" and a model can be read with jq:
//
//	{"ev":"child","head":"VBD","dir":"right","arg":"NN","n":12.5}
//	{"ev":"stop","head":"VBD","dir":"left","adj":true,"n":3}
//	{"ev":"cont","head":"VBD","dir":"left","adj":true,"n":9}
//	{"ev":"root","arg":"VBD","n":40}
//	{"ev":"stats","sentences":5301,"tokens":37000,"loglik":-123456.7}
const (
	EvRoot  = "root"
	EvChild = "child"
	EvStop  = "stop"
	EvCont  = "cont"
	EvStats = "stats"
)

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
	Ev    string
	Head  string // child, stop, cont
	Dir   string // child, stop, cont: Left or Right
	Adj   bool   // stop, cont: no child yet on that side
	Arg   string // child, root
	Unit  Unit
	Value float64
	Stats *Stats // only for Ev == EvStats
}

// Stats closes a count stream: how much data the counts came from and its
// log-likelihood (natural log; -Inf when some sentence has probability 0).
// sumcounts adds stats records; mstep refuses a stream without one.
type Stats struct {
	Sentences int
	Tokens    int
	Loglik    float64
}

// eventWire is the JSON shape of an Event; pointers tell absent from zero.
type eventWire struct {
	Ev        string `json:"ev"`
	Head      string `json:"head,omitempty"`
	Dir       string `json:"dir,omitempty"`
	Adj       *bool  `json:"adj,omitempty"`
	Arg       string `json:"arg,omitempty"`
	N         *Real  `json:"n,omitempty"`
	P         *Real  `json:"p,omitempty"`
	W         *Real  `json:"w,omitempty"`
	Sentences *int   `json:"sentences,omitempty"`
	Tokens    *int   `json:"tokens,omitempty"`
	Loglik    *Real  `json:"loglik,omitempty"`
}

// MarshalJSON writes only the fields that the event's kind has.
func (e Event) MarshalJSON() ([]byte, error) {
	w := eventWire{Ev: e.Ev}
	switch e.Ev {
	case EvStats:
		if e.Stats == nil {
			return nil, errors.New("stats event without stats")
		}
		s, t, l := e.Stats.Sentences, e.Stats.Tokens, Real(e.Stats.Loglik)
		w.Sentences, w.Tokens, w.Loglik = &s, &t, &l
		return Marshal(w)
	case EvRoot:
		w.Arg = e.Arg
	case EvChild:
		w.Head, w.Dir, w.Arg = e.Head, e.Dir, e.Arg
	case EvStop, EvCont:
		adj := e.Adj
		w.Head, w.Dir, w.Adj = e.Head, e.Dir, &adj
	default:
		return nil, fmt.Errorf("unknown event kind %q", e.Ev)
	}
	v := Real(e.Value)
	switch e.Unit {
	case Count:
		w.N = &v
	case Prob:
		w.P = &v
	case Weight:
		w.W = &v
	default:
		return nil, fmt.Errorf("event %q has no unit", e.Ev)
	}
	return Marshal(w)
}

// UnmarshalJSON reads an event and checks that it has the fields its kind
// needs and exactly one of n, p, w. It uses the codec's streaming
// iterator: models and counts are read on every step of a shell loop.
func (e *Event) UnmarshalJSON(data []byte) error {
	it := codec.BorrowIterator(data)
	defer codec.ReturnIterator(it)
	*e = Event{}
	if it.WhatIsNext() != jsoniter.ObjectValue {
		return errors.New("an event must be a JSON object")
	}
	var adj *bool
	var values []Unit
	var sentences, tokens *int
	loglik := math.NaN()
	readReal := func() float64 {
		if it.WhatIsNext() == jsoniter.StringValue {
			var r Real
			if err := r.UnmarshalJSON([]byte(strconv.Quote(it.ReadString()))); err != nil {
				it.ReportError("read number", err.Error())
			}
			return float64(r)
		}
		return it.ReadFloat64()
	}
	for field := it.ReadObject(); field != "" && it.Error == nil; field = it.ReadObject() {
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
		case "n", "p", "w":
			values = append(values, Unit(field[0]))
			e.Unit, e.Value = Unit(field[0]), readReal()
		case "sentences":
			v := it.ReadInt()
			sentences = &v
		case "tokens":
			v := it.ReadInt()
			tokens = &v
		case "loglik":
			loglik = readReal()
		default:
			it.Skip()
		}
	}
	if it.Error != nil && it.Error != io.EOF {
		return it.Error
	}
	need := func(ok bool, field string) error {
		if !ok {
			return fmt.Errorf("%q event without %q", e.Ev, field)
		}
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
	var err error
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
	case "":
		err = errors.New(`record without "ev"`)
	default:
		err = fmt.Errorf("unknown event kind %q", e.Ev)
	}
	if err != nil {
		return err
	}
	if len(values) != 1 {
		return fmt.Errorf("%q event needs exactly one of \"n\", \"p\", \"w\"", e.Ev)
	}
	return nil
}

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
func (r Real) MarshalJSON() ([]byte, error) {
	f := float64(r)
	switch {
	case math.IsNaN(f):
		return []byte(`"nan"`), nil
	case math.IsInf(f, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-inf"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

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
