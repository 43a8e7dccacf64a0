package format

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	jsoniter "github.com/json-iterator/go"
)

// Sentence is the record every stage passes on, one JSON line each:
//
//	{"id":"wsj_0001.mrg#1","words":["Pierre","Vinken"],"tags":["NNP","NNP"],"heads":[2,0]}
//
// Heads and Pred are 1-based with 0 for the root; they are absent when the
// sentence has no gold tree or no prediction. Tree keeps the PTB bracketing
// when the sentence came from a constituency treebank. PredSpans are
// predicted brackets, 0-based and half-open ([i, j) covers tokens i..j−1),
// each of two or more tokens, the whole sentence included. GoldTags keeps
// the gold tags aside when a tagger writes induced tags into Tags.
//
// The rest is what a CoNLL-U sentence has besides (conll2deps keeps it so
// that deps2conll gives it back): UPOS or XPOS, the tag column Tags were
// not taken from (one of the two at most); Text, the sentence's text;
// Multiword, its multiword tokens; NoSpaceAfter, the 1-based words the
// text does not put a space after (a multiword token's last word for the
// token).
type Sentence struct {
	ID           string      `json:"id,omitempty"`
	Words        []string    `json:"words,omitempty"`
	Tags         []string    `json:"tags"`
	Heads        []int       `json:"heads,omitempty"`
	Pred         []int       `json:"pred,omitempty"`
	Tree         string      `json:"tree,omitempty"`
	PredSpans    [][2]int    `json:"pred_spans,omitempty"`
	GoldTags     []string    `json:"gold_tags,omitempty"`
	UPOS         []string    `json:"upos,omitempty"`
	XPOS         []string    `json:"xpos,omitempty"`
	Text         string      `json:"text,omitempty"`
	Multiword    []Multiword `json:"multiword,omitempty"`
	NoSpaceAfter []int       `json:"no_space_after,omitempty"`

	event bool // the record had "ev": a model or counts in a corpus's place
	// Unknown are the fields grind does not know, kept as they were
	// written and written back, in their order, after the known ones: a
	// stage passes on what other tools put in a record.
	Unknown []RawField `json:"-"`
}

// Multiword is a multiword token: words First..Last (1-based, inclusive,
// two or more) written together as Form in the text (CoNLL-U's "n-m" line).
type Multiword struct {
	First int    `json:"first"`
	Last  int    `json:"last"`
	Form  string `json:"form"`
}

// RawField is one field of a record, its value the JSON text as written.
type RawField struct {
	Name  string
	Value []byte
}

// Len is the number of tokens.
func (s *Sentence) Len() int { return len(s.Tags) }

// Validate checks what every stage relies on: matching lengths, heads in
// range, and head arrays that form trees (no cycles).
func (s *Sentence) Validate() error {
	n := len(s.Tags)
	if n == 0 && s.event {
		return errors.New(`an event record ("ev"), not a sentence: a model or counts where a corpus is due (a model goes to decode, estep or a trainer with -m; counts go to mstep)`)
	}
	if n == 0 && len(s.Words) > 0 {
		return errors.New(`sentence has "words" but no "tags": every sentence record carries tags (ptb2deps, conll2deps and tagged2sents write them)`)
	}
	if n == 0 {
		return errors.New("sentence has no tokens")
	}
	if s.Words != nil && len(s.Words) != n {
		return fmt.Errorf("%d words but %d tags", len(s.Words), n)
	}
	for i, t := range s.Tags {
		if t == "" {
			return fmt.Errorf("token %d has an empty tag", i+1)
		}
	}
	if s.Heads != nil {
		if err := ValidateHeads(s.Heads, n); err != nil {
			return fmt.Errorf("heads: %w", err)
		}
	}
	if s.Pred != nil {
		if err := ValidateHeads(s.Pred, n); err != nil {
			return fmt.Errorf("pred: %w", err)
		}
	}
	if s.GoldTags != nil && len(s.GoldTags) != n {
		return fmt.Errorf("%d gold_tags but %d tags", len(s.GoldTags), n)
	}
	for _, sp := range s.PredSpans {
		if sp[0] < 0 || sp[1] > n || sp[1]-sp[0] < 2 {
			return fmt.Errorf("pred_spans: [%d, %d] is not a span of two or more of the %d tokens (0-based, half-open)", sp[0], sp[1], n)
		}
	}
	return s.validateCoNLL(n)
}

