// Package format defines grind's records (sentences, events, lattices) and
// the readers and writers of the treebank formats they are made from: PTB
// brackets, CoNLL-X, CoNLL-U and NLTK .dp. It knows nothing of files,
// compression or line numbers; package pipeline does.
package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

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
// line twice. The parser's errors come back as *JSONError.
func Unmarshal(data []byte, v any) error {
	if u, ok := v.(json.Unmarshaler); ok {
		return u.UnmarshalJSON(data)
	}
	if err := codec.Unmarshal(data, v); err != nil {
		var je *JSONError
		if errors.As(err, &je) {
			return err
		}
		return jsonError(err, data, "")
	}
	return nil
}

// decodeObject runs field for every field of the JSON object in data,
// with the iterator positioned on the field's value; what must refuses,
// a non-object or trailing data, is an error. Errors are *JSONError, in
// grind's words and naming the field, not the parser's.
func decodeObject(data []byte, what string, field func(it *jsoniter.Iterator, name string)) error {
	it := codec.BorrowIterator(data)
	defer codec.ReturnIterator(it)
	if it.WhatIsNext() != jsoniter.ObjectValue {
		msg := fmt.Sprintf("a %s must be a JSON object {…}, not %s", what, describeStart(data))
		if what == "sentence" {
			msg += converterHint(data)
		}
		return &JSONError{Msg: msg}
	}
	current := ""
	var seen [16]string // the fields so far; records have few
	names := seen[:0]
	var many map[string]bool // past len(seen), so that a line of a million fields takes no n² time
	for name := it.ReadObject(); name != "" && it.Error == nil; name = it.ReadObject() {
		twice := many[name]
		if many == nil {
			for _, n := range names {
				twice = twice || n == name
			}
			if names = append(names, name); len(names) == len(seen) {
				many = map[string]bool{}
				for _, n := range names {
					many[n] = true
				}
			}
		} else {
			many[name] = true
		}
		if twice {
			return &JSONError{Field: name, Msg: "given twice in one " + what}
		}
		current = name
		field(it, name)
		if it.Error != nil && it.Error != io.EOF {
			return jsonError(it.Error, data, current)
		}
		current = ""
	}
	if it.Error != nil && it.Error != io.EOF {
		return jsonError(it.Error, data, current)
	}
	// At the true end the iterator reports io.EOF; anything else left over
	// (even a byte that starts no JSON value) is trailing data.
	if it.Error = nil; it.WhatIsNext() != jsoniter.InvalidValue || it.Error != io.EOF {
		return &JSONError{Msg: "data after the end of the " + what}
	}
	return nil
}

// JSONError is a record that is not the JSON it should be: the field it
// is in ("" when the problem is between fields) and what is wrong.
type JSONError struct {
	Field string
	Msg   string
}

func (e *JSONError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Msg)
}

// jsonErrorParts splits the parser's message: "op: msg, error found in
// #N byte of ...|window|..., bigger context ...|...|...".
// Decoding by reflection puts "pkg.Type.Field: " before it, and a
// field's own decoder "unmarshalerDecoder: " before its message.
var jsonErrorParts = sync.OnceValue(func() *regexp.Regexp { // compiled at the first error, not at every start
	return regexp.MustCompile(`(?s)^(?:[\w.]+\.(\w+): )?(unmarshalerDecoder: )?(\w[\w ]*): (.*?), error found in #(\d+) byte of \.\.\.\|(.*?)\|\.\.\., bigger context`)
})

// jsonExpects says what each of the parser's reads expected.
var jsonExpects = map[string]string{
	"ReadArray": "an array [...]", "ReadArrayCB": "an array [...]",
	"ReadString": "a string", "ReadStringAsSlice": "a string",
	"ReadObject": `a field "name": value, or the end of the object`, "ReadObjectCB": "an object {...}",
	"ReadBool": "true or false", "ReadNil": "null",
	"ReadFloat32": "a number", "ReadFloat64": "a number", "readNumberAsString": "a number",
	"ReadInt": "an integer", "ReadInt32": "an integer", "ReadInt64": "an integer",
	"ReadUint32": "a non-negative integer", "ReadUint64": "a non-negative integer",
	"readUint32": "a non-negative integer", "readUint64": "a non-negative integer",
	"assertInteger": "an integer", "readPositiveFloat64": "a number", "readPositiveFloat32": "a number",
	"Skip": "a JSON value", "skipObject": "an object {...}", "skipArray": "an array [...]", "skipNumber": "a number", "skipString": "a string",
}

