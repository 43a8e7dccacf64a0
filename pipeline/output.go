package pipeline

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Output is where a program writes its records. A named file is written to
// a temporary file beside it and renamed on Commit, so a failed run leaves
// nothing half-written; ".gz" and ".zst" names are compressed. Standard
// output is written through a buffer and cannot be taken back.
type Output struct {
	*bufio.Writer
	path, tmp string
	file      *os.File
	closers   []func() error
}

// Create opens the output named path ("" or "-" for stdout).
func Create(path string, stdout io.Writer) (*Output, error) {
	if path == "" || path == "-" {
		return &Output{Writer: bufio.NewWriterSize(stdout, 1<<16)}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	o := &Output{path: path, tmp: f.Name(), file: f}
	// CreateTemp makes the file private (0600); the output is an ordinary file.
	if err := f.Chmod(0o644); err != nil {
		o.Abort()
		return nil, err
	}
	var w io.Writer = f
	switch {
	case strings.HasSuffix(path, ".gz"):
		zw := gzip.NewWriter(f)
		o.closers = append(o.closers, zw.Close)
		w = zw
	case strings.HasSuffix(path, ".zst"):
		zw, err := zstd.NewWriter(f)
		if err != nil {
			o.Abort()
			return nil, err
		}
		o.closers = append(o.closers, zw.Close)
		w = zw
	}
	o.Writer = bufio.NewWriterSize(w, 1<<16)
	return o, nil
}

// Commit flushes everything and, for a named file, puts it in place.
func (o *Output) Commit() error {
	err := o.Flush()
	for _, c := range o.closers {
		err = errors.Join(err, c())
	}
	if o.file == nil {
		return err
	}
	err = errors.Join(err, o.file.Close())
	o.file = nil
	if err == nil {
		err = os.Rename(o.tmp, o.path)
	}
	if err != nil {
		os.Remove(o.tmp)
	}
	return err
}

// Abort throws a named file's partial output away. It is safe to call
// after Commit, so callers can defer it.
func (o *Output) Abort() {
	if o.file != nil {
		o.file.Close()
		o.file = nil
		os.Remove(o.tmp)
	}
}

// WriteFile writes a whole output with fn, committing on success and
// removing the partial file on failure.
func WriteFile(path string, stdout io.Writer, fn func(w *Output) error) error {
	o, err := Create(path, stdout)
	if err != nil {
		return err
	}
	defer o.Abort()
	if err := fn(o); err != nil {
		return err // what is still buffered for stdout is dropped too
	}
	return o.Commit()
}
