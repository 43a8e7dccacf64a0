package dmvsample

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/stages/memory"
)

// chain is a model of one tag whose every head takes one right child
// and then stops with probability stop: sentences are chains, of
// 1/stop tags on average.
func chain(t *testing.T, stop string) string {
	t.Helper()
	m := `{"ev":"header","family":"dmv","unit":"p","events":11}
{"ev":"root","arg":"A","p":1}
{"ev":"stop","head":"A","dir":"left","adj":true,"p":1}
{"ev":"cont","head":"A","dir":"left","adj":true,"p":0}
{"ev":"stop","head":"A","dir":"left","adj":false,"p":1}
{"ev":"cont","head":"A","dir":"left","adj":false,"p":0}
{"ev":"stop","head":"A","dir":"right","adj":true,"p":STOP}
{"ev":"cont","head":"A","dir":"right","adj":true,"p":CONT}
{"ev":"stop","head":"A","dir":"right","adj":false,"p":1}
{"ev":"cont","head":"A","dir":"right","adj":false,"p":0}
{"ev":"child","head":"A","dir":"left","arg":"A","p":1}
{"ev":"child","head":"A","dir":"right","arg":"A","p":1}
`
	cont := map[string]string{"0.00001": "0.99999", "1": "0"}[stop]
	path := filepath.Join(t.TempDir(), "chain.jsonl")
	if err := os.WriteFile(path, []byte(strings.NewReplacer("STOP", stop, "CONT", cont).Replace(m)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A draw allocates, in all, less than MemoryBytes says it holds: a
// sentence of some hundred thousand tags drawn whole, as one chain (a
// tree as deep as it is long, which the recursion it had overflowed Go's
// stack with, at six million), and written.
func TestSampleMemory(t *testing.T) {
	model := chain(t, "0.00001")
	var w lastRecord
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := Run(&w, Options{Model: model, N: 1, Seed: 1, MinLen: 20000, MaxLen: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	var s struct{ Tags []string }
	if err := json.Unmarshal(w.last, &s); err != nil {
		t.Fatal(err)
	}
	n := len(s.Tags)
	alloc := int64(after.TotalAlloc - before.TotalAlloc)
	t.Logf("%d tags: %d bytes allocated, %.0f a tag", n, alloc, float64(alloc)/float64(n))
	if alloc > MemoryBytes(n, 1) {
		t.Errorf("%d tags: allocated %d bytes, estimated %d", n, alloc, MemoryBytes(n, 1))
	}
}

// lastRecord keeps the last record written.
type lastRecord struct{ last []byte }

func (c *lastRecord) Write(p []byte) (int, error) {
	c.last = append(c.last[:0], p...)
	return len(p), nil
}

// A --max-len over the limit is refused before any draw, naming it.
func TestMaxLenOverLimit(t *testing.T) {
	err := Run(io.Discard, Options{Model: chain(t, "1"), N: 1, MaxLen: 1 << 30, MaxMemory: 1 << 30})
	var big *memory.Error
	if !errors.As(err, &big) || !strings.HasPrefix(err.Error(), "drawing sentences of up to 1073741824 tags (--max-len) needs about") {
		t.Fatalf("got %v", err)
	}
	if err := Run(io.Discard, Options{Model: chain(t, "1"), N: 1, MaxLen: 1000, MaxMemory: 1 << 30}); err != nil {
		t.Fatal(err)
	}
}
