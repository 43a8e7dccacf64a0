package pipeline

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync/atomic"

	"github.com/grind-nlp/grind/internal/lines"
)

// A corpus in a plain file can be read by several cores at once: cut at
// line starts, its parts parsed side by side and their results joined in
// file order (estep reads its corpus on every step of a shell loop).
// Errors, line numbers and skipped records come out as a reading in
// sequence would give them.

// FileParts are the parts of one file cut at line starts, in file order.
type FileParts struct {
	Name string
	f    *os.File
	cuts []int64 // part k is the bytes [cuts[k], cuts[k+1])
}

// Len is the number of parts.
func (p *FileParts) Len() int { return len(p.cuts) - 1 }

// Size is the number of bytes of part k.
func (p *FileParts) Size(k int) int64 { return p.cuts[k+1] - p.cuts[k] }

// Close closes the file.
func (p *FileParts) Close() error { return p.f.Close() }

// SplitFile cuts src's input into about n parts at line starts, none
// much under minPart bytes. ok is false when src is not one regular file
// holding plain text (stdin, several inputs, gzip or zstd, Latin-1) or
// would give a single part: the caller reads src in sequence then, which
// also reports any error opening it.
func (src Source) SplitFile(n int, minPart int64) (parts *FileParts, ok bool) {
	if len(src.Names) != 1 || src.Names[0] == "" || src.Names[0] == "-" || src.Latin1 || n < 2 {
		return nil, false
	}
	name := src.Names[0]
	f, err := os.Open(name)
	if err != nil {
		return nil, false
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, false
	}
	size := info.Size()
	var head [4]byte
	k, _ := f.ReadAt(head[:], 0)
	start := int64(0)
	switch {
	case bytes.HasPrefix(head[:k], gzipMagic), bytes.HasPrefix(head[:k], zstdMagic):
		f.Close()
		return nil, false
	case bytes.HasPrefix(head[:k], utf8BOM):
		start = int64(len(utf8BOM)) // as skipBOM
	}
	if minPart < 1 {
		minPart = 1
	}
	n = int(min(int64(n), (size-start)/minPart))
	cuts := []int64{start}
	for k := 1; k < n; k++ {
		at, ok := lineStart(f, start+(size-start)*int64(k)/int64(n), size)
		if !ok {
			break
		}
		if at > cuts[len(cuts)-1] && at < size {
			cuts = append(cuts, at)
		}
	}
	cuts = append(cuts, size)
	if len(cuts) < 3 {
		f.Close()
		return nil, false
	}
	return &FileParts{Name: name, f: f, cuts: cuts}, true
}

// lineStart is the first line start at or after at (just past a '\n'),
// false when there is none before size or the file cannot be read.
func lineStart(f *os.File, at, size int64) (int64, bool) {
	if at <= 0 {
		return 0, true
	}
	var buf [4096]byte
	for pos := at - 1; pos < size; {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), size-pos)], pos)
		if i := bytes.IndexByte(buf[:k], '\n'); i >= 0 {
			return pos + int64(i) + 1, true
		}
		if err != nil && err != io.EOF || k == 0 {
			return 0, false
		}
		pos += int64(k)
	}
	return 0, false
}

// ErrInSequence is the error a record callback of EachRecordReusedInParts
// returns for a record the parts cannot take (one whose meaning depends
// on the records before it): the run ends with it, nothing counted, and
// the caller reads the input again in sequence.
var ErrInSequence = errors.New("read in sequence")

// partRun is what the reading of one part left.
type partRun struct {
	lines int // in the part: all of them, unless err stopped it
	bad   BadRecords
	err   error
}

// EachRecordReusedInParts is EachRecordReused over the parts, read side by
// side on up to workers goroutines (≤ 0: every core), each part with its
// own record value: fn(k, rec, at) sees part k's records in order, while
// other parts' are read on other goroutines, and at's line numbers are
// the part's own. The error and the skipped records (src.Bad) are those of
// a reading in sequence: the first error in file order, its line counted
// from the start of the file. After an error fn may have seen records
// beyond it (later parts are left alone once an earlier one failed, not
// stopped where they are): what it kept of them is to be dropped. A
// callback's ErrInSequence ends the run with it and leaves src.Bad as it
// was.
//
// side, when not nil, is run once, by the first goroutine free, before
// the parts it does not take: other work the caller waits for with the
// parts (estep's model). On a goroutine of its own it would compete with
// the parts' for the cores, and the scheduler lets whichever runs first
// keep its core, so that the parts could wait for it or it for them.
func EachRecordReusedInParts[T any](src Source, parts *FileParts, workers int, side func(), fn func(part int, rec *T, at *Lines) error) error {
	skip := src.Bad != nil && src.Bad.Skip
	runs := make([]partRun, parts.Len())
	var failed atomic.Int64 // the first part that failed, or Len
	failed.Store(int64(parts.Len()))
	var inSequence atomic.Bool
	errStopped := errors.New("an earlier part failed")
	first := 0 // chunk 0 is side, when there is one
	if side != nil {
		first = 1
	}
	readers := make([]*Lines, min(Workers(workers), first+parts.Len())) // a worker's buffers serve all its parts
	ForEachChunk(first+parts.Len(), workers, func(w, k int) {
		if k < first {
			side()
			return
		}
		k -= first
		run := &runs[k]
		if int64(k) > failed.Load() || inSequence.Load() {
			run.err = errStopped
			return
		}
		lo, hi := parts.cuts[k], parts.cuts[k+1]
		part := io.NewSectionReader(parts.f, lo, hi-lo)
		at := readers[w]
		if at == nil {
			at = NewLines(&Input{Name: parts.Name, Reader: part})
			readers[w] = at
		} else {
			at.Reset(part)
		}
		run.bad.Skip = skip
		run.err = eachRecordLines(at, &run.bad, true, nil, func(rec *T, l *Lines) error {
			if int64(k) > failed.Load() || inSequence.Load() {
				return errStopped
			}
			return fn(k, rec, l)
		})
		run.lines = at.Line()
		if errors.Is(run.err, ErrInSequence) {
			inSequence.Store(true)
		}
		if run.err != nil {
			for f := failed.Load(); int64(k) < f && !failed.CompareAndSwap(f, int64(k)); f = failed.Load() {
			}
		}
	})
	if inSequence.Load() {
		return ErrInSequence
	}
	before := 0
	for k := range runs {
		run := &runs[k]
		if src.Bad != nil && run.bad.Count > 0 {
			if src.Bad.Count == 0 {
				src.Bad.First = shiftLines(run.bad.First, before)
			}
			src.Bad.Count += run.bad.Count
		}
		if run.err != nil {
			return shiftLines(run.err, before)
		}
		before += run.lines
	}
	return nil
}

// shiftLines locates an error of a part in the whole file: lines before
// it are added to its line numbers.
func shiftLines(err error, before int) error {
	if err == nil || before == 0 {
		return err
	}
	var le *LineError
	if errors.As(err, &le) {
		le.Line += before
	}
	var long *lines.TooLongError
	if errors.As(err, &long) {
		long.Line += before
	}
	var bad *lines.InvalidUTF8Error
	if errors.As(err, &bad) {
		bad.Line += before
	}
	return err
}
