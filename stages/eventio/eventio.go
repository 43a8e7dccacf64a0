// Package eventio is the record plumbing every model family shares: a
// model file is a header and exactly the events it announces; a count
// stream is a sequence of shards, each a header, its events and one stats
// record. The checks on that structure (a file cut off, a shard cut
// short, given twice or of another model, counts where a model is due)
// are written here once; a family only says which events it has.
package eventio

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/memory"
)

// Kind is what a family tells the readers: the names its headers carry
// (the first is what it writes by default) and how to take one event.
type Kind struct {
	Families []string
	// Add takes one event (never a header or stats record); its error is
	// reported at the event's line.
	Add func(e *format.Event) error
	// Key describes an event, for "given twice".
	Key func(e *format.Event) string
	// ID, when not nil, is a number that tells an event from every other
	// of the family (Key's text as a number), small: below the number of
	// different events the family has been given (the count readers
	// index a table by it rather than look up Key's string).
	ID func(e *format.Event) uint64
	// Short, when not nil (with ID and Commit), is the family's short
	// road for the plain lines of models and counts, thousands per file
	// read on every step of a shell loop: it reads line, and when it
	// holds an event carrying unit that Add would take without error, it
	// keeps it for Commit and returns the event's ID and true. The lines
	// it leaves, and those the readers' checks refuse (a shard's event
	// given twice, one more than the header announces), take the long
	// road (format.Event, Add), which gives the same result or the error.
	Short  func(line []byte, unit format.Unit) (id uint64, ok bool)
	Commit func()
	// Expect, when not nil, is told how many events a header announces
	// (at most maxExpect), so that the family can make room for them.
	Expect func(n int)
	// VB says the family has models of variational Bayes (a header's
	// vb_alpha); the other families refuse them.
	VB bool
	// Header, when not nil, is given every header read (a model's, each
	// count shard's) before its events; its error is reported at the
	// header's line (the DMV takes its valence settings from it).
	Header func(h *format.Header) error
}

// maxExpect bounds what a header's count makes room for: the count is
// the input's word, not yet checked against the events that follow.
const maxExpect = 1 << 16

func (k Kind) expect(n int) {
	if k.Expect != nil {
		k.Expect(min(n, maxExpect))
	}
}

func (k Kind) checkFamily(h *format.Header) error {
	for _, f := range k.Families {
		if h.Family == f {
			return nil
		}
	}
	want := make([]string, len(k.Families))
	for i, f := range k.Families {
		want[i] = strconv.Quote(f)
	}
	return fmt.Errorf("a model or counts of family %q; this program reads %s", h.Family, strings.Join(want, " or "))
}

// firstLines are the lines at which the events of one model or shard
// were given: by ID in a table when the family numbers its events (the
// short road's), else by Key.
type firstLines struct {
	ids  []int // ID → line (0: not yet)
	keys map[string]int
}

// reset starts a model or shard of up to events events of kind k.
func (f *firstLines) reset(k Kind, events int) {
	if k.ID == nil {
		f.keys = make(map[string]int, min(events, maxExpect))
		return
	}
	if want := min(events, maxExpect) + 1; len(f.ids) < want {
		f.ids = memory.Zeroed[int](want) // newID reads an entry before it writes it
	} else {
		clear(f.ids)
	}
}

// newID records event id at line unless it was given before.
func (f *firstLines) newID(id uint64, line int) bool {
	if id >= uint64(len(f.ids)) {
		f.ids = append(f.ids, make([]int, int(id)+1-len(f.ids))...)
	}
	if f.ids[id] != 0 {
		return false
	}
	f.ids[id] = line
	return true
}

// see records e at line unless it was given before: then it says the
// line it was first given at.
func (f *firstLines) see(k Kind, e *format.Event, line int) (first int, dup bool) {
	if k.ID != nil {
		id := k.ID(e)
		if f.newID(id, line) {
			return 0, false
		}
		return f.ids[id], true
	}
	key := k.Key(e)
	if first, dup = f.keys[key]; !dup {
		f.keys[key] = line
	}
	return first, dup
}

