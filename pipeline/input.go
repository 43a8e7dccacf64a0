// Package pipeline is the plumbing every program shares: opening inputs
// (stdin or files, gzip and zstd recognised by their magic bytes), reading
// records with file and line numbers, writing output atomically, worker
// pools, progress and the convergence tests of the training loops. It knows
// the record types of package format but no model.
package pipeline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Input is one named input stream. Name is the file name, or "<stdin>".
type Input struct {
	Name string
	io.Reader
	close func() error
}

// Close releases the file and any decompressor.
func (in *Input) Close() error {
	if in.close == nil {
		return nil
	}
	return in.close()
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// StdinName is how errors name standard input.
const StdinName = "<stdin>"

// Open opens a file by name ("-" or "" is stdin), decompressing gzip or
// zstd when its first bytes say so. A pipe given by name may be opened
// again (see pipes).
func Open(name string, stdin io.Reader) (*Input, error) {
	if name == "" || name == "-" {
		return decompress(StdinName, stdin, nil)
	}
	if info, err := os.Stat(name); err == nil && !info.Mode().IsRegular() && !info.IsDir() {
		return pipes.open(name, info)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	in, err := decompress(name, f, f.Close)
	if err != nil {
		f.Close()
		return nil, err
	}
	return in, nil
}

// pipes are the inputs opened by name that are no regular file: a FIFO,
// the /dev/fd/N of a shell's <(…), /dev/stdin. Such a stream can be read
// only once, yet a program opens a named input twice — once for its
// header (which family, which model), then to read it through — so the
// file stays open and the bytes read from it are kept: the next Open of
// the same stream (known by the file itself, not its name, which a later
// pipe may reuse) reads them again and goes on from where the last
// reading stopped. They are kept up to pipeKept bytes; a stream read past
// that cannot be read from its start again, and an Open after that says
// so.
var pipes pipeTable

const pipeKept = 1 << 20

type pipeTable struct {
	sync.Mutex
	streams []*pipe
}

type pipe struct {
	info  os.FileInfo
	f     *os.File
	kept  []byte // every byte read from f so far, while under pipeKept
	spent bool   // read past pipeKept: its start is gone
}

// open is a reading from its start of the stream name names (info).
func (t *pipeTable) open(name string, info os.FileInfo) (*Input, error) {
	if p := t.find(info); p != nil {
		return p.open(name)
	}
	f, err := os.Open(name) // a FIFO's waits for its writer: not under the lock
	if err != nil {
		return nil, err
	}
	t.Lock()
	p := &pipe{info: info, f: f}
	t.streams = append(t.streams, p)
	t.Unlock()
	return p.open(name)
}

// find is the stream info names, nil when it has not been opened.
func (t *pipeTable) find(info os.FileInfo) *pipe {
	t.Lock()
	defer t.Unlock()
	for _, p := range t.streams {
		if os.SameFile(p.info, info) {
			return p
		}
	}
	return nil
}

// open is a reading of the pipe from its start: the bytes kept, then the
// rest of the stream. Closing it leaves the file open for the next.
func (p *pipe) open(name string) (*Input, error) {
	if p.spent {
		return nil, fmt.Errorf("%s: a pipe, read through once already, cannot be read again from its start: write it to a file", name)
	}
	return decompress(name, io.MultiReader(bytes.NewReader(p.kept[:len(p.kept):len(p.kept)]), p), nil)
}

// Read reads the stream on, keeping what it reads while it can.
func (p *pipe) Read(b []byte) (int, error) {
	n, err := p.f.Read(b)
	if !p.spent && len(p.kept)+n <= pipeKept {
		p.kept = append(p.kept, b[:n]...)
	} else {
		p.spent, p.kept = true, nil
	}
	return n, err
}

func decompress(name string, r io.Reader, closeFile func() error) (*Input, error) {
	// A small buffer to look at the first bytes: the readers downstream
	// have their own, and bufio passes their large reads straight through.
	br := bufio.NewReaderSize(r, 64)
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(bufio.NewReaderSize(br, 1<<16))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return &Input{Name: name, Reader: skipBOM(zr), close: closeAll(zr.Close, closeFile)}, nil
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(bufio.NewReaderSize(br, 1<<16))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return &Input{Name: name, Reader: skipBOM(zr), close: closeAll(func() error { zr.Close(); return nil }, closeFile)}, nil
	}
	return &Input{Name: name, Reader: skipBOM(br), close: closeFile}, nil
}

// utf8BOM is the byte-order mark some editors put at the start of UTF-8
// files. It is no part of the text: every input skips it.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// skipBOM drops a byte-order mark at the start of r.
func skipBOM(r io.Reader) *bufio.Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	if head, _ := br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	return br
}

func closeAll(fns ...func() error) func() error {
	return func() error {
		var first error
		for _, fn := range fns {
			if fn == nil {
				continue
			}
			if err := fn(); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
}

// EachInput opens the named files in turn (stdin when names is empty) and
// calls fn on each; it stops at the first error.
func EachInput(names []string, stdin io.Reader, fn func(*Input) error) error {
	if len(names) == 0 {
		names = []string{"-"}
	}
	for _, name := range names {
		in, err := Open(name, stdin)
		if err != nil {
			return err
		}
		err = fn(in)
		if cerr := in.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("%s: %w", in.Name, cerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