// validateCoNLL checks the CoNLL-U fields: a tag column as long as the
// tags, multiword tokens in order without overlap, and the words without
// a space after them each once, in order, none inside a multiword token.
func (s *Sentence) validateCoNLL(n int) error {
	if s.UPOS != nil && s.XPOS != nil {
		return errors.New(`both "upos" and "xpos": "tags" hold one of the CoNLL tag columns, and the record keeps the other`)
	}
	for _, col := range []struct {
		name string
		tags []string
	}{{"upos", s.UPOS}, {"xpos", s.XPOS}} {
		if col.tags == nil {
			continue
		}
		if len(col.tags) != n {
			return fmt.Errorf("%d %s but %d tags", len(col.tags), col.name, n)
		}
		if i := slices.Index(col.tags, ""); i >= 0 {
			return fmt.Errorf("token %d has an empty %s", i+1, col.name)
		}
	}
	inside := 0 // the last word of the multiword tokens so far
	for _, m := range s.Multiword {
		switch {
		case m.First <= inside || m.Last <= m.First || m.Last > n:
			return fmt.Errorf("multiword: words %d-%d are not a range of two or more of the %d words after the previous token's", m.First, m.Last, n)
		case m.Form == "":
			return fmt.Errorf("multiword: words %d-%d have an empty form", m.First, m.Last)
		}
		inside = m.Last
	}
	prev, mw := 0, 0
	for _, w := range s.NoSpaceAfter {
		if w <= prev || w > n {
			return fmt.Errorf("no_space_after: word %d is not one of the %d words after word %d", w, n, prev)
		}
		for mw < len(s.Multiword) && s.Multiword[mw].Last < w {
			mw++
		}
		if mw < len(s.Multiword) && s.Multiword[mw].First <= w && w < s.Multiword[mw].Last {
			m := s.Multiword[mw]
			return fmt.Errorf("no_space_after: word %d is inside the multiword token %d-%d, whose words have no spaces between them", w, m.First, m.Last)
		}
		prev = w
	}
	return nil
}

// ValidateWords is Validate for the readers that read only words (the
// HMM taggers, word classes): a sentence of words needs no tags. A
// sentence with tags is checked by Validate; one with words only has
// its other fields checked against its words. One without words is left
// to Validate (an event record, a sentence of no tokens) and then to the
// reader, which refuses it in its own words.
func (s *Sentence) ValidateWords() error {
	if len(s.Words) == 0 || len(s.Tags) > 0 {
		return s.Validate()
	}
	n := len(s.Words)
	if s.GoldTags != nil && len(s.GoldTags) != n {
		return fmt.Errorf("%d gold_tags but %d words", len(s.GoldTags), n)
	}
	if s.Heads != nil {
		if err := ValidateHeads(s.Heads, n); err != nil {
			return fmt.Errorf("heads: %w", err)
		}
	}
	if s.Pred != nil {
		if err := ValidateHeads(s.Pred, n); err != nil {
			return fmt.Errorf("pred: %w", err)
		}
	}
	for _, sp := range s.PredSpans {
		if sp[0] < 0 || sp[1] > n || sp[1]-sp[0] < 2 {
			return fmt.Errorf("pred_spans: [%d, %d] is not a span of two or more of the %d words (0-based, half-open)", sp[0], sp[1], n)
		}
	}
	return nil
}

// ValidateHeads checks that heads has n entries in 0..n and that following
// heads from any token reaches the root without a cycle. Several tokens may
// attach to the root (treebanks with punctuation removed have such trees).
func ValidateHeads(heads []int, n int) error {
	if len(heads) != n {
		return fmt.Errorf("%d heads for %d tokens", len(heads), n)
	}
	for i, h := range heads {
		if h < 0 || h > n {
			return fmt.Errorf("token %d has head %d, outside 0..%d", i+1, h, n)
		}
		if h == i+1 {
			return fmt.Errorf("token %d is its own head", i+1)
		}
	}
	// state: 0 unvisited, 1 on the current path, 2 reaches the root.
	var buf [64]uint8 // most sentences: no allocation
	state := buf[:0]
	if n+1 > len(buf) {
		state = make([]uint8, n+1)
	} else {
		state = buf[:n+1]
	}
	state[0] = 2
	for start := 1; start <= n; start++ {
		path := start
		for state[path] == 0 {
			state[path] = 1
			path = heads[path-1]
		}
		if state[path] == 1 {
			return fmt.Errorf("cycle in heads through token %d", path)
		}
		for path = start; state[path] == 1; path = heads[path-1] {
			state[path] = 2
		}
	}
	return nil
}