// ReadModel reads the model of src (one input), called path in errors:
// its header, exactly the events the header announces. The family checks
// the events' values as a whole afterwards.
func ReadModel(src pipeline.Source, path string, k Kind) (*format.Header, error) {
	if path == "-" && src.Stdin == nil {
		return nil, errors.New("a model is read from a file, not stdin (-): stdin is for the sentences")
	}
	var hdr *format.Header
	n := 0
	var given firstLines
	short := func(line []byte, at *pipeline.Lines) bool {
		if hdr == nil || n >= hdr.Events {
			return false
		}
		id, ok := k.Short(line, hdr.Unit)
		if !ok || !given.newID(id, at.Line()) {
			return false
		}
		n++
		k.Commit()
		return true
	}
	if k.Short == nil {
		short = nil
	}
	long := func(e *format.Event, at *pipeline.Lines) error {
		if err := e.Validate(); err != nil {
			return pipeline.BadRecord(due(err, "a model is", "models come from dmv-init, mstep and the trainers: -o, or --save-model of train-ccm and train-hmm"))
		}
		switch {
		case e.Ev == format.EvHeader && hdr != nil:
			return pipeline.BadRecord(errors.New("a second header: one model per file"))
		case e.Ev == format.EvHeader:
			if err := k.checkFamily(e.Header); err != nil {
				return pipeline.BadRecord(err)
			}
			if e.Header.Unit == format.Count {
				return pipeline.BadRecord(errors.New("holds counts (\"n\"), not a model: run mstep on it"))
			}
			if e.Header.VBAlpha > 0 && !k.VB {
				return pipeline.BadRecord(fmt.Errorf("a %s model of variational Bayes (\"vb_alpha\"): grind trains only the DMV's by VB", e.Header.Family))
			}
			if k.Header != nil {
				if err := k.Header(e.Header); err != nil {
					return pipeline.BadRecord(err)
				}
			}
			hdr = e.Header
			given.reset(k, hdr.Events)
			k.expect(hdr.Events)
			return nil
		case hdr == nil:
			return pipeline.BadRecord(fmt.Errorf(`a model begins with its header ({"ev":"header","family":%q,...}); this file does not (not a model, or written by an older grind)`, k.Families[0]))
		case e.Ev == format.EvStats:
			return pipeline.BadRecord(errors.New("a stats record: a model has none (counts? run mstep on them)"))
		case e.Unit != hdr.Unit:
			return pipeline.BadRecord(fmt.Errorf("event carries %q, the header says %q", string(e.Unit), string(hdr.Unit)))
		}
		// An event given twice is named at its second line, not found
		// missing elsewhere or counted one too many at the end.
		if first, dup := given.see(k, e, at.Line()); dup {
			return pipeline.BadRecord(fmt.Errorf("event given twice: %s (first at line %d)", k.Key(e), first))
		}
		if n++; n > hdr.Events {
			return pipeline.BadRecord(fmt.Errorf("more events than the header's %d", hdr.Events))
		}
		return badRecord(k.Add(e))
	}
	err := pipeline.EachInput(src.Names, src.Stdin, func(in *pipeline.Input) error {
		return pipeline.EachRecordReusedOr(in, src.Bad, short, long)
	})
	if err != nil {
		return nil, err
	}
	switch {
	case hdr == nil:
		return nil, fmt.Errorf("%s: empty: no model", path)
	case n < hdr.Events:
		return nil, fmt.Errorf("%s: cut off: the header announces %d events, the file holds %d", path, hdr.Events, n)
	}
	return hdr, nil
}

// Shards is what ReadCounts learnt of the shards it added.
type Shards struct {
	Family string // of the first header
	// The model hash their E-steps ran with, the order-free sum of their
	// corpus hashes, and how many were added.
	Model, Corpus string
	Shards        int
	Stats         *format.Stats // the stats records added
}

// due adds to format.ErrNotEvent what the reader wanted instead ("a model is",
// and where it comes from); other errors are returned as they are.
func due(err error, what, from string) error {
	if errors.Is(err, format.ErrNotEvent) {
		return fmt.Errorf("%w: a corpus where %s due (%s)", err, what, from)
	}
	return err
}

