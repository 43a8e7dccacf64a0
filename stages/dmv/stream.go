package dmv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// A streamed corpus keeps no sentence: OpenStream reads its files once for
// the tags, the statistics and a sparse index of where sentences start,
// and every pass (Each) seeks to the indexed sentence nearest before its
// first one and reads on. The E-step's chunks are read by their workers
// independently, so a pass visits each sentence in the same order and with
// the same sums as the corpus held in memory: the same model, to the bit.

// maxIndex bounds the sparse index: when it fills, every other entry goes
// and the stride doubles, so its memory does not grow with the corpus (a
// pass re-reads fewer than stride sentences per chunk to find its start).
var maxIndex = 1 << 16

// streamPos is where a sentence record starts: file, byte offset, and
// the number of lines before it (for error messages).
type streamPos struct {
	file   int
	offset int64
	line   int
}

type fileStamp struct {
	size int64
	mod  time.Time
}

type stream struct {
	files  []string
	stamps []fileStamp // as first read: a file that changes is an error
	skip   bool        // bad records are skipped (as the first pass did)
	gold   bool        // pass gold heads on
	golds  int         // sentences with gold heads
	stride int
	index  []streamPos // index[k]: where sentence k·stride starts
}

// StreamOptions configure OpenStream.
type StreamOptions struct {
	// Bad says what to do with bad records (nil: stop at the first);
	// the first pass counts them, later passes skip the same ones.
	Bad  *pipeline.BadRecords
	Gold bool // read gold heads on every pass
	// TagSet chooses the tag set from the corpus's own tags (in the order
	// first seen); nil takes them sorted.
	TagSet func(names []string) (*TagSet, error)
}

// ErrNotSeekable is the error of OpenStream for stdin, a pipe or a
// compressed file: a streamed corpus seeks in its files on every pass.
var ErrNotSeekable = errors.New("a streamed corpus is read again on every pass and needs plain (uncompressed) regular files, not stdin, a pipe or compressed input")

