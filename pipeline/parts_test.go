package pipeline

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/lines"
)

// Parts cover the file from its first byte (after a byte-order mark) to
// its last, each starting at a line start; inputs that are not one plain
// file are left to the reader in sequence.
func TestSplitFileCutsAtLineStarts(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", i%37))
		if i%11 == 0 {
			b.WriteString("\r\n")
		}
	}
	b.WriteString("no final newline")
	text := b.String()
	for _, bom := range []bool{false, true} {
		data := text
		if bom {
			data = string(utf8BOM) + text
		}
		path := filepath.Join(dir, fmt.Sprintf("c%v.jsonl", bom))
		os.WriteFile(path, []byte(data), 0o644)
		for _, n := range []int{2, 3, 7, 64, 1000} {
			parts, ok := Source{Names: []string{path}}.SplitFile(n, 1)
			if !ok {
				t.Fatalf("%d parts: not cut", n)
			}
			if parts.Len() < 2 || parts.Len() > n {
				t.Errorf("%d parts asked, %d made", n, parts.Len())
			}
			if start := parts.cuts[0]; bom != (start == 3) || !bom && start != 0 {
				t.Errorf("bom %v: first part starts at %d", bom, start)
			}
			for k, at := range parts.cuts {
				switch {
				case k > 0 && at <= parts.cuts[k-1]:
					t.Errorf("%d parts: cuts %v not increasing", n, parts.cuts)
				case k > 0 && k < len(parts.cuts)-1 && data[at-1] != '\n':
					t.Errorf("%d parts: cut %d at %d, not a line start", n, k, at)
				}
			}
			if last := parts.cuts[len(parts.cuts)-1]; last != int64(len(data)) {
				t.Errorf("%d parts: last part ends at %d of %d", n, last, len(data))
			}
			parts.Close()
		}
	}
	plain := filepath.Join(dir, "cfalse.jsonl")
	if _, ok := (Source{Names: []string{plain}}).SplitFile(4, int64(len(text))); ok {
		t.Error("a file smaller than two parts was cut")
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	zpath := filepath.Join(dir, "c.jsonl.gz")
	os.WriteFile(zpath, gz.Bytes(), 0o644)
	for what, src := range map[string]Source{
		"stdin":    {Stdin: strings.NewReader(text)},
		"-":        {Names: []string{"-"}, Stdin: strings.NewReader(text)},
		"gzip":     {Names: []string{zpath}},
		"latin1":   {Names: []string{plain}, Latin1: true},
		"two":      {Names: []string{plain, plain}},
		"missing":  {Names: []string{filepath.Join(dir, "none")}},
		"dir":      {Names: []string{dir}},
		"one part": {Names: []string{plain}},
	} {
		n := 4
		if what == "one part" {
			n = 1
		}
		if parts, ok := src.SplitFile(n, 1); ok {
			parts.Close()
			t.Errorf("%s: cut", what)
		}
	}
}

// readAll is what a reader of sentences sees: their ids in order, the
// error and the skipped records.
type readAll struct {
	ids   []string
	err   string
	line  int // of an error of package lines, as it holds it
	count int
	first string
}

func readInSequence(path string, skip bool) readAll {
	var r readAll
	bad := &BadRecords{Skip: skip}
	err := EachRecordReused(Source{Names: []string{path}, Bad: bad}, func(s *format.Sentence, at *Lines) error {
		if err := s.Validate(); err != nil {
			return BadRecord(err)
		}
		r.ids = append(r.ids, s.ID)
		return nil
	})
	return r.finish(err, bad)
}

func readInParts(t *testing.T, path string, skip bool, n int) readAll {
	parts, ok := Source{Names: []string{path}}.SplitFile(n, 1)
	if !ok {
		t.Fatalf("%s: not cut in %d", path, n)
	}
	defer parts.Close()
	ids := make([][]string, parts.Len())
	var mu sync.Mutex // only to let the race detector see parts are apart
	bad := &BadRecords{Skip: skip}
	err := EachRecordReusedInParts(Source{Names: []string{path}, Bad: bad}, parts, 3, nil, func(k int, s *format.Sentence, at *Lines) error {
		if err := s.Validate(); err != nil {
			return BadRecord(err)
		}
		mu.Lock()
		ids[k] = append(ids[k], s.ID)
		mu.Unlock()
		return nil
	})
	var r readAll
	for _, part := range ids {
		r.ids = append(r.ids, part...)
	}
	return r.finish(err, bad)
}