// ReadCounts reads count streams. A stream is a sequence of shards, each
// its header, exactly the events the header announces and one stats
// record; inputs are concatenated (a shard may not span two files).
// Refused anywhere in the stream: counts before a header, a shard cut
// short (fewer events, or no stats record, before the next header or the
// end), a second stats record, shards of different models or families,
// and a shard given twice (the same corpus hash). Every event goes to
// k.Add, which adds.
func ReadCounts(src pipeline.Source, k Kind) (Shards, error) {
	var out Shards
	seen := map[string]string{} // corpus hash → where its shard began
	var corpus uint64           // sum of the shards' corpus hashes (order-free)
	err := pipeline.EachInput(src.Names, src.Stdin, func(in *pipeline.Input) error {
		var hdr *format.Header // the open shard's, nil between shards
		n, begun := 0, ""
		var inShard firstLines // the open shard's events
		before := out.Shards
		short := func(line []byte, at *pipeline.Lines) bool {
			if hdr == nil || n >= hdr.Events {
				return false
			}
			id, ok := k.Short(line, format.Count)
			if !ok || !inShard.newID(id, at.Line()) {
				return false
			}
			n++
			k.Commit()
			return true
		}
		if k.Short == nil {
			short = nil
		}
		err := pipeline.EachRecordReusedOr(in, src.Bad, short, func(e *format.Event, at *pipeline.Lines) error {
			if err := e.Validate(); err != nil {
				return pipeline.BadRecord(due(err, "counts are", "counts come from estep"))
			}
			switch {
			case e.Ev == format.EvHeader:
				where := fmt.Sprintf("%s:%d", in.Name, at.Line())
				if hdr != nil {
					return pipeline.BadRecord(fmt.Errorf("the shard begun at %s is cut short: %d of its %d events and no stats record before this header", begun, n, hdr.Events))
				}
				h := e.Header
				if err := k.checkFamily(h); err != nil {
					return pipeline.BadRecord(err)
				}
				if h.Unit != format.Count {
					return pipeline.BadRecord(fmt.Errorf("a model (%q), not counts: sumcounts and mstep take estep's counts; a model goes to decode -m or estep -m", string(h.Unit)))
				}
				if out.Family == "" {
					out.Family = h.Family
				} else if h.Family != out.Family {
					return pipeline.BadRecord(fmt.Errorf("counts of different families mixed: this shard's %q, earlier shards' %q", h.Family, out.Family))
				}
				if out.Model == "" {
					out.Model = h.Model
				} else if h.Model != out.Model {
					return pipeline.BadRecord(fmt.Errorf("counts of different models mixed: this shard's E-step ran model %s, earlier shards' %s", h.Model, out.Model))
				}
				if k.Header != nil {
					if err := k.Header(h); err != nil {
						return pipeline.BadRecord(err)
					}
				}
				if first, dup := seen[h.Corpus]; dup {
					return pipeline.BadRecord(fmt.Errorf("a shard given twice: the same sentences (corpus %s) as the shard at %s", h.Corpus, first))
				}
				c, err := strconv.ParseUint(h.Corpus, 16, 64)
				if err != nil {
					return pipeline.BadRecord(fmt.Errorf("corpus hash %q is not 16 hex digits", h.Corpus))
				}
				seen[h.Corpus] = where
				corpus += c
				out.Shards++
				hdr, n, begun = h, 0, where
				inShard.reset(k, h.Events)
				k.expect(h.Events)
				return nil
			case hdr == nil && e.Ev == format.EvStats:
				return pipeline.BadRecord(errors.New("a stats record outside a shard: counted twice, or counts without a header"))
			case hdr == nil:
				return pipeline.BadRecord(fmt.Errorf(`counts begin with a header ({"ev":"header","family":%q,"unit":"n",...}); these do not (not estep's output, or from an older grind)`, k.Families[0]))
			case e.Ev == format.EvStats:
				if n < hdr.Events {
					return pipeline.BadRecord(fmt.Errorf("the shard begun at %s is truncated: %d of its %d events before its stats record", begun, n, hdr.Events))
				}
				hdr = nil
				if out.Stats == nil {
					s := *e.Stats
					out.Stats = &s
				} else {
					out.Stats.Sentences += e.Stats.Sentences
					out.Stats.Tokens += e.Stats.Tokens
					out.Stats.Loglik += e.Stats.Loglik
					out.Stats.LeftOut += e.Stats.LeftOut
				}
				return nil
			case e.Unit != format.Count:
				return pipeline.BadRecord(fmt.Errorf("a count stream holds %q values; counts carry \"n\"", string(e.Unit)))
			default:
				// Shards add up; within one, an event is given once, and
				// one given again is named as such, not counted one too
				// many (as a model's reader has it).
				if first, dup := inShard.see(k, e, at.Line()); dup {
					return pipeline.BadRecord(fmt.Errorf("event given twice in one shard: %s (first at line %d)", k.Key(e), first))
				}
				if n++; n > hdr.Events {
					return pipeline.BadRecord(fmt.Errorf("more events than the shard's header (at %s) announces: %d", begun, hdr.Events))
				}
			}
			return badRecord(k.Add(e))
		})
		if err != nil {
			return err
		}
		switch {
		case out.Shards == before: // an E-step that died before writing
			return fmt.Errorf("%s: no counts", in.Name)
		case hdr != nil:
			return fmt.Errorf("%s: the shard begun at %s is cut short: %d of its %d events and no stats record: truncated, or its E-step failed", in.Name, begun, n, hdr.Events)
		}
		return nil
	})
	out.Corpus = fmt.Sprintf("%016x", corpus)
	return out, err
}

