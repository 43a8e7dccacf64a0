package lines

import (
	"strings"
	"testing"
)

// Lines within bufio's buffer come uncopied, longer ones put together;
// endings go, and an append to a line must not write over the next.
func TestReaderLines(t *testing.T) {
	long := strings.Repeat("x", 200000) // longer than bufio's buffer
	want := []string{"a", "", "b", long, "c", "", "d"}
	input := "a\n\r\nb\r\r\n" + long + "\r\nc\n\nd"
	r := New(strings.NewReader(input))
	var got []string
	for r.Scan() {
		line := r.Bytes()
		got = append(got, string(line))
		_ = append(line, "ZZZZ"...) // a caller's append
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %.20q, want %.20q", i+1, got[i], want[i])
		}
	}
	if r.Offset() != int64(len(input)) {
		t.Errorf("offset %d, want %d", r.Offset(), len(input))
	}
}

// A reset reader starts over on its new input: lines counted from 1,
// offsets from 0, no error or line of the old one left.
func TestReaderReset(t *testing.T) {
	long := strings.Repeat("y", 100000)
	r := New(strings.NewReader("a\n" + long + "\nb\xff\n"))
	for r.Scan() {
	}
	if r.Err() == nil {
		t.Fatal("invalid UTF-8 read")
	}
	for _, input := range []string{"c\r\n" + long + "\nd", "e"} {
		r.Reset(strings.NewReader(input))
		var got []string
		for r.Scan() {
			got = append(got, string(r.Bytes()))
		}
		want := strings.Split(strings.ReplaceAll(input, "\r", ""), "\n")
		if r.Err() != nil || strings.Join(got, "|") != strings.Join(want, "|") || r.Line() != len(want) || r.Offset() != int64(len(input)) {
			t.Errorf("after reset: %d lines %.30q, line %d, offset %d, err %v", len(got), got, r.Line(), r.Offset(), r.Err())
		}
	}
}