// UnmarshalJSON reads a sentence with the codec's streaming iterator
// rather than by reflection: corpora are read on every run of estep, so
// this is on the shell loop's path. Unknown fields are kept in Unknown.
func (s *Sentence) UnmarshalJSON(data []byte) error {
	*s = Sentence{}
	if s.scan(data) {
		return nil
	}
	*s = Sentence{}
	tags := tagInterner(data)
	return decodeObject(data, "sentence", func(it *jsoniter.Iterator, field string) {
		s.decodeField(it, field, tags)
	})
}

// decodeField reads one field with the codec; tags interns tags when not
// nil.
func (s *Sentence) decodeField(it *jsoniter.Iterator, field string, tags *interner) {
	switch field {
	case "id":
		s.ID = it.ReadString()
	case "words":
		s.Words = readStrings(it, nil)
	case "tags":
		s.Tags = readStrings(it, tags)
	case "heads":
		s.Heads = readInts(it)
	case "pred":
		s.Pred = readInts(it)
	case "tree":
		s.Tree = it.ReadString()
	case "pred_spans":
		s.PredSpans = readSpans(it)
	case "gold_tags":
		s.GoldTags = readStrings(it, tags)
	case "upos":
		s.UPOS = readStrings(it, tags)
	case "xpos":
		s.XPOS = readStrings(it, tags)
	case "text":
		s.Text = it.ReadString()
	case "multiword":
		s.Multiword = readMultiwords(it)
	case "no_space_after":
		s.NoSpaceAfter = readInts(it)
	case "ev":
		s.event = true
		it.Skip()
	default:
		s.Unknown = readRawField(it, field, s.Unknown)
	}
}

// scan reads the plain sentences grind writes (id, words, tags, heads,
// pred, gold_tags, upos, xpos, text, multiword, no_space_after; strings without escapes) by the short road of
// fastjson.go; false sends the line to the codec.
func (s *Sentence) scan(data []byte) bool { return s.scanWords(data, true, nil) }

// sentenceBufs are the tag and head arrays of the previous record, which
// a reader that lets each record go (SentenceOrLatticeNoWords read with
// pipeline.EachRecordReused) fills again rather than allocating anew.
type sentenceBufs struct {
	tags  []string
	heads []int
	ids   *strings.Builder // the ids read, end to end: see id
}

// idArena is the most bytes of ids one allocation of sentenceBufs.ids
// holds; the first holds 64, each next twice as many, so that a record
// read once (not reused) costs no more than its id.
const idArena = 16 << 10

// id is b as a string: a piece of ids, which only grows, so that the
// pieces handed out stay as they are; one allocation for many ids rather
// than one each (estep reads every id of its corpus, only to hash it, on
// every step of a shell loop).
func (bufs *sentenceBufs) id(b []byte) string {
	if bufs.ids == nil || bufs.ids.Cap()-bufs.ids.Len() < len(b) {
		if len(b) > idArena/4 {
			return string(b)
		}
		size := 64
		if bufs.ids != nil {
			size = min(2*bufs.ids.Cap(), idArena)
		}
		bufs.ids = new(strings.Builder)
		bufs.ids.Grow(max(size, len(b)))
	}
	at := bufs.ids.Len()
	bufs.ids.Write(b)
	return bufs.ids.String()[at:]
}

// scanWords is scan, keeping the words or not: without them a sentence
// whose words are as many as its tags is read with Words nil (a sentence
// whose are not is left to the codec, so Validate can refuse it).
func (s *Sentence) scanWords(data []byte, keepWords bool, bufs *sentenceBufs) bool {
	if s.scanTemplate(data, keepWords, bufs) {
		return true
	}
	*s = Sentence{}
	return s.scanFields(data, keepWords, bufs)
}

