package pipeline

import (
	"bufio"
	"compress/gzip"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/klauspost/compress/zstd"
)

// Output is where a program writes its records. A named regular file is
// written to a temporary file beside it and put in its place on Commit
// (replaceFile: a rename, or on Linux an exchange of names), so a failed
// run leaves nothing half-written; ".gz" and ".zst" names are compressed.
// A symbolic link is followed: its target is replaced, the link stays. A
// FIFO or a device (/dev/null, /dev/stdout) is written through directly,
// as is standard output; neither can be taken back.
type Output struct {
	*bufio.Writer
	name      string // as the user gave it, for messages
	path, tmp string // final and temporary names; tmp is "" when writing directly
	file      *os.File
	closers   []func() error
}

// Create opens the output named path ("" or "-" for stdout).
func Create(path string, stdout io.Writer) (*Output, error) {
	if path == "" || path == "-" {
		return &Output{Writer: bufio.NewWriterSize(stdout, 1<<16)}, nil
	}
	o, err := open(path)
	if err != nil {
		return nil, err
	}
	o.name = path
	var w io.Writer = namedWriter{o.file, path}
	switch {
	case strings.HasSuffix(path, ".gz"):
		zw := gzip.NewWriter(w)
		o.closers = append(o.closers, zw.Close)
		w = zw
	case strings.HasSuffix(path, ".zst"):
		zw, err := zstd.NewWriter(w)
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

// open opens the file an output named path writes to: a temporary file
// beside the final one (the target of a symbolic link), or a FIFO or
// device itself.
func open(path string) (*Output, error) {
	final, err := resolveLinks(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(final)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%s: is a directory, not a file to write", path)
	case err == nil && !fi.Mode().IsRegular():
		// A FIFO, a device or a socket: there is nothing to rename onto.
		f, err := os.OpenFile(final, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &Output{name: path, path: path, file: f}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	f, tmp, err := createTemp(final)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	o := &Output{name: path, path: final, tmp: tmp, file: f}
	if fi != nil {
		// An existing file keeps its permissions; a new one gets what the
		// umask gives 0666, as with any other program's output.
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			o.Abort()
			return nil, err
		}
	}
	return o, nil
}

// resolveLinks follows symbolic links from path to the name a file should
// be written under; a dangling link gives the name it points at.
func resolveLinks(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// createTemp creates a new file beside final, with the permissions the
// umask leaves of 0666, and registers it for removal on SIGINT and SIGTERM.
func createTemp(final string) (*os.File, string, error) {
	handleSignals()
	dir, base := filepath.Split(final)
	var suffix [6]byte
	for range 100 {
		rand.Read(suffix[:])
		tmp := filepath.Join(dir, "."+base+".tmp"+hex.EncodeToString(suffix[:]))
		temps.Lock()
		if temps.closed {
			temps.Unlock()
			return nil, "", &fs.PathError{Op: "create", Path: final, Err: errors.New("interrupted")}
		}
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			temps.live[tmp] = true
		}
		temps.Unlock()
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, tmp, err
	}
	return nil, "", &fs.PathError{Op: "create", Path: final, Err: errors.New("cannot make a temporary file name")}
}

// temps are the temporary files being written, removed by RemoveTemps.
var temps = struct {
	sync.Mutex
	live   map[string]bool
	closed bool // after RemoveTemps: no new ones
}{live: map[string]bool{}}

func removeTemp(tmp string) {
	temps.Lock()
	defer temps.Unlock()
	os.Remove(tmp)
	delete(temps.live, tmp)
}

// RemoveTempsOnSignal makes SIGINT and SIGTERM remove the temporary files
// of outputs being written before the process ends, with the shell's
// codes for death by those signals (130, 143): what a program's main
// asks for. The handler is installed with the first temporary file, not
// before: a program that writes to its standard output only (estep in a
// shell loop) is spared the signal-handling thread's start, about 0.1 ms,
// and ends by the signal itself, which the shell reports with the same
// codes.
func RemoveTempsOnSignal() { onSignal.wanted.Store(true) }

var onSignal struct {
	wanted atomic.Bool
	once   sync.Once
}

// handleSignals installs RemoveTempsOnSignal's handler, once, if asked.
func handleSignals() {
	if !onSignal.wanted.Load() {
		return
	}
	onSignal.once.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
		go func() {
			sig := <-ch
			RemoveTemps()
			if sig == syscall.SIGTERM {
				os.Exit(128 + int(syscall.SIGTERM))
			}
			os.Exit(128 + int(syscall.SIGINT))
		}()
	})
}

// RemoveTemps removes every temporary file still being written: what a
// signal handler calls before the process exits. Outputs it removes can
// no longer be committed, and no new one can be made.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.closed = true
	for tmp := range temps.live {
		os.Remove(tmp)
		delete(temps.live, tmp)
	}
}

