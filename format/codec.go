// Package format defines grind's records (sentences, events, lattices) and
// the readers and writers of the treebank formats they are made from: PTB
// brackets, CoNLL-X, CoNLL-U and NLTK .dp. It knows nothing of files,
// compression or line numbers; package pipeline does.
package format

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"

	jsoniter "github.com/json-iterator/go"
)

// The one JSON codec of the project. Every record goes through Marshal and
// Unmarshal, so the library behind them can be swapped in one place.
var codec = jsoniter.Config{
	EscapeHTML:             false,
	SortMapKeys:            true,
	ValidateJsonRawMessage: true,
}.Froze()

// Marshal encodes v as one line of JSON (no trailing newline). Records
// that encode themselves (Sentence, Event) are called directly, without
// reflection.
func Marshal(v any) ([]byte, error) {
	if m, ok := v.(json.Marshaler); ok {
		return m.MarshalJSON()
	}
	return codec.Marshal(v)
}

// Unmarshal decodes one line of JSON into v. Records that decode
// themselves are called directly: the codec would otherwise scan each
// line twice.
func Unmarshal(data []byte, v any) error {
	if u, ok := v.(json.Unmarshaler); ok {
		return u.UnmarshalJSON(data)
	}
	return codec.Unmarshal(data, v)
}

// decodeObject runs field for every field of the JSON object in data,
// with the iterator positioned on the field's value; what must refuses,
// a non-object or trailing data, is an error.
func decodeObject(data []byte, what string, field func(it *jsoniter.Iterator, name string)) error {
	it := codec.BorrowIterator(data)
	defer codec.ReturnIterator(it)
	if it.WhatIsNext() != jsoniter.ObjectValue {
		return errors.New(what + " must be a JSON object")
	}
	for name := it.ReadObject(); name != "" && it.Error == nil; name = it.ReadObject() {
		field(it, name)
	}
	if it.Error != nil && it.Error != io.EOF {
		return it.Error
	}
	// At the true end the iterator reports io.EOF; anything else left over
	// (even a byte that starts no JSON value) is trailing data.
	if it.Error = nil; it.WhatIsNext() != jsoniter.InvalidValue || it.Error != io.EOF {
		return errors.New("data after the end of the " + what)
	}
	return nil
}

// encodeObject writes the JSON object whose fields fill writes.
func encodeObject(fill func(o *object)) ([]byte, error) {
	s := codec.BorrowStream(nil)
	defer codec.ReturnStream(s)
	s.WriteObjectStart()
	fill(&object{s: s})
	s.WriteObjectEnd()
	if s.Error != nil {
		return nil, s.Error
	}
	return append([]byte(nil), s.Buffer()...), nil
}

// object writes the fields of one JSON object, commas included.
type object struct {
	s      *jsoniter.Stream
	fields int
}

// field writes a field's name; its value follows on the returned stream.
func (o *object) field(name string) *jsoniter.Stream {
	if o.fields > 0 {
		o.s.WriteMore()
	}
	o.fields++
	o.s.WriteObjectField(name)
	return o.s
}

func (o *object) str(name, v string) { o.field(name).WriteString(v) }

func (o *object) int(name string, v int) { o.field(name).WriteInt(v) }

func (o *object) strings(name string, xs []string) {
	writeArray(o.field(name), xs, o.s.WriteString)
}

func (o *object) ints(name string, xs []int) { writeArray(o.field(name), xs, o.s.WriteInt) }

// real writes a number in its shortest exact form, or one of the strings
// Real uses for the values JSON lacks.
func (o *object) real(name string, f float64) {
	o.field(name)
	o.s.SetBuffer(appendReal(o.s.Buffer(), f))
}

// writeArray writes [...], each element by write.
func writeArray[T any](s *jsoniter.Stream, xs []T, write func(T)) {
	s.WriteArrayStart()
	for i, x := range xs {
		if i > 0 {
			s.WriteMore()
		}
		write(x)
	}
	s.WriteArrayEnd()
}

func appendReal(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"nan"`...)
	case math.IsInf(f, 1):
		return append(dst, `"inf"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-inf"`...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}
