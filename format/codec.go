// Package format defines grind's records (sentences, events, lattices) and
// the readers and writers of the treebank formats they are made from: PTB
// brackets, CoNLL-X, CoNLL-U and NLTK .dp. It knows nothing of files,
// compression or line numbers; package pipeline does.
package format

import (
	jsoniter "github.com/json-iterator/go"
)

// The one JSON codec of the project. Every record goes through these two
// functions, so the library behind them can be swapped in one place.
var codec = jsoniter.Config{
	EscapeHTML:             false,
	SortMapKeys:            true,
	ValidateJsonRawMessage: true,
	DisallowUnknownFields:  false,
}.Froze()

// Marshal encodes v as one line of JSON (no trailing newline).
func Marshal(v any) ([]byte, error) { return codec.Marshal(v) }

// Unmarshal decodes one line of JSON into v.
func Unmarshal(data []byte, v any) error { return codec.Unmarshal(data, v) }
