package rundir

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/internal/buildinfo"
)

// A record reads back as it was written; an older grind's record (its
// inputs' hashes alone) reads as one whose inputs have no names; invalid
// JSON is an error at its line, in either shape.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	rec := &Record{Program: "train-em", Grind: &buildinfo.Build{Version: "devel", Commit: "0123456789abcdef"}, Go: "go1.26.0 linux/amd64",
		Host: "h", Dir: "/x", Started: "2026-01-01T00:00:00Z", Resumed: []Resumption{{Started: "2026-01-02T00:00:00Z", Host: "g"}},
		Argv: []string{"train-em", "--run-dir", "r", "c.jsonl"}, Args: []string{"c.jsonl"}, Flags: map[string]string{"tol": "1e-05"},
		Inputs: []Input{{File: "c.jsonl", SHA256: "aa"}, {File: "m.jsonl", Flag: "--model", SHA256: "bb"}}}
	if err := WriteRecord(dir, rec); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRecord(dir)
	if err != nil || !reflect.DeepEqual(got, rec) || got.Old() {
		t.Fatalf("read back %+v, %v; wrote %+v", got, err, rec)
	}

	for _, tc := range []struct{ json, err string }{
		{`{"program":"train-em","argv":["train-em"],"args":["c.jsonl"],"flags":{"tol":"0"},"inputs":["aa","bb"]}`, ""},
		{"{\"program\":\"train-em\",\n\"inputs\":[\"aa\",\n3]}", "run.json:3: invalid JSON: field \"inputs\": expected string, found a number"},
		{"{\"program\":\"train-em\",\n\"inputs\":[{\"file\":\"c\"},\n{\"file\":3}]}", "run.json:3: invalid JSON: field \"inputs.file\": expected string, found a number"},
		{"{\"program\":\"train-em\",\n\"inputs\":[", "run.json:2: invalid JSON"},
		{`{"argv":[]}`, `no "program"`},
	} {
		if err := os.WriteFile(filepath.Join(dir, RecordFile), []byte(tc.json), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadRecord(dir)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.json, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.json, err)
		case tc.err == "" && (!got.Old() || !reflect.DeepEqual(got.Inputs, []Input{{SHA256: "aa"}, {SHA256: "bb"}}) || got.Flags["tol"] != "0"):
			t.Errorf("%s: read as %+v", tc.json, got)
		}
	}
	if _, err := ReadRecord(t.TempDir()); err != ErrNoRecord {
		t.Errorf("a folder without run.json: %v", err)
	}
}