// scanTemplate reads a sentence as grind writes it, without white space
// and with its fields in MarshalJSON's order, each optional but tags:
//
//	{"id":…,"words":[…],"tags":[…],"heads":[…],"upos"/"xpos":[…],"text":…,"multiword":[…],"no_space_after":[…]}
//
// matching the field names as they stand instead of reading and looking
// up each one (estep reads every sentence of its corpus on every step of
// a shell loop). Anything else is left to scanFields.
func (s *Sentence) scanTemplate(data []byte, keepWords bool, bufs *sentenceBufs) bool {
	sc := scanner{data: data}
	lit := func(l string) bool {
		if len(sc.data)-sc.i < len(l) || string(sc.data[sc.i:sc.i+len(l)]) != l {
			return false
		}
		sc.i += len(l)
		return true
	}
	// next is a field's name as it follows a field, or the '{' (without
	// its comma): no string put together per field.
	next := func(name string) string {
		if sc.i == 1 {
			return name[1:]
		}
		return name
	}
	if !lit(`{`) {
		return false
	}
	words := -1
	if lit(`"id":`) {
		if sc.i >= len(sc.data) || sc.data[sc.i] != '"' {
			return false
		}
		b, ok := sc.str()
		if !ok {
			return false
		}
		switch {
		case keepWords:
			s.ID = sc.textOf(b)
		case bufs != nil:
			s.ID = bufs.id(b)
		default:
			s.ID = string(b)
		}
	}
	if lit(next(`,"words":[`)) {
		sc.i-- // the array's '[' is the readers'
		ok := false
		if keepWords {
			s.Words, ok = sc.strings(nil)
		} else {
			words, ok = sc.countWords()
		}
		if !ok {
			return false
		}
	}
	if !lit(next(`,"tags":[`)) {
		return false
	}
	sc.i--
	ok := false
	if bufs != nil {
		s.Tags, ok = sc.tagsInto(bufs.tags)
		bufs.tags = s.Tags
	} else {
		s.Tags, ok = sc.strings(tagNames)
	}
	if !ok {
		return false
	}
	if lit(`,"heads":[`) {
		sc.i--
		if bufs != nil {
			s.Heads, ok = sc.headsInto(bufs.heads)
			bufs.heads = s.Heads
		} else {
			s.Heads, ok = sc.ints()
		}
		if !ok {
			return false
		}
	}
	// conll2deps's records go on with the CoNLL-U fields.
	for _, f := range []struct {
		lit string
		bit uint16
	}{{`,"upos":`, 64}, {`,"xpos":`, 128}, {`,"text":`, 256}, {`,"multiword":`, 1024}, {`,"no_space_after":`, 512}} {
		if lit(f.lit) && !s.scanCoNLLField(&sc, f.bit, keepWords) {
			return false
		}
	}
	return sc.i == len(sc.data)-1 && sc.data[sc.i] == '}' && (words < 0 || words == len(s.Tags))
}

// The arrays of a sentence as grind writes it, read by the short roads
// below: no white space, strings without escapes. Anything else they
// leave to the scanner's general readers from the same '[', so the
// result is the same either way; estep reads the words, tags and heads
// of every sentence of its corpus on every step of a shell loop.