// OpenStream opens the named files as a streamed corpus (see above).
func OpenStream(files []string, opts StreamOptions) (*Corpus, error) {
	stamps, err := checkStreamable(files)
	if err != nil {
		return nil, err
	}
	st := &stream{files: files, stamps: stamps, gold: opts.Gold, stride: 1}
	bad := opts.Bad
	if bad == nil {
		bad = &pipeline.BadRecords{}
	}
	st.skip = bad.Skip
	c := &Corpus{stream: st}
	local := map[string]bool{}
	var names []string
	err = st.read(streamPos{}, bad, func(s *format.Sentence, at streamPos, lines *pipeline.Lines) (bool, error) {
		if c.n%st.stride == 0 {
			st.index = append(st.index, at)
			if len(st.index) > maxIndex {
				for k := 0; 2*k < len(st.index); k++ {
					st.index[k] = st.index[2*k]
				}
				st.index = st.index[:(len(st.index)+1)/2]
				st.stride *= 2
			}
		}
		for _, t := range s.Tags {
			if !local[t] {
				local[t] = true
				names = append(names, t)
			}
		}
		if s.Heads != nil {
			st.golds++
		}
		c.n++
		c.Tokens += len(s.Tags)
		c.MaxLen = max(c.MaxLen, len(s.Tags))
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if c.n == 0 {
		return nil, fmt.Errorf("%s: no sentences", pipeline.DescribeInputs(files))
	}
	if opts.TagSet != nil {
		c.Tags, err = opts.TagSet(names)
	} else {
		c.Tags = SortedTagSet(names)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// CheckStreamable says whether the named files can be a streamed corpus:
// regular files, not compressed (an error wrapping ErrNotSeekable if
// not).
func CheckStreamable(files []string) error {
	_, err := checkStreamable(files)
	return err
}

func checkStreamable(files []string) ([]fileStamp, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: %w", pipeline.StdinName, ErrNotSeekable)
	}
	var stamps []fileStamp
	for _, name := range files {
		if name == "-" || name == "" {
			return nil, fmt.Errorf("%s: %w", pipeline.StdinName, ErrNotSeekable)
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		head := make([]byte, 4)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: %w", name, ErrNotSeekable)
		}
		if bytes.HasPrefix(head[:n], gzipMagic) || bytes.HasPrefix(head[:n], zstdMagic) {
			return nil, fmt.Errorf("%s: compressed: %w", name, ErrNotSeekable)
		}
		stamps = append(stamps, fileStamp{fi.Size(), fi.ModTime()})
	}
	return stamps, nil
}

// changed says which file (if any) is not as the first pass read it.
func (st *stream) changed() error {
	for i, name := range st.files {
		fi, err := os.Stat(name)
		if err != nil {
			return err
		}
		if s := st.stamps[i]; fi.Size() != s.size || !fi.ModTime().Equal(s.mod) {
			return fmt.Errorf("%s: changed since training began (a streamed corpus is read again on every pass)", name)
		}
	}
	return nil
}

// each reads sentences lo..hi−1 (Corpus.Each).
func (st *stream) each(c *Corpus, lo, hi int, fn func(i int, tags, heads []int)) error {
	if err := st.changed(); err != nil {
		return err
	}
	k := lo / st.stride
	skip := lo - k*st.stride
	i := lo
	var tags, heads []int
	bad := &pipeline.BadRecords{Skip: st.skip}
	err := st.read(st.index[k], bad, func(s *format.Sentence, _ streamPos, lines *pipeline.Lines) (bool, error) {
		if skip > 0 {
			skip--
			return true, nil
		}
		tags = tags[:0]
		for _, t := range s.Tags {
			x, ok := c.Tags.Index(t)
			if !ok {
				return false, lines.Errorf("tag %q not seen when training began: the file changed", t)
			}
			tags = append(tags, x)
		}
		var g []int
		if st.gold && s.Heads != nil {
			heads = append(heads[:0], s.Heads...)
			g = heads
		}
		fn(i, tags, g)
		i++
		return i < hi, nil
	})
	if err == nil && i < hi {
		err = fmt.Errorf("%s: %d sentences where training began with %d: the input changed", pipeline.DescribeInputs(st.files), i, c.n)
	}
	return err
}

// read reads the sentence records of the files from position at on,
// calling fn with each valid one and where it starts, until fn says
// stop. Bad records go to bad, as pipeline.EachSentence does.
func (st *stream) read(at streamPos, bad *pipeline.BadRecords, fn func(s *format.Sentence, at streamPos, lines *pipeline.Lines) (bool, error)) error {
	for f := at.file; f < len(st.files); f++ {
		from := streamPos{file: f}
		if f == at.file {
			from = at
		}
		more, err := st.readFile(from, bad, fn)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	utf8BOM   = []byte{0xef, 0xbb, 0xbf}
)

func (st *stream) readFile(at streamPos, bad *pipeline.BadRecords, fn func(s *format.Sentence, at streamPos, lines *pipeline.Lines) (bool, error)) (bool, error) {
	name := st.files[at.file]
	f, err := os.Open(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if at.offset == 0 {
		head := make([]byte, len(utf8BOM))
		if n, _ := io.ReadFull(f, head); bytes.Equal(head[:n], utf8BOM) {
			at.offset = int64(len(utf8BOM))
		}
	}
	if _, err := f.Seek(at.offset, io.SeekStart); err != nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	lines := pipeline.NewLines(&pipeline.Input{Name: name, Reader: f})
	lines.StartAt(at.offset, at.line)
	for start := at.offset; lines.Scan(); start = lines.Offset() {
		text := bytes.TrimSpace(lines.Bytes())
		if len(text) == 0 {
			continue
		}
		var s format.Sentence
		if err := format.Unmarshal(text, &s); err != nil {
			if err := bad.Handle(lines.Errorf("invalid JSON: %v", err)); err != nil {
				return false, err
			}
			continue
		}
		err := s.Validate()
		if err == nil && len(s.Tags) > MaxSentenceLen {
			err = fmt.Errorf("%d tokens: longer than %d, the longest sentence grind trains on", len(s.Tags), MaxSentenceLen)
		}
		if err != nil {
			if err := bad.Handle(lines.Errorf("%w", err)); err != nil {
				return false, err
			}
			continue
		}
		more, err := fn(&s, streamPos{at.file, start, lines.Line() - 1}, lines)
		if err != nil || !more {
			return more, err
		}
	}
	return true, lines.Err()
}
