package format

import (
	"errors"
	"fmt"

	jsoniter "github.com/json-iterator/go"
)

// Lattice is a neighbourhood of a sentence for contrastive estimation: a
// set of tag strings as an acyclic, deterministic automaton, one JSON line:
//
//	{"id":"s1","tags":["DT","NN","VBD"],"nbhd":"trans1","states":6,"start":0,"final":[5],
//	 "arcs":[[0,1,"DT"],[0,2,"NN"],[1,3,"NN"],[2,4,"DT"],[3,5,"VBD"],[4,5,"VBD"]]}
//
// Tags is the sentence the neighbourhood was made from; a neighbourhood
// of word strings (nbhd --words, for a log-linear HMM) has the sentence's
// Words instead, and words on its arcs; a neighbourhood of tagged words
// (nbhd --spelling, for Model U's spelling features) has both, and each
// arc a tag and a word, [from, to, "tag", "word"]. States are
// numbered 0…States−1 in topological order: every arc goes from a lower
// to a higher number, so the automaton is acyclic. It is deterministic
// (no state has two arcs with one tag), so each string of the
// neighbourhood is spelled by exactly one path from Start to a final
// state and is counted once.
type Lattice struct {
	ID     string
	Tags   []string
	Words  []string // instead of Tags: a lattice over words
	Nbhd   string   // the neighbourhood's name (nbhd --kind), informative
	States int
	Start  int
	Final  []int
	Arcs   []Arc
}

// Arc is one transition of a lattice, written [from, to, "tag"], or
// [from, to, "tag", "word"] in a lattice of tagged words.
type Arc struct {
	From, To int
	Tag      string
	Word     string // "": none
}

// MarshalJSON writes the record's fields in the documented order.
func (l Lattice) MarshalJSON() ([]byte, error) {
	return encodeObject(func(o *object) {
		if l.ID != "" {
			o.str("id", l.ID)
		}
		if l.Words == nil || len(l.Tags) > 0 { // words alone: a lattice over words
			o.strings("tags", l.Tags)
		}
		if l.Words != nil {
			o.strings("words", l.Words)
		}
		if l.Nbhd != "" {
			o.str("nbhd", l.Nbhd)
		}
		o.int("states", l.States)
		o.int("start", l.Start)
		o.ints("final", l.Final)
		writeArray(o.field("arcs"), l.Arcs, func(a Arc) {
			st := o.s
			st.WriteArrayStart()
			st.WriteInt(a.From)
			st.WriteMore()
			st.WriteInt(a.To)
			st.WriteMore()
			st.WriteString(a.Tag)
			if a.Word != "" {
				st.WriteMore()
				st.WriteString(a.Word)
			}
			st.WriteArrayEnd()
		})
	})
}

// UnmarshalJSON reads a lattice with the codec's streaming iterator;
// unknown fields are skipped. It checks the shape of the fields, not
// their meaning (see Validate).
func (l *Lattice) UnmarshalJSON(data []byte) error {
	*l = Lattice{}
	tags := tagInterner(data)
	var seen [4]bool
	err := decodeObject(data, "lattice", func(it *jsoniter.Iterator, field string) {
		switch field {
		case "id":
			l.ID = it.ReadString()
		case "tags":
			l.Tags = readStrings(it, tags)
		case "words":
			l.Words = readStrings(it, nil)
		case "nbhd":
			l.Nbhd = it.ReadString()
		case "states":
			l.States, seen[0] = it.ReadInt(), true
		case "start":
			l.Start, seen[1] = it.ReadInt(), true
		case "final":
			l.Final, seen[2] = readInts(it), true
		case "arcs":
			l.Arcs, seen[3] = readArcs(it, tags), true
		default:
			it.Skip()
		}
	})
	if err != nil {
		return err
	}
	for i, f := range [...]string{"states", "start", "final", "arcs"} {
		if !seen[i] {
			return fmt.Errorf("lattice without %q", f)
		}
	}
	return nil
}

