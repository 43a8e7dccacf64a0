// Package lines reads text line by line, counting lines so that errors
// can name them. A line may be as long as MaxLine; a longer one is an
// error (*TooLongError), not a reason to read the whole input into memory.
// Lines must be UTF-8 (else *InvalidUTF8Error). The treebank
// readers of package format and the record readers of package pipeline
// share it.
package lines

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxLine is the longest line, in bytes, any reader of grind accepts: 64
// MiB, far above any sentence or tree (the programs set it from
// GRIND_MAX_LINE).
var MaxLine = 64 << 20

// TooLongError is a line longer than MaxLine; its message leaves placing
// it to the caller, who knows the file.
type TooLongError struct {
	Line  int // 1-based
	Limit int
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("line longer than %s, the limit (GRIND_MAX_LINE raises it)", Size(e.Limit))
}

// InvalidUTF8Error is a line that is not UTF-8 (a Latin-1 file, say).
type InvalidUTF8Error struct {
	Line   int // 1-based
	Offset int // of the first bad byte in the line, 0-based
	Byte   byte
}

func (e *InvalidUTF8Error) Error() string {
	return fmt.Sprintf("invalid UTF-8 (byte 0x%02x at column %d): grind reads UTF-8 only; convert the file (iconv -f latin1 -t utf-8), or give the treebank readers --encoding latin1", e.Byte, e.Offset+1)
}

// ErrorLine is the line of a *TooLongError or *InvalidUTF8Error in err.
func ErrorLine(err error) (int, bool) {
	var long *TooLongError
	var bad *InvalidUTF8Error
	switch {
	case errors.As(err, &long):
		return long.Line, true
	case errors.As(err, &bad):
		return bad.Line, true
	}
	return 0, false
}

// CheckUTF8 returns an *InvalidUTF8Error for line n unless b is UTF-8.
func CheckUTF8(b []byte, n int) error {
	if utf8.Valid(b) {
		return nil
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return &InvalidUTF8Error{Line: n, Offset: i, Byte: b[i]}
		}
		i += size
	}
	return nil
}

// Size writes a number of bytes for people: 64 MiB, 1000 bytes.
func Size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Reader reads lines without their endings (\n or \r\n).
type Reader struct {
	r    *bufio.Reader
	n    int
	off  int64  // bytes read through the current line's ending
	text []byte // the current line: in bufio's buffer or in buf
	buf  []byte // lines longer than bufio's buffer are put together here
	err  error  // a read error, sticky; io.EOF is not one
}

// New reads lines from r.
func New(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 1<<16)}
}

// Reset reads lines from r from its first line on, keeping the buffers
// (a reader of many inputs, or of many parts of one, allocates them once).
func (l *Reader) Reset(r io.Reader) {
	l.r.Reset(r)
	*l = Reader{r: l.r, buf: l.buf[:0]}
}

// Scan advances to the next line and says whether there is one; it is
// false at the end of the input or after a read error (see Err).
func (l *Reader) Scan() bool {
	if l.err != nil {
		return false
	}
	l.text = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.off += int64(len(chunk))
		if len(l.text) == 0 && err != bufio.ErrBufferFull {
			// The whole line is in bufio's buffer: no copy (estep reads
			// its corpus every step of a shell loop). Its capacity ends
			// with it, so an append by the caller cannot write over the
			// input yet unread.
			l.text = chunk[:len(chunk):len(chunk)]
		} else {
			l.text = append(l.text, chunk...)
			l.buf = l.text
		}
		if len(l.text) > MaxLine+2 { // room for the \r\n, which is no part of the line
			l.err = &TooLongError{Line: l.n + 1, Limit: MaxLine}
			l.text = nil
			return false
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
		case io.EOF:
			if len(l.text) == 0 {
				return false
			}
		default:
			l.err = err
			return false
		}
		l.n++
		end := len(l.text) // bytes.TrimRight(l.text, "\r\n"), without its cutset set up per line
		for end > 0 && (l.text[end-1] == '\n' || l.text[end-1] == '\r') {
			end--
		}
		l.text = l.text[:end]
		if err := CheckUTF8(l.text, l.n); err != nil {
			l.err, l.text = err, nil
			return false
		}
		return true
	}
}

// Bytes is the current line; the next Scan overwrites it.
func (l *Reader) Bytes() []byte { return l.text }

// Line is the 1-based number of the current line (of the last one read
// after the end).
func (l *Reader) Line() int { return l.n }

// Offset is how many bytes of the input have been read through the end
// of the current line (its ending included): where the next line starts.
func (l *Reader) Offset() int64 { return l.off }

// StartAt says the input begins at byte offset and line number line + 1
// of a larger one (a reader that seeked there), for Offset and Line.
func (l *Reader) StartAt(offset int64, line int) { l.off, l.n = offset, line }

// Err is the read error that stopped Scan, if any: a failed read, a
// *TooLongError or an *InvalidUTF8Error.
func (l *Reader) Err() error { return l.err }
