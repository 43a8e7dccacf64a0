package pipeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/lines"
)

// LineError places an error in an input: "file:line: problem".
type LineError struct {
	File string
	Line int
	Err  error
}

func (e *LineError) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// Lines reads an input line by line, with no limit on line length, and
// counts lines so that errors can name them.
type Lines struct {
	*lines.Reader
	name string
}

// NewLines reads lines from in.
func NewLines(in *Input) *Lines {
	return &Lines{Reader: lines.New(in), name: in.Name}
}

// Name is the input's name.
func (l *Lines) Name() string { return l.name }

// Err is the read error that stopped Scan, located after the last line.
func (l *Lines) Err() error {
	if err := l.Reader.Err(); err != nil {
		if n, ok := lines.ErrorLine(err); ok {
			return &LineError{File: l.name, Line: n, Err: err}
		}
		return &LineError{File: l.name, Line: l.Line() + 1, Err: fmt.Errorf("read error: %w", err)}
	}
	return nil
}

// Errorf makes an error located at the current line.
func (l *Lines) Errorf(format string, args ...any) error {
	return &LineError{File: l.name, Line: l.Line(), Err: fmt.Errorf(format, args...)}
}

// BadRecords decides what happens to a bad record: with Skip false it is
// the error of the run; with Skip true it is counted and the run goes on.
type BadRecords struct {
	Skip  bool
	Count int
	First error
}

// Handle returns err unless bad records are being skipped.
func (b *BadRecords) Handle(err error) error {
	if err == nil || !b.Skip {
		return err
	}
	var le *LineError
	if !errors.As(err, &le) {
		return err // not a record's fault (e.g. an unreadable file)
	}
	if b.Count == 0 {
		b.First = err
	}
	b.Count++
	return nil
}

// Report tells people on w how many records were skipped.
func (b *BadRecords) Report(w io.Writer, program string) {
	if b.Count > 0 {
		fmt.Fprintf(w, "%s: skipped %d bad records (first: %v)\n", program, b.Count, b.First)
	}
}

// Source is where a program's records come from: the named files in
// order, or Stdin when there are none ("-" names stdin too). Bad says what
// to do with bad records; nil means stop at the first.
type Source struct {
	Names []string
	Stdin io.Reader
	Bad   *BadRecords
	// Latin1 says the inputs are ISO-8859-1, converted to UTF-8 as they
	// are read (the treebank readers' --encoding latin1).
	Latin1 bool
}

// EachInput opens the source's inputs in turn, as EachInput does,
// converting them from Latin-1 when the source says so.
func (src Source) EachInput(fn func(*Input) error) error {
	return EachInput(src.Names, src.Stdin, func(in *Input) error {
		if src.Latin1 {
			in = &Input{Name: in.Name, Reader: bufio.NewReaderSize(&latin1Reader{r: in.Reader}, 1<<16), close: in.close}
		}
		return fn(in)
	})
}

// latin1Reader turns ISO-8859-1 into UTF-8: each byte is the code point
// of its value, two bytes in UTF-8 from 0x80 up.
type latin1Reader struct {
	r         io.Reader
	buf, conv []byte
	out       []byte // converted bytes not yet returned, in conv
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	for len(l.out) == 0 {
		if l.buf == nil {
			l.buf, l.conv = make([]byte, 32<<10), make([]byte, 0, 64<<10)
		}
		n, err := l.r.Read(l.buf)
		l.out = l.conv[:0]
		for _, b := range l.buf[:n] {
			if b < 0x80 {
				l.out = append(l.out, b)
			} else {
				l.out = append(l.out, 0xc0|b>>6, 0x80|b&0x3f)
			}
		}
		if n == 0 || err != nil {
			if len(l.out) > 0 {
				break
			}
			return 0, err
		}
	}
	n := copy(p, l.out)
	l.out = l.out[n:]
	return n, nil
}