// readArcs reads [[from,to,"tag"],...]; tags go through names when it
// is not nil.
func readArcs(it *jsoniter.Iterator, names *interner) []Arc {
	if it.ReadNil() {
		return nil
	}
	if !openArray(it) {
		return nil
	}
	arcs := []Arc{}
	for it.ReadArray() {
		var a Arc
		var parts int
		if !openArray(it) {
			return nil
		}
		for it.ReadArray() {
			switch parts {
			case 0:
				a.From = it.ReadInt()
			case 1:
				a.To = it.ReadInt()
			case 2:
				if names != nil {
					a.Tag = names.read(it)
				} else {
					a.Tag = it.ReadString()
				}
			case 3:
				a.Word = it.ReadString()
			default:
				it.Skip()
			}
			parts++
		}
		if parts != 3 && parts != 4 && it.Error == nil {
			it.ReportError("read arc", fmt.Sprintf("arc %d has %d fields, want [from,to,\"tag\"] or [from,to,\"tag\",\"word\"]", len(arcs)+1, parts))
		}
		arcs = append(arcs, a)
	}
	return arcs
}

// Validate checks what the DMV over a lattice relies on: states numbered
// in topological order (every arc from a lower to a higher number: the
// automaton is acyclic), arcs, start and final states in range, no empty
// tag, and determinism (no state with two arcs of one tag), so that no
// string is spelled by two paths.
func (l *Lattice) Validate() error {
	tagged := l.TaggedWords()
	switch {
	case len(l.Tags) == 0 && len(l.Words) == 0:
		return errors.New("lattice has no sentence tags")
	case tagged && len(l.Tags) != len(l.Words):
		return fmt.Errorf("lattice of tagged words has %d sentence tags and %d words", len(l.Tags), len(l.Words))
	}
	if l.States < 1 {
		return fmt.Errorf("lattice has %d states; it needs at least 1", l.States)
	}
	// Every state but the start is entered by an arc, so m arcs reach at
	// most m + 1 states; a larger claim would only make readers allocate
	// for states that cannot exist.
	if l.States > len(l.Arcs)+1 {
		return fmt.Errorf("lattice claims %d states, but its %d arcs can reach at most %d", l.States, len(l.Arcs), len(l.Arcs)+1)
	}
	inRange := func(s int) bool { return s >= 0 && s < l.States }
	if !inRange(l.Start) {
		return fmt.Errorf("start state %d is outside 0..%d", l.Start, l.States-1)
	}
	if len(l.Final) == 0 {
		return errors.New("lattice has no final state")
	}
	final := map[int]bool{}
	for _, f := range l.Final {
		if !inRange(f) {
			return fmt.Errorf("final state %d is outside 0..%d", f, l.States-1)
		}
		if final[f] {
			return fmt.Errorf("final state %d listed twice", f)
		}
		final[f] = true
	}
	type out struct {
		from      int
		tag, word string
	}
	seen := make(map[out]int, len(l.Arcs))
	for i, a := range l.Arcs {
		switch {
		case tagged && a.Word == "":
			return fmt.Errorf("arc %d [%d,%d,%q] has no word: a lattice of tagged words has [from,to,\"tag\",\"word\"] arcs", i+1, a.From, a.To, a.Tag)
		case !tagged && a.Word != "":
			return fmt.Errorf("arc %d [%d,%d,%q,%q] has a word: only a lattice of tagged words (with the sentence's tags and words) has them", i+1, a.From, a.To, a.Tag, a.Word)
		case !inRange(a.From) || !inRange(a.To):
			return fmt.Errorf("arc %d [%d,%d,%q]: state outside 0..%d", i+1, a.From, a.To, a.Tag, l.States-1)
		case a.From >= a.To:
			return fmt.Errorf("arc %d [%d,%d,%q] does not go to a higher state: states must be numbered in topological order", i+1, a.From, a.To, a.Tag)
		case a.Tag == "":
			return fmt.Errorf("arc %d [%d,%d,\"\"] has an empty tag", i+1, a.From, a.To)
		}
		if j, dup := seen[out{a.From, a.Tag, a.Word}]; dup {
			return fmt.Errorf("arcs %d and %d both leave state %d with tag %q%s: the lattice is not deterministic", j+1, i+1, a.From, a.Tag, map[bool]string{true: fmt.Sprintf(" and word %q", a.Word)}[tagged])
		}
		seen[out{a.From, a.Tag, a.Word}] = i
	}
	return nil
}

// TaggedWords says whether the lattice is one of tagged words: it has the
// sentence's tags and its words.
func (l *Lattice) TaggedWords() bool { return len(l.Tags) > 0 && l.Words != nil }