// jsonError turns one of the parser's errors into grind's words.
func jsonError(err error, data []byte, field string) error {
	m := jsonErrorParts().FindStringSubmatch(err.Error())
	if m == nil {
		return &JSONError{Field: field, Msg: clipMessage(err.Error())}
	}
	if m[1] != "" && field == "" {
		field = strings.ToLower(m[1][:1]) + m[1][1:] // the Go field, named as its JSON field
	}
	op, msg, window := m[3], m[4], m[6]
	at, _ := strconv.Atoi(m[5])
	expect, known := jsonExpects[op]
	switch {
	case m[2] != "":
		return &JSONError{Field: field, Msg: clipMessage(op + ": " + msg)}
	case !known:
		return &JSONError{Field: field, Msg: clipMessage(msg)} // a record's own check, already in words
	case strings.Contains(msg, "incomplete") || strings.Contains(msg, "EOF") || at > len(window) || endsEarly(data, window, at):
		return &JSONError{Field: field, Msg: "the line ends in the middle of the value (expected " + expect + ")"}
	case op == "assertInteger":
		return &JSONError{Field: field, Msg: "expected an integer, found a number with a fraction or exponent"}
	case strings.Contains(msg, "overflow"):
		return &JSONError{Field: field, Msg: "integer too large"}
	}
	// The parser reports the position after the byte it could not take.
	return &JSONError{Field: field, Msg: "expected " + expect + ", found " + describeStart([]byte(window[max(at-1, 0):]))}
}

// endsEarly says whether the parser failed on the last byte of a line
// that stops after a byte that is fine where it is (a "," or "]" with
// nothing after it): the line was cut, not malformed.
func endsEarly(data []byte, window string, at int) bool {
	data = bytes.TrimRight(data, " \t\r\n")
	return at == len(window) && at > 0 && bytes.HasSuffix(data, []byte(window)) &&
		strings.IndexByte(",:[{]}\"0123456789", window[at-1]) >= 0
}

// describeStart names the JSON value data starts with, for a message.
func describeStart(data []byte) string {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return "nothing (the line ends)"
	}
	switch c := data[0]; {
	case c == '"':
		return "a string"
	case c == '[':
		return "an array"
	case c == '{':
		return "an object"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	case bytes.HasPrefix(data, []byte("true")) || bytes.HasPrefix(data, []byte("false")):
		return "true or false"
	case bytes.HasPrefix(data, []byte("null")):
		return "null"
	case c < 0x20 || c >= 0x80:
		return fmt.Sprintf("byte 0x%02x", c)
	default:
		return fmt.Sprintf("%q", rune(c))
	}
}

// converterHint names the converter for a line that is no JSON but
// looks like one of the formats grind's converters read, "" for others.
func converterHint(line []byte) string {
	line = bytes.TrimSpace(line)
	cells := bytes.Split(line, []byte("\t"))
	word, _, _ := bytes.Cut(line, []byte(" "))
	slash := bytes.LastIndexByte(word, '/')
	switch {
	case bytes.HasPrefix(line, []byte("(")):
		return " (a bracketed treebank? ptb2deps converts one to sentence records)"
	case bytes.HasPrefix(line, []byte("#")) || len(cells) >= 8 && len(cells[0]) > 0 && cells[0][0] >= '0' && cells[0][0] <= '9':
		return " (CoNLL-U or CoNLL-X? conll2deps converts it to sentence records)"
	case slash > 0 && slash < len(word)-1:
		return " (tagged text, word/TAG? tagged2sents converts it to sentence records)"
	}
	return ""
}

// clipMessage keeps an error message to one readable line.
func clipMessage(msg string) string {
	if i := strings.IndexAny(msg, "\n"); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
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

// raw writes a value that is JSON text already.
func (o *object) raw(name string, v []byte) {
	o.field(name)
	o.s.SetBuffer(append(o.s.Buffer(), v...))
}

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