// WriteRecord writes v as one JSON line.
func WriteRecord(w io.Writer, v any) error {
	b, err := format.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// recordError marks an error as the fault of the record being processed.
type recordError struct{ error }

// BadRecord marks err as the fault of the current record: EachRecord
// locates it at the record's line and --skip-bad may skip it. Other errors
// from a record callback (a failed write, say) end the run unchanged.
func BadRecord(err error) error { return recordError{err} }

// EachRecord decodes every non-blank line of the named inputs as a T and
// calls fn with it. Decoding errors, and errors fn marks with BadRecord,
// are located at the line. Each line gets a fresh value, so fn may keep it.
func EachRecord[T any](src Source, fn func(rec *T, at *Lines) error) error {
	return EachInput(src.Names, src.Stdin, func(in *Input) error {
		return EachRecordIn(in, src.Bad, fn)
	})
}

// EachRecordIn is EachRecord over one input that is already open, for
// programs that look at an input's first bytes before deciding how to read
// it. bad may be nil (stop at the first bad record).
func EachRecordIn[T any](in *Input, bad *BadRecords, fn func(rec *T, at *Lines) error) error {
	return eachRecordIn(in, bad, false, nil, fn)
}

// EachRecordReused is EachRecord with one value, cleared, for every line:
// fn must not keep rec or what it points into. For the readers of models
// and counts, which take each event's numbers and let it go, and of
// corpora into compact form. A record with a ResetForReuse method clears
// itself with it (keeping its arrays for the next line); others are set
// to their zero value.
func EachRecordReused[T any](src Source, fn func(rec *T, at *Lines) error) error {
	return EachInput(src.Names, src.Stdin, func(in *Input) error {
		return eachRecordIn(in, src.Bad, true, nil, fn)
	})
}

// EachRecordReusedIn is EachRecordReused over one input that is open.
func EachRecordReusedIn[T any](in *Input, bad *BadRecords, fn func(rec *T, at *Lines) error) error {
	return eachRecordIn(in, bad, true, nil, fn)
}

// EachRecordReusedOr is EachRecordReusedIn with a short road: short sees
// every non-blank line first and says whether it took it; the lines it
// leaves are decoded and go to fn. For the readers of models and counts,
// whose plain lines need no record.
func EachRecordReusedOr[T any](in *Input, bad *BadRecords, short func(line []byte, at *Lines) bool, fn func(rec *T, at *Lines) error) error {
	return eachRecordIn(in, bad, true, short, fn)
}

func eachRecordIn[T any](in *Input, bad *BadRecords, reuse bool, short func([]byte, *Lines) bool, fn func(rec *T, at *Lines) error) error {
	return eachRecordLines(NewLines(in), bad, reuse, short, fn)
}

// eachRecordLines is eachRecordIn over lines already set up.
func eachRecordLines[T any](lines *Lines, bad *BadRecords, reuse bool, short func([]byte, *Lines) bool, fn func(rec *T, at *Lines) error) error {
	if bad == nil {
		bad = &BadRecords{}
	}
	var zero T
	rec := new(T)
	for lines.Scan() {
		text := bytes.TrimSpace(lines.Bytes())
		if len(text) == 0 || short != nil && short(text, lines) {
			continue
		}
		if reuse {
			if r, ok := any(rec).(interface{ ResetForReuse() }); ok {
				r.ResetForReuse()
			} else {
				*rec = zero
			}
		} else {
			rec = new(T)
		}
		if err := format.Unmarshal(text, rec); err != nil {
			if err := bad.Handle(lines.Errorf("invalid JSON: %v", err)); err != nil {
				return err
			}
			continue
		}
		if err := fn(rec, lines); err != nil {
			var re recordError
			if errors.As(err, &re) {
				err = &LineError{File: lines.Name(), Line: lines.Line(), Err: re.error}
			}
			if err := bad.Handle(err); err != nil {
				return err
			}
		}
	}
	return lines.Err()
}

// EachSentence reads sentence records, validating each.
func EachSentence(src Source, fn func(s *format.Sentence) error) error {
	return EachRecord(src, func(s *format.Sentence, at *Lines) error {
		if err := s.Validate(); err != nil {
			return BadRecord(err)
		}
		return fn(s)
	})
}

// Locate turns a format.SyntaxError from a reader of the named input into
// a LineError ("file:line: problem"); other errors are returned as they are.
func Locate(name string, err error) error {
	var se *format.SyntaxError
	if errors.As(err, &se) {
		return &LineError{File: name, Line: se.Line, Err: se.Err}
	}
	return err
}

// ReadSentences reads every sentence of src into memory, for the stages
// that need a whole corpus (training loops, the E-step). An input without
// a single sentence is an error.
func ReadSentences(src Source) ([]*format.Sentence, error) { return ReadSentencesChecked(src, nil) }

// EachWordSentence is EachSentence for the readers that read only words:
// a sentence of words needs no tags (format.Sentence.ValidateWords).
func EachWordSentence(src Source, fn func(s *format.Sentence) error) error {
	return EachRecord(src, func(s *format.Sentence, at *Lines) error {
		if err := s.ValidateWords(); err != nil {
			return BadRecord(err)
		}
		return fn(s)
	})
}

// ReadWordSentences is ReadSentencesChecked for the readers that read
// only words (EachWordSentence).
func ReadWordSentences(src Source, check func(*format.Sentence) error) ([]*format.Sentence, error) {
	return readChecked(src, EachWordSentence, check)
}

// ReadSentencesChecked is ReadSentences with every sentence also checked
// by check (nil: none), whose error is the sentence's: named by file and
// line, or skipped with --skip-bad.
func ReadSentencesChecked(src Source, check func(*format.Sentence) error) ([]*format.Sentence, error) {
	return readChecked(src, EachSentence, check)
}

func readChecked(src Source, each func(Source, func(*format.Sentence) error) error, check func(*format.Sentence) error) ([]*format.Sentence, error) {
	var sents []*format.Sentence
	err := each(src, func(s *format.Sentence) error {
		if check != nil {
			if err := check(s); err != nil {
				return BadRecord(err)
			}
		}
		sents = append(sents, s)
		return nil
	})
	if err == nil && len(sents) == 0 {
		err = fmt.Errorf("%s: no sentences", DescribeInputs(src.Names))
	}
	return sents, err
}

// DescribeInputs names a list of inputs in an error message.
func DescribeInputs(names []string) string {
	switch len(names) {
	case 0:
		return StdinName
	case 1:
		if names[0] == "-" {
			return StdinName
		}
		return names[0]
	}
	return fmt.Sprintf("%s and %d more inputs", names[0], len(names)-1)
}