func badRecord(err error) error {
	if err != nil {
		return pipeline.BadRecord(err)
	}
	return nil
}

// Write writes a model or one count shard: hdr (its Events set to
// len(evs)), the events, and the stats record when stats is not nil.
// Callers check what they write first, so nothing invalid is written.
func Write(w io.Writer, hdr *format.Header, evs []format.Event, stats *format.Stats) error {
	return WriteEach(w, hdr, len(evs), func(emit func(*format.Event) error) error {
		for i := range evs {
			if err := emit(&evs[i]); err != nil {
				return err
			}
		}
		return nil
	}, stats)
}

// WriteEach is Write for a family whose events are too many to hold as
// records at once: each gives them one by one to emit, n of them. The
// lines are made in one reused buffer (format.Event.AppendJSON): models
// and counts are written on every step of a shell loop.
func WriteEach(w io.Writer, hdr *format.Header, n int, each func(emit func(*format.Event) error) error, stats *format.Stats) error {
	return WriteLines(w, hdr, n, func(emit func(line []byte) error) error {
		var line []byte
		return each(func(e *format.Event) (err error) {
			if line, err = appendLine(line, e); err != nil {
				return err
			}
			return emit(line)
		})
	}, stats)
}

// appendLine makes e's line in buf, checked as a reader will check it.
func appendLine(buf []byte, e *format.Event) ([]byte, error) {
	if err := e.CheckWrite(); err != nil {
		return buf, err
	}
	return append(e.AppendJSON(buf[:0]), '\n'), nil
}

// WriteLines is WriteEach for a family that makes its event lines itself
// (format.AppendDMV), each as Event.AppendJSON would, and a newline.
func WriteLines(w io.Writer, hdr *format.Header, n int, each func(emit func(line []byte) error) error, stats *format.Stats) error {
	hdr.Events = n
	var buf []byte
	write := func(e *format.Event) (err error) {
		if buf, err = appendLine(buf, e); err != nil {
			return err
		}
		_, err = w.Write(buf)
		return err
	}
	if err := write(&format.Event{Ev: format.EvHeader, Header: hdr}); err != nil {
		return err
	}
	written := 0
	err := each(func(line []byte) error {
		written++
		_, err := w.Write(line)
		return err
	})
	if err != nil {
		return err
	}
	if written != n {
		return fmt.Errorf("internal: %d events written, the header announces %d", written, n)
	}
	if stats != nil {
		return write(&format.Event{Ev: format.EvStats, Stats: stats})
	}
	return nil
}