func (r readAll) finish(err error, bad *BadRecords) readAll {
	if err != nil {
		r.err = err.Error()
		r.line, _ = lines.ErrorLine(err)
		r.ids = nil // what a reader keeps of a failed run is no one's
	}
	r.count = bad.Count
	if bad.First != nil {
		r.first = bad.First.Error()
	}
	return r
}

// The parts read side by side give what one reading in sequence gives:
// the records in order, the first error in file order at its line in the
// file, the skipped records counted and the first of them named.
func TestEachRecordInPartsReadsAsInSequence(t *testing.T) {
	dir := t.TempDir()
	good := func(i int) string { return fmt.Sprintf(`{"id":"s%d","tags":["A","B"],"heads":[2,0]}`, i) }
	corpus := func(n int, bad map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if l, ok := bad[i]; ok {
				b.WriteString(l)
			} else {
				b.WriteString(good(i))
			}
			switch i % 9 {
			case 4:
				b.WriteString("\r\n")
			case 7:
				b.WriteString("\n  \n")
			default:
				b.WriteString("\n")
			}
		}
		return b.String()
	}
	cycle := `{"id":"cyc","tags":["A","B"],"heads":[2,1]}`
	cases := map[string]string{
		"good":             corpus(200, nil),
		"no final newline": strings.TrimSuffix(corpus(200, nil), "\n"),
		"bom":              string(utf8BOM) + corpus(50, nil),
		"bad late":         corpus(200, map[int]string{170: "{oops"}),
		"bad early":        corpus(200, map[int]string{3: "{oops"}),
		"bad twice":        corpus(200, map[int]string{60: cycle, 180: "{oops"}),
		"bad everywhere":   corpus(200, map[int]string{1: "[]", 50: cycle, 51: "{", 120: cycle, 199: "x", 200: "y"}),
		"invalid utf-8":    corpus(200, map[int]string{90: cycle, 150: "{\"id\":\"\xff\"}"}),
		"long line":        corpus(200, map[int]string{140: `{"id":"` + strings.Repeat("y", 3000) + `","tags":["A"]}`, 160: cycle}),
		"blank only":       "\n\n  \n\r\n\n",
	}
	defer func(max int) { lines.MaxLine = max }(lines.MaxLine)
	lines.MaxLine = 2000
	for name, text := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		os.WriteFile(path, []byte(text), 0o644)
		for _, skip := range []bool{false, true} {
			want := readInSequence(path, skip)
			for _, n := range []int{2, 3, 5, 17, 1000} {
				if len(text) < n {
					continue
				}
				got := readInParts(t, path, skip, n)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s, skip %v, %d parts:\n got %v\nwant %v", name, skip, n, got, want)
				}
			}
		}
	}
	// The errors are the reader's own, located in the file.
	got := readInParts(t, filepath.Join(dir, "bad-twice"), false, 7)
	if !strings.Contains(got.err, "bad-twice:66: heads: cycle") {
		t.Errorf("bad twice: %s", got.err)
	}
}

// A callback's ErrInSequence ends the reading with it, whatever the
// parts before it did, and leaves the skipped records uncounted.
func TestEachRecordInPartsInSequence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	var b strings.Builder
	for i := range 100 {
		if i%10 == 0 {
			b.WriteString("{oops\n")
		}
		fmt.Fprintf(&b, "{\"id\":\"s%d\",\"tags\":[\"A\"]}\n", i)
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
	parts, _ := Source{Names: []string{path}}.SplitFile(4, 1)
	defer parts.Close()
	bad := &BadRecords{Skip: true}
	err := EachRecordReusedInParts(Source{Names: []string{path}, Bad: bad}, parts, 2, nil, func(k int, s *format.Sentence, at *Lines) error {
		if s.ID == "s95" {
			return ErrInSequence
		}
		return nil
	})
	if !errors.Is(err, ErrInSequence) || bad.Count != 0 || bad.First != nil {
		t.Errorf("err %v, %d skipped", err, bad.Count)
	}
}