// plainString finds the string that starts at data[i], '"' and all, if
// it has no escapes or control characters: its text is data[lo:hi] and
// the closing '"' is at hi.
func (s *scanner) plainString(i int) (lo, hi int, ok bool) {
	d := s.data
	if i >= len(d) || d[i] != '"' {
		return 0, 0, false
	}
	lo = i + 1
	j := lo
	for j+8 <= len(d) { // as str
		if m := special8(binary.LittleEndian.Uint64(d[j:])); m != 0 {
			j += bits.TrailingZeros64(m) / 8
			break
		}
		j += 8
	}
	for ; j < len(d); j++ {
		switch c := d[j]; {
		case c == '"':
			return lo, j, true
		case c == '\\' || c < 0x20:
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// countWords is skipStrings for words as grind writes them.
func (s *scanner) countWords() (int, bool) {
	d, i := s.data, s.i
	if i+1 < len(d) && d[i] == '[' && d[i+1] == ']' {
		s.i = i + 2
		return 0, true
	}
	if i >= len(d) || d[i] != '[' {
		return s.skipStrings()
	}
	for n, i := 1, i+1; ; n++ {
		_, hi, ok := s.plainString(i)
		if !ok || hi+1 >= len(d) {
			return s.skipStrings()
		}
		switch d[hi+1] {
		case ',':
			i = hi + 2
		case ']':
			s.i = hi + 2
			return n, true
		default:
			return s.skipStrings()
		}
	}
}

// tagsInto is stringsInto(dst, tagNames) for tags as grind writes them.
func (s *scanner) tagsInto(dst []string) ([]string, bool) {
	d, i := s.data, s.i
	if i >= len(d) || d[i] != '[' || i+1 < len(d) && d[i+1] == ']' {
		return s.stringsInto(dst, tagNames)
	}
	xs := dst[:0]
	for i++; ; {
		lo, hi, ok := s.plainString(i)
		if !ok || hi+1 >= len(d) {
			return s.stringsInto(dst, tagNames)
		}
		xs = append(xs, tagNames.intern(d[lo:hi]))
		switch d[hi+1] {
		case ',':
			i = hi + 2
		case ']':
			s.i = hi + 2
			return xs, true
		default:
			return s.stringsInto(dst, tagNames)
		}
	}
}

// headsInto is intsInto for heads as grind writes them, small numbers
// without white space ([2,0,4,2]), read digit by digit; anything else
// (white space, a sign, a leading zero, five digits or more) it leaves to
// intsInto from the same '[': the same result either way, and estep
// reads the heads of every sentence of its corpus on every step of a
// shell loop.
func (s *scanner) headsInto(dst []int) ([]int, bool) {
	d, i := s.data, s.i
	if i >= len(d) || d[i] != '[' {
		return s.intsInto(dst)
	}
	xs := dst[:0]
	if xs == nil {
		xs = []int{} // [] is empty, not nil, as for intsInto
	}
	i++
	if i < len(d) && d[i] == ']' {
		s.i = i + 1
		return xs, true
	}
	for {
		v, j := 0, i
		for j < len(d) && j-i < 4 && digit(d[j]) {
			v = v*10 + int(d[j]-'0')
			j++
		}
		if j == i || j >= len(d) || d[i] == '0' && j-i > 1 {
			return s.intsInto(dst)
		}
		xs = append(xs, v)
		switch d[j] {
		case ',':
			i = j + 1
		case ']':
			s.i = j + 1
			return xs, true
		default: // a fifth digit, white space, a fraction: intsInto's
			return s.intsInto(dst)
		}
	}
}

// scanFields reads a plain sentence's fields in any order.
func (s *Sentence) scanFields(data []byte, keepWords bool, bufs *sentenceBufs) bool {
	sc := scanner{data: data}
	var seen uint16
	words := -1
	ok := sc.object(func(name []byte) bool {
		var bit uint16
		switch string(name) {
		case "id":
			bit = 1
		case "words":
			bit = 2
		case "tags":
			bit = 4
		case "heads":
			bit = 8
		case "pred":
			bit = 16
		case "gold_tags":
			bit = 32
		case "upos":
			bit = 64
		case "xpos":
			bit = 128
		case "text":
			bit = 256
		case "no_space_after":
			bit = 512
		case "multiword":
			bit = 1024
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		ok := false
		switch bit {
		case 1:
			var b []byte
			if b, ok = sc.str(); ok {
				if keepWords {
					s.ID = sc.textOf(b) // one copy of the line for the id and words
				} else {
					s.ID = string(b)
				}
			}
		case 2:
			if keepWords {
				s.Words, ok = sc.strings(nil)
			} else {
				words, ok = sc.countWords()
			}
		case 4:
			if bufs != nil {
				s.Tags, ok = sc.stringsInto(bufs.tags, tagNames)
				bufs.tags = s.Tags
			} else {
				s.Tags, ok = sc.strings(tagNames)
			}
		case 8:
			if bufs != nil {
				s.Heads, ok = sc.intsInto(bufs.heads)
				bufs.heads = s.Heads
			} else {
				s.Heads, ok = sc.ints()
			}
		case 16:
			s.Pred, ok = sc.ints()
		case 32:
			s.GoldTags, ok = sc.strings(tagNames)
		case 64, 128, 256, 512, 1024:
			ok = s.scanCoNLLField(&sc, bit, keepWords)
		}
		return ok
	})
	return ok && (words < 0 || words == len(s.Tags))
}

// scanCoNLLField reads the CoNLL-U field bit names (scanFields' bits: 64
// upos, 128 xpos, 256 text, 512 no_space_after, 1024 multiword); without
// the words it checks and skips them, as they go with the words.
func (s *Sentence) scanCoNLLField(sc *scanner, bit uint16, keepWords bool) bool {
	if !keepWords { // checked and skipped, by the short roads where they go
		switch bit {
		case 64, 128:
			_, ok := sc.countWords()
			return ok
		case 256:
			return sc.skipStr()
		case 512:
			var buf [64]int // no allocation for what is not kept
			_, ok := sc.intsInto(buf[:0])
			return ok
		default:
			_, ok := sc.multiwords(false)
			return ok
		}
	}
	ok := false
	switch bit {
	case 64:
		s.UPOS, ok = sc.strings(tagNames)
	case 128:
		s.XPOS, ok = sc.strings(tagNames)
	case 256:
		var b []byte
		if b, ok = sc.str(); ok {
			s.Text = sc.textOf(b)
		}
	case 512:
		s.NoSpaceAfter, ok = sc.ints()
	default:
		s.Multiword, ok = sc.multiwords(true)
	}
	return ok
}

// readRawField appends the field name, with its value as written, to
// fields.
func readRawField(it *jsoniter.Iterator, name string, fields []RawField) []RawField {
	raw := bytes.TrimSpace(it.SkipAndReturnBytes())
	if it.Error != nil {
		return fields
	}
	if !json.Valid(raw) {
		it.ReportError("read field", "not valid JSON")
		return fields
	}
	return append(fields, RawField{Name: name, Value: raw})
}

// MarshalJSON writes the fields in a fixed order, leaving out the empty
// optional ones.
func (s Sentence) MarshalJSON() ([]byte, error) {
	return encodeObject(func(o *object) {
		if s.ID != "" {
			o.str("id", s.ID)
		}
		if len(s.Words) > 0 {
			o.strings("words", s.Words)
		}
		if len(s.Tags) > 0 || len(s.Words) == 0 { // raw text stays raw
			o.strings("tags", s.Tags)
		}
		if len(s.Heads) > 0 {
			o.ints("heads", s.Heads)
		}
		if len(s.Pred) > 0 {
			o.ints("pred", s.Pred)
		}
		if s.Tree != "" {
			o.str("tree", s.Tree)
		}
		if len(s.PredSpans) > 0 {
			writeArray(o.field("pred_spans"), s.PredSpans, func(sp [2]int) {
				writeArray(o.s, sp[:], o.s.WriteInt)
			})
		}
		if len(s.GoldTags) > 0 {
			o.strings("gold_tags", s.GoldTags)
		}
		if len(s.UPOS) > 0 {
			o.strings("upos", s.UPOS)
		}
		if len(s.XPOS) > 0 {
			o.strings("xpos", s.XPOS)
		}
		if s.Text != "" {
			o.str("text", s.Text)
		}
		if len(s.Multiword) > 0 {
			writeArray(o.field("multiword"), s.Multiword, func(m Multiword) {
				o.s.WriteObjectStart()
				o.s.WriteObjectField("first")
				o.s.WriteInt(m.First)
				o.s.WriteMore()
				o.s.WriteObjectField("last")
				o.s.WriteInt(m.Last)
				o.s.WriteMore()
				o.s.WriteObjectField("form")
				o.s.WriteString(m.Form)
				o.s.WriteObjectEnd()
			})
		}
		if len(s.NoSpaceAfter) > 0 {
			o.ints("no_space_after", s.NoSpaceAfter)
		}
		for _, f := range s.Unknown {
			o.raw(f.Name, f.Value)
		}
	})
}

// readStrings reads an array of strings; null is nil, [] is empty. With
// names, equal strings share one copy (tags repeat endlessly; words would
// only fill the table).
func readStrings(it *jsoniter.Iterator, names *interner) []string {
	if it.ReadNil() {
		return nil
	}
	if !openArray(it) {
		return nil
	}
	var buf [64]string
	xs := buf[:0]
	for it.ReadArray() {
		if names != nil {
			xs = append(xs, names.read(it))
		} else {
			xs = append(xs, it.ReadString())
		}
	}
	return append(make([]string, 0, len(xs)), xs...)
}

// readInts reads an array of integers; null is nil, [] is empty.
func readInts(it *jsoniter.Iterator) []int {
	if it.ReadNil() {
		return nil
	}
	if !openArray(it) {
		return nil
	}
	var buf [64]int
	xs := buf[:0]
	for it.ReadArray() {
		xs = append(xs, it.ReadInt())
	}
	return append(make([]int, 0, len(xs)), xs...)
}

// readMultiwords reads an array of {"first":i,"last":j,"form":"…"}; null
// is nil. Validate checks what was read.
func readMultiwords(it *jsoniter.Iterator) []Multiword {
	if it.ReadNil() || !openArray(it) {
		return nil
	}
	ms := []Multiword{}
	for it.ReadArray() {
		var m Multiword
		for f := it.ReadObject(); f != "" && it.Error == nil; f = it.ReadObject() {
			switch f {
			case "first":
				m.First = it.ReadInt()
			case "last":
				m.Last = it.ReadInt()
			case "form":
				m.Form = it.ReadString()
			default:
				it.Skip()
			}
		}
		ms = append(ms, m)
	}
	return ms
}

// readSpans reads an array of [i, j] pairs; null is nil.
func readSpans(it *jsoniter.Iterator) [][2]int {
	if it.ReadNil() {
		return nil
	}
	if !openArray(it) {
		return nil
	}
	spans := [][2]int{}
	for it.ReadArray() {
		var sp [2]int
		k := 0
		if !openArray(it) {
			return nil
		}
		for it.ReadArray() {
			if k < 2 {
				sp[k] = it.ReadInt()
			} else {
				it.Skip()
			}
			k++
		}
		if k != 2 {
			it.ReportError("read span", "a span is a pair [i, j]")
		}
		spans = append(spans, sp)
	}
	return spans
}

// openArray makes a ',' or ']' where an array should start an error:
// jsoniter's ReadArray takes either as the inside of an array already
// open, so `"tags":]` would read as [] and `"tags":,"A"]` as ["A"].
func openArray(it *jsoniter.Iterator) bool {
	if it.WhatIsNext() == jsoniter.InvalidValue {
		it.Skip() // the error: "expected a JSON value, found ']'"
		return false
	}
	return true
}

// interner hands out one shared copy of each string it reads.
type interner struct {
	mu    sync.Mutex
	names map[string]string
	// slots find most names without the lock and without a map lookup
	// (a tag is looked up for every token read, by the corpus and model
	// readers side by side): a name goes, once, into the first empty slot
	// of its short probe sequence, and a slot never changes after. A
	// reader that finds an empty slot, or none of its probes holding the
	// name, takes the lock and the map.
	slots [internSlots]atomic.Pointer[string]
}

const (
	internSlots  = 512
	internProbes = 8
)

// internSlot is FNV-1a of b, folded to a slot.
func internSlot(b []byte) int {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return int(h^h>>16) & (internSlots - 1)
}

// tagNames interns tags: a corpus has a few dozen of them and millions of
// tokens, so reading them allocates almost nothing.
var tagNames = &interner{names: map[string]string{}}

// tagInterner is tagNames for a record without escapes, nil for one with
// them, which the interner's allocation-free read cannot take.
func tagInterner(data []byte) *interner {
	if bytes.IndexByte(data, '\\') >= 0 {
		return nil
	}
	return tagNames
}

// maxInterned bounds the table, in case "tags" hold something unbounded.
const maxInterned = 1 << 16

// read reads a string that has no escapes.
func (in *interner) read(it *jsoniter.Iterator) string {
	if it.WhatIsNext() != jsoniter.StringValue {
		return it.ReadString() // let the iterator report the error
	}
	return in.intern(it.ReadStringAsSlice()) // no allocation; valid until the next read
}

// intern returns the shared copy of raw.
func (in *interner) intern(raw []byte) string {
	h := internSlot(raw)
	for k := range internProbes {
		p := in.slots[(h+k)&(internSlots-1)].Load()
		if p == nil {
			break
		}
		if *p == string(raw) {
			return *p
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if s, ok := in.names[string(raw)]; ok {
		return s
	}
	s := string(raw)
	if len(in.names) < maxInterned {
		in.names[s] = s
		for k := range internProbes {
			if slot := &in.slots[(h+k)&(internSlots-1)]; slot.Load() == nil {
				slot.Store(&s)
				break
			}
		}
	}
	return s
}
