package pipeline

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/grind-nlp/grind/format"
)

// Plain, gzip and zstd inputs read the same, whatever their names say.
func TestOpenRecognisesCompression(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("a line of text\n", 10000)
	var gz, zs bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	ze, _ := zstd.NewWriter(&zs)
	ze.Write([]byte(text))
	ze.Close()
	for name, data := range map[string][]byte{"plain.gz": []byte(text), "gzipped.txt": gz.Bytes(), "zstd": zs.Bytes()} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, data, 0o644)
		in, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(in)
		in.Close()
		if err != nil || string(got) != text {
			t.Errorf("%s: read %d bytes, err %v", name, len(got), err)
		}
	}
	in, err := Open("-", strings.NewReader(text))
	if err != nil || in.Name != StdinName {
		t.Fatalf("stdin: %v %q", err, in.Name)
	}
}

// A named output appears only on Commit, compressed by its suffix; an
// aborted one leaves nothing.
func TestOutputIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl.gz")
	err := WriteFile(path, nil, func(o *Output) error {
		o.WriteString("half")
		return errors.New("failed")
	})
	if err == nil {
		t.Fatal("the failure was lost")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a failed run left %v", entries)
	}
	if err := WriteFile(path, nil, func(o *Output) error { _, err := o.WriteString("whole\n"); return err }); err != nil {
		t.Fatal(err)
	}
	in, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(in)
	if string(got) != "whole\n" {
		t.Fatalf("read back %q", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
}

// Records are located by line; bad ones stop the run or, skipped, are
// counted; a truncated gzip input is a read error at its end.
func TestEachSentenceLocatesErrors(t *testing.T) {
	input := "{\"tags\":[\"A\"]}\n\n{\"tags\":[\"A\",\"B\"],\"heads\":[0,0,1]}\n{oops\n{\"tags\":[\"C\"]}\n"
	var n int
	err := EachSentence(Source{Stdin: strings.NewReader(input)}, func(*format.Sentence) error { n++; return nil })
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 || !strings.Contains(err.Error(), "<stdin>:3: heads: 3 heads for 2 tokens") {
		t.Fatalf("error %v", err)
	}
	bad := &BadRecords{Skip: true}
	n = 0
	if err := EachSentence(Source{Stdin: strings.NewReader(input), Bad: bad}, func(*format.Sentence) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 2 || bad.Count != 2 {
		t.Fatalf("kept %d, skipped %d", n, bad.Count)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat("{\"tags\":[\"A\"]}\n", 5000)))
	zw.Close()
	cut := gz.Bytes()[:gz.Len()/2]
	err = EachSentence(Source{Stdin: bytes.NewReader(cut)}, func(*format.Sentence) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("truncated gzip: %v", err)
	}
}

func TestForEachChunkVisitsEveryChunkOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 7} {
		seen := make([]atomic.Int32, 50)
		ForEachChunk(len(seen), workers, func(_, k int) { seen[k].Add(1) })
		for k := range seen {
			if seen[k].Load() != 1 {
				t.Fatalf("workers %d: chunk %d visited %d times", workers, k, seen[k].Load())
			}
		}
	}
}

// A panic in a worker reaches the caller's goroutine, where a recover at
// the top of the program can report it.
func TestForEachChunkCarriesPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "chunk 7" {
			t.Errorf("recovered %v", r)
		}
	}()
	ForEachChunk(100, 4, func(_, c int) {
		if c == 7 {
			panic("chunk 7")
		}
	})
	t.Error("no panic")
}
