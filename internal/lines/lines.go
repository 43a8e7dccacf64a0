// Package lines reads text line by line, with no limit on a line's
// length, counting lines so that errors can name them. The treebank
// readers of package format and the record readers of package pipeline
// share it.
package lines

import (
	"bufio"
	"bytes"
	"io"
)

// Reader reads lines without their endings (\n or \r\n).
type Reader struct {
	r    *bufio.Reader
	n    int
	text []byte
	err  error // a read error, sticky; io.EOF is not one
}

// New reads lines from r.
func New(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 1<<16)}
}

// Scan advances to the next line and says whether there is one; it is
// false at the end of the input or after a read error (see Err).
func (l *Reader) Scan() bool {
	if l.err != nil {
		return false
	}
	l.text = l.text[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.text = append(l.text, chunk...)
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
		l.text = bytes.TrimRight(l.text, "\r\n")
		return true
	}
}

// Bytes is the current line; the next Scan overwrites it.
func (l *Reader) Bytes() []byte { return l.text }

// Line is the 1-based number of the current line (of the last one read
// after the end).
func (l *Reader) Line() int { return l.n }

// Err is the read error that stopped Scan, if any.
func (l *Reader) Err() error { return l.err }