// SentenceOrLattice is a record that is either a sentence or a lattice,
// for programs that take both (estep): a record with "arcs" is a lattice.
type SentenceOrLattice struct {
	Sentence *Sentence
	Lattice  *Lattice
}

// UnmarshalJSON decides the kind from the record's fields and reads it.
func (r *SentenceOrLattice) UnmarshalJSON(data []byte) error {
	*r = SentenceOrLattice{}
	if s := new(Sentence); s.scan(data) { // plain sentences, on the shell loop's path
		r.Sentence = s
		return nil
	}
	isLattice, err := hasField(data, "arcs")
	if err != nil {
		return err
	}
	if isLattice {
		r.Lattice = new(Lattice)
		return r.Lattice.UnmarshalJSON(data)
	}
	r.Sentence = new(Sentence)
	return r.Sentence.UnmarshalJSON(data)
}

// SentenceOrLatticeNoWords is SentenceOrLattice for programs that never
// look at a sentence's words (estep): its sentences come without them
// (Words nil), which spares a corpus reader a copy of every word. A
// sentence whose words are not as many as its tags is read with its
// words, so that Validate refuses it as for SentenceOrLattice.
//
// Read with pipeline.EachRecordReused, one value takes every line and a
// plain sentence's tags and heads reuse the previous line's arrays (the
// reader must copy what it keeps of them); a lattice, or a sentence read
// by the codec, is always new.
type SentenceOrLatticeNoWords struct {
	SentenceOrLattice
	wordless
}

// wordless reads plain sentences without their words into one Sentence,
// reused line after line with its arrays.
type wordless struct {
	spare *Sentence // the plain sentence of the previous line
	bufs  sentenceBufs
}

// scan is the sentence of data read by the short road without its words,
// nil where the short road does not take it.
func (r *wordless) scan(data []byte) *Sentence {
	if r.spare == nil {
		r.spare = new(Sentence)
	}
	s := r.spare
	*s = Sentence{}
	if !s.scanWords(data, false, &r.bufs) {
		return nil
	}
	return s
}

// ResetForReuse clears the record for the next line of
// pipeline.EachRecordReused, keeping its arrays.
func (r *SentenceOrLatticeNoWords) ResetForReuse() { r.SentenceOrLattice = SentenceOrLattice{} }

// UnmarshalJSON reads the record as SentenceOrLattice does, without the
// words of a plain sentence.
func (r *SentenceOrLatticeNoWords) UnmarshalJSON(data []byte) error {
	if s := r.scan(data); s != nil {
		r.SentenceOrLattice = SentenceOrLattice{Sentence: s}
		return nil
	}
	return r.SentenceOrLattice.UnmarshalJSON(data)
}

// SentenceNoWords is a sentence record for readers that never look at its
// words (the DMV's corpus readers): read as SentenceOrLatticeNoWords reads
// a plain sentence, with pipeline.EachRecordReused (one value for every
// line, the tags and heads in the previous line's arrays); a line the
// short road does not take is read by Sentence's codec, words and all,
// so it is refused as Sentence refuses it.
type SentenceNoWords struct {
	Sentence *Sentence
	wordless
}

// ResetForReuse clears the record for the next line, keeping its arrays.
func (r *SentenceNoWords) ResetForReuse() { r.Sentence = nil }

// UnmarshalJSON reads the sentence, without its words where it can.
func (r *SentenceNoWords) UnmarshalJSON(data []byte) error {
	if r.Sentence = r.scan(data); r.Sentence != nil {
		return nil
	}
	r.Sentence = new(Sentence)
	return r.Sentence.UnmarshalJSON(data)
}

// Validate validates whichever record r holds.
// Parts are the record's sentence and lattice, one of them nil.
func (r *SentenceOrLattice) Parts() (*Sentence, *Lattice) { return r.Sentence, r.Lattice }

func (r *SentenceOrLattice) Validate() error {
	if r.Lattice != nil {
		return r.Lattice.Validate()
	}
	return r.Sentence.Validate()
}

// hasField says whether the JSON object data has a top-level field name.
func hasField(data []byte, name string) (bool, error) {
	found := false
	err := decodeObject(data, "record", func(it *jsoniter.Iterator, field string) {
		found = found || field == name
		it.Skip()
	})
	return found, err
}
