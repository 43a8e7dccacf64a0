package cesearch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/grind-nlp/grind/pipeline"
)

// StateFormat marks a state file (ce-step's, train-ce's run directory's
// ce-state.json): its "format" field.
const StateFormat = "grind ce-step state"

// WriteFile writes v, a state file's record, to path atomically (a .gz
// or .zst name is compressed): one JSON record and a newline.
func WriteFile(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return pipeline.WriteFile(path, nil, func(o *pipeline.Output) error {
		_, err := o.Write(append(b, '\n'))
		return err
	})
}

// ReadFile reads the one JSON record of a state file (compressed or not)
// into v, strictly, then checks it (check says what is wrong with v, nil
// if nothing): a file cut short, of another kind, with a field v does not
// have, with more than one record or that check refuses is an error naming
// the file and the line, and saying what is wrong.
func ReadFile(path string, v any, check func() error) error {
	in, err := pipeline.Open(path, nil)
	if err != nil {
		return err
	}
	defer in.Close()
	b, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return fmt.Errorf("%s:1: empty: not a ce-step state", path)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return fmt.Errorf("%s:%d: not a ce-step state (invalid JSON: %v)", path, lineAt(b, syn.Offset), syn)
		case errors.As(err, &typ):
			return fmt.Errorf("%s:%d: not a ce-step state (%v)", path, lineAt(b, typ.Offset), typ)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("%s:%d: not a ce-step state: cut short", path, lineAt(b, int64(len(b))))
		}
		return fmt.Errorf("%s:1: not a ce-step state (%v)", path, err)
	}
	if dec.More() {
		return fmt.Errorf("%s:%d: not a ce-step state: more than one record", path, lineAt(b, dec.InputOffset()))
	}
	if err := check(); err != nil {
		return fmt.Errorf("%s:1: %w", path, err)
	}
	return nil
}

// Family is the "family" of the state file at path ("" when it cannot be
// read as a state's record; ReadFile then says why).
func Family(path string) string {
	in, err := pipeline.Open(path, nil)
	if err != nil {
		return ""
	}
	defer in.Close()
	var head struct{ Format, Family string }
	if json.NewDecoder(in).Decode(&head) != nil || head.Format != StateFormat {
		return ""
	}
	return head.Family
}

// lineAt is the line of byte offset off of b.
func lineAt(b []byte, off int64) int {
	b = bytes.TrimRight(b, "\n")
	return 1 + bytes.Count(b[:min(int(max(off, 0)), len(b))], []byte{'\n'})
}
