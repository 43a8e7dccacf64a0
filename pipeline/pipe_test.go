package pipeline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// namedPipe is a pipe with text written into it, named as a shell's <(…)
// names one: /dev/fd/N.
func namedPipe(t *testing.T, text []byte) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	go func() {
		w.Write(text)
		w.Close()
	}()
	return fmt.Sprintf("/dev/fd/%d", r.Fd())
}

// A pipe given by name reads from its start at every Open while what was
// read of it fits what is kept: its header first, then the whole of it,
// as programs read a named input. Read past that, it cannot be read from
// its start again, and Open says so.
func TestPipeOpenedAgain(t *testing.T) {
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skip("no /dev/fd here")
	}
	var text bytes.Buffer
	for i := range 3000 {
		fmt.Fprintf(&text, "{\"id\":\"s%d\",\"tags\":[\"A\",\"B\"]}\n", i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text.Bytes())
	zw.Close()
	for _, c := range []struct {
		what string
		in   []byte
	}{{"plain", text.Bytes()}, {"gzip", gz.Bytes()}} {
		name := namedPipe(t, c.in)
		first, err := Open(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(first).ReadString('\n')
		first.Close()
		if want, _, _ := strings.Cut(text.String(), "\n"); line != want+"\n" {
			t.Fatalf("%s: the first line %q, want %q", c.what, line, want)
		}
		for range 2 { // twice: the second reading keeps what it reads as well
			in, err := Open(name, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			got, err := io.ReadAll(in)
			in.Close()
			if err != nil || !bytes.Equal(got, text.Bytes()) {
				t.Fatalf("%s: read again, %d bytes (%v), want %d", c.what, len(got), err, text.Len())
			}
		}
	}
	big := bytes.Repeat([]byte("{\"tags\":[\"A\"]}\n"), pipeKept/8)
	name := namedPipe(t, big)
	in, err := Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(in); len(got) != len(big) {
		t.Fatalf("read %d bytes of %d", len(got), len(big))
	}
	in.Close()
	if _, err := Open(name, nil); err == nil || !strings.Contains(err.Error(), "cannot be read again") {
		t.Errorf("a pipe read past what is kept opened again: %v", err)
	}
}

// A pipe is known by the stream, not the name: a new pipe under the name
// of a closed one (the same /dev/fd/N) is read as itself.
func TestPipeNameReused(t *testing.T) {
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skip("no /dev/fd here")
	}
	names := map[string]bool{}
	for i := range 3 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("{\"id\":\"pipe %d\"}\n", i)
		go func() {
			w.Write([]byte(text))
			w.Close()
		}()
		name := fmt.Sprintf("/dev/fd/%d", r.Fd())
		names[name] = true
		in, err := Open(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(in)
		in.Close()
		r.Close() // its number is free for the next pipe
		if string(got) != text {
			t.Fatalf("pipe %d under %s read %q", i, name, got)
		}
	}
	t.Logf("names: %v", names)
}
