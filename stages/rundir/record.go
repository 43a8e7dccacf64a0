package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/grind-nlp/grind/internal/buildinfo"
	"github.com/grind-nlp/grind/pipeline"
)

// RecordFile is the run record of a run directory.
const RecordFile = "run.json"

// Record is run.json: where a run came from — the grind that ran it and
// where and when, its command line, the value of every flag as the run
// used it, and every input file with its SHA-256 — which --resume
// checks and continues and report shows.
type Record struct {
	Program string `json:"program"`
	// Grind, Go, Host and Dir are absent from the records of an older
	// grind (which recorded every flag's declared value, and its inputs'
	// hashes without their names).
	Grind *buildinfo.Build `json:"grind,omitempty"`
	Go    string           `json:"go,omitempty"`   // the Go release and platform of the binary
	Host  string           `json:"host,omitempty"` // the machine's host name
	Dir   string           `json:"dir,omitempty"`  // the working folder, which relative names are relative to
	// Started and Ended are RFC 3339 times: when the run began, and when
	// it last ended successfully (absent while it has not).
	Started string       `json:"started,omitempty"`
	Ended   string       `json:"ended,omitempty"`
	Resumed []Resumption `json:"resumed,omitempty"` // each --resume of the run, in order
	// NotResumable says why the run cannot be resumed ("" when it can):
	// it read stdin, which cannot be read again.
	NotResumable string   `json:"not_resumable,omitempty"`
	Argv         []string `json:"argv"` // the command line as typed
	Args         []string `json:"args"` // the file arguments ("-" is stdin)
	// Flags holds every flag's value as the run used it: a default that
	// stands for another value (--tol left out: the estimator's own
	// threshold) is the value it stood for.
	Flags  map[string]string `json:"flags"`
	Inputs []Input           `json:"inputs"`
}

// Old says whether r was written by a grind before records named their
// inputs and the values used.
func (r *Record) Old() bool { return r.Grind == nil }

// An Input is a file the run read: an argument (Flag "") or the file a
// flag names ("--model"), in the order the run hashed them.
type Input struct {
	File   string `json:"file,omitempty"`
	Flag   string `json:"flag,omitempty"`
	SHA256 string `json:"sha256"` // "" for stdin until the run has read it all
}

// A Resumption is one --resume of a run: when and where it began, and the
// grind that ran it when it is not the one that started the run.
type Resumption struct {
	Started string           `json:"started"`
	Host    string           `json:"host,omitempty"`
	Grind   *buildinfo.Build `json:"grind,omitempty"`
	Go      string           `json:"go,omitempty"`
}

// WriteRecord writes r to dir's run.json atomically.
func WriteRecord(dir string, r *Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return pipeline.WriteFile(filepath.Join(dir, RecordFile), nil, func(o *pipeline.Output) error {
		_, err := o.Write(append(b, '\n'))
		return err
	})
}

// ErrNoRecord is ReadRecord's error for a folder without run.json.
var ErrNoRecord = errors.New("no " + RecordFile)

// ReadRecord reads dir's run.json; invalid JSON is an error naming the
// file and line.
func ReadRecord(dir string) (*Record, error) {
	path := filepath.Join(dir, RecordFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoRecord
	}
	if err != nil {
		return nil, err
	}
	var r Record
	err = json.Unmarshal(b, &r)
	if typ := (*json.UnmarshalTypeError)(nil); errors.As(err, &typ) && typ.Field == "inputs" && typ.Value == "string" {
		// An older grind's record: its inputs' hashes alone.
		r = Record{}
		old := struct {
			*Record
			Inputs []string `json:"inputs"`
		}{Record: &r}
		if err = json.Unmarshal(b, &old); err == nil {
			for _, h := range old.Inputs {
				r.Inputs = append(r.Inputs, Input{SHA256: h})
			}
		}
	}
	if err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, fmt.Errorf("%s:%d: invalid JSON: %v", path, lineAt(b, syn.Offset), syn)
		case errors.As(err, &typ):
			return nil, fmt.Errorf("%s:%d: invalid JSON: field %q: expected %s, found a %s", path, lineAt(b, typ.Offset), typ.Field, typ.Type, typ.Value)
		}
		return nil, fmt.Errorf("%s: invalid JSON: %v", path, err)
	}
	if r.Program == "" {
		return nil, fmt.Errorf("%s: no \"program\": not the run record a trainer writes", path)
	}
	return &r, nil
}