// finish flushes and closes everything, leaving a temporary file ready to
// be put in place.
func (o *Output) finish() error {
	err := o.Flush()
	for _, c := range o.closers {
		err = errors.Join(err, c())
	}
	o.closers = nil
	if o.file == nil {
		return err
	}
	if cerr := o.file.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("%s: %w", o.name, unwrapPathError(cerr))
	}
	o.file = nil
	return err
}

// namedWriter names the user's file in write errors, not the temporary
// one.
type namedWriter struct {
	f    *os.File
	name string
}

func (w namedWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = fmt.Errorf("%s: %w", w.name, unwrapPathError(err))
	}
	return n, err
}

// place renames a finished temporary file onto its final name.
func (o *Output) place() error {
	if o.tmp == "" {
		return nil
	}
	temps.Lock()
	defer temps.Unlock()
	if !temps.live[o.tmp] {
		return fmt.Errorf("%s: interrupted", o.name)
	}
	err := replaceFile(o.tmp, o.path)
	if err != nil {
		os.Remove(o.tmp)
		err = fmt.Errorf("%s: %w", o.name, unwrapPathError(err))
	}
	delete(temps.live, o.tmp)
	o.tmp = ""
	return err
}

// unwrapPathError drops the temporary file's name from an error: messages
// name the user's file.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Commit flushes everything and, for a named file, puts it in place.
func (o *Output) Commit() error {
	if err := o.finish(); err != nil {
		o.Abort()
		return err
	}
	return o.place()
}

// Abort throws a named file's partial output away. It is safe to call
// after Commit, so callers can defer it.
func (o *Output) Abort() {
	if o.file != nil {
		o.file.Close()
		o.file = nil
	}
	if o.tmp != "" {
		removeTemp(o.tmp)
		o.tmp = ""
	}
}

// CommitAll commits outputs that belong together: every one is finished
// before any is put in place, and when one cannot be, those already in
// place are removed, so they appear together or not at all.
func CommitAll(outs ...*Output) error {
	for _, o := range outs {
		if err := o.finish(); err != nil {
			for _, o := range outs {
				o.Abort()
			}
			return err
		}
	}
	var placed []string
	for i, o := range outs {
		renamed := o.tmp != ""
		if err := o.place(); err != nil {
			for _, path := range placed {
				os.Remove(path)
			}
			for _, o := range outs[i:] {
				o.Abort()
			}
			return err
		}
		if renamed {
			placed = append(placed, o.path)
		}
	}
	return nil
}

// Reserve opens a named output that another writer fills by name: its
// Name is the file to write (a temporary one beside path, or a FIFO or
// device itself), and Commit puts it in place. Nothing is compressed.
func Reserve(path string) (*Output, error) {
	o, err := open(path)
	if err != nil {
		return nil, err
	}
	o.Writer = bufio.NewWriter(io.Discard)
	return o, nil
}

// Path is the output's name as the user gave it.
func (o *Output) Path() string { return o.name }

// Name is the file an output's bytes go to until Commit.
func (o *Output) Name() string {
	if o.tmp != "" {
		return o.tmp
	}
	return o.path
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

// RemoveStaleTemps removes the temporary files a killed writer of final
// left beside it (SIGKILL gives no time to remove them). Only for a file
// no other process writes at the same time: a run directory under its
// lock.
func RemoveStaleTemps(final string) error {
	dir, base := filepath.Split(final)
	prefix := "." + base + ".tmp"
	entries, err := os.ReadDir(filepath.Clean(dir + "."))
	if err != nil {
		return err
	}
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || len(suffix) != 12 {
			continue
		}
		if _, err := hex.DecodeString(suffix); err != nil {
			continue
		}
		temps.Lock()
		live := temps.live[filepath.Join(dir, e.Name())]
		temps.Unlock()
		if !live {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}
