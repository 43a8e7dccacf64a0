package format

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// The shell loop (estep | mstep) reads a corpus, a model and counts and
// writes counts and a model on every iteration, so the records grind
// writes itself take a short road: a scanner for plain JSON — strings
// without escapes, numbers, booleans, flat arrays of those — that gives
// up on anything else, which then goes the long road through the codec
// (the same result, or the codec's error in grind's words). The tests
// hold the two roads to the same answer on every line the short one
// takes.

// scanner reads one JSON object of plain values. Every method reports
// false for what it does not take; the caller then uses the codec.
type scanner struct {
	data []byte
	i    int
	text string // data as a string, made at the first textOf call
}

// textOf is b, a piece of data, as a string: the strings of one record
// that are not interned share one copy of its line, one allocation, not
// one each.
func (s *scanner) textOf(b []byte) string {
	if s.text == "" {
		s.text = string(s.data)
	}
	lo := cap(s.data) - cap(b) // b is data[lo:…]
	return s.text[lo : lo+len(b)]
}

func (s *scanner) space() {
	// JSON's white space is all ≤ ' ': most calls stop at the first test.
	for s.i < len(s.data) && s.data[s.i] <= ' ' {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// take consumes c, after white space, if it comes next.
func (s *scanner) take(c byte) bool {
	s.space()
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end says whether nothing but white space is left.
func (s *scanner) end() bool {
	s.space()
	return s.i == len(s.data)
}

// object reads {"name": value, ...}: field reads each value and says
// whether it could.
func (s *scanner) object(field func(name []byte) bool) bool {
	if !s.take('{') {
		return false
	}
	if s.take('}') {
		return s.end()
	}
	for {
		name, ok := s.str()
		if !ok || !s.take(':') || !field(name) {
			return false
		}
		if s.take(',') {
			continue
		}
		return s.take('}') && s.end()
	}
}

// str reads a string that has no escapes and no control characters,
// valid until data changes.
func (s *scanner) str() ([]byte, bool) {
	if !s.take('"') {
		return nil, false
	}
	// Eight bytes at a time while none of them is a quote, a backslash
	// or a control character (most of a corpus is inside strings).
	// The lowest byte special8 marks is a true one: the loop below starts
	// on it.
	j := s.i
	for j+8 <= len(s.data) {
		if m := special8(binary.LittleEndian.Uint64(s.data[j:])); m != 0 {
			j += bits.TrailingZeros64(m) / 8
			break
		}
		j += 8
	}
	for ; j < len(s.data); j++ {
		switch c := s.data[j]; {
		case c == '"':
			b := s.data[s.i:j]
			s.i = j + 1
			return b, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// special8 marks (by its high bit) the bytes of x that are '"', '\\' or
// below 0x20, little-endian. A borrow can mark a byte above a true one,
// never one below every true one: a zero result is exact, and the lowest
// mark is a true one.
func special8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ (ones * '"')
	slash := x ^ (ones * '\\')
	return ((quote-ones)&^quote | (slash-ones)&^slash | (x-ones*0x20)&^x) & highs
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

// number reads a JSON number's text; integer says it has no fraction or
// exponent.
func (s *scanner) number() (text []byte, integer, ok bool) {
	s.space()
	d, j := s.data, s.i
	digits := func(j int) int { // past the digits from j
		for j < len(d) && digit(d[j]) {
			j++
		}
		return j
	}
	if j < len(d) && d[j] == '-' {
		j++
	}
	switch {
	case j < len(d) && d[j] == '0':
		j++
	case j < len(d) && d[j] >= '1' && d[j] <= '9':
		j = digits(j)
	default:
		return nil, false, false
	}
	integer = true
	if j < len(d) && d[j] == '.' {
		k := digits(j + 1)
		if k == j+1 {
			return nil, false, false
		}
		j, integer = k, false
	}
	if j < len(d) && (d[j] == 'e' || d[j] == 'E') {
		j++
		if j < len(d) && (d[j] == '+' || d[j] == '-') {
			j++
		}
		k := digits(j)
		if k == j {
			return nil, false, false
		}
		j, integer = k, false
	}
	if j < len(d) {
		switch d[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
		default:
			return nil, false, false
		}
	}
	text = d[s.i:j]
	s.i = j
	return text, integer, true
}

// float reads a number as the codec does (correctly rounded).
func (s *scanner) float() (float64, bool) {
	text, _, ok := s.number()
	if !ok {
		return 0, false
	}
	return parseNumber(text)
}

// int reads an integer of at most 18 digits (the codec's limits are
// wider; longer ones take the long road).
func (s *scanner) int() (int, bool) {
	text, integer, ok := s.number()
	if !ok || !integer || len(text) > 18 {
		return 0, false
	}
	// number has checked the digits; 18 of them fit in an int64.
	neg := text[0] == '-'
	if neg {
		text = text[1:]
	}
	v := 0
	for _, c := range text {
		v = v*10 + int(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

func (s *scanner) bool() (bool, bool) {
	s.space()
	rest := s.data[s.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.i += 5
		return false, true
	}
	return false, false
}

// strings reads an array of strings ([] is empty, not nil); names, when
// not nil, interns them.
func (s *scanner) strings(names *interner) ([]string, bool) {
	var buf [64]string
	xs, ok := s.stringsInto(buf[:0], names)
	if !ok {
		return nil, false
	}
	return append(make([]string, 0, len(xs)), xs...), true
}

// stringsInto is strings appending to dst[:0] (a reader's reused buffer).
func (s *scanner) stringsInto(dst []string, names *interner) ([]string, bool) {
	if !s.take('[') {
		return nil, false
	}
	xs := dst[:0]
	if xs == nil {
		xs = []string{} // [] is empty, not nil, as for strings
	}
	if s.take(']') {
		return xs, true
	}
	for {
		b, ok := s.str()
		if !ok {
			return nil, false
		}
		if names != nil {
			xs = append(xs, names.intern(b))
		} else {
			xs = append(xs, s.textOf(b))
		}
		if s.take(',') {
			continue
		}
		return xs, s.take(']')
	}
}

// skipStr skips a string, escapes and all, as the codec would read it:
// false for a control character or an escape JSON does not have.
func (s *scanner) skipStr() bool {
	if !s.take('"') {
		return false
	}
	d := s.data
	for j := s.i; j < len(d); j++ {
		switch c := d[j]; {
		case c == '"':
			s.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			j++
			if j >= len(d) {
				return false
			}
			switch d[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(d) {
					return false
				}
				for _, h := range d[j+1 : j+5] {
					if !digit(h) && (h|0x20 < 'a' || h|0x20 > 'f') {
						return false
					}
				}
				j += 4
			default:
				return false
			}
		}
	}
	return false
}

// multiwords reads a sentence's multiword tokens,
// [{"first":i,"last":j,"form":"…"}, …], fields in any order; without keep
// it only checks them and skips the forms (escapes and all).
func (s *scanner) multiwords(keep bool) ([]Multiword, bool) {
	if !s.take('[') {
		return nil, false
	}
	ms := []Multiword{}
	if s.take(']') {
		return ms, true
	}
	for {
		var m Multiword
		if !s.take('{') {
			return nil, false
		}
		for k := 0; !s.take('}'); k++ {
			if k > 0 && !s.take(',') {
				return nil, false
			}
			name, ok := s.str()
			if !ok || !s.take(':') {
				return nil, false
			}
			switch string(name) {
			case "first":
				m.First, ok = s.int()
			case "last":
				m.Last, ok = s.int()
			case "form":
				if !keep {
					ok = s.skipStr()
					break
				}
				var b []byte
				if b, ok = s.str(); ok {
					m.Form = s.textOf(b)
				}
			default:
				return nil, false
			}
			if !ok {
				return nil, false
			}
		}
		ms = append(ms, m)
		if s.take(',') {
			continue
		}
		return ms, s.take(']')
	}
}

// skipStrings reads an array of strings and says how many it holds.
func (s *scanner) skipStrings() (int, bool) {
	if !s.take('[') {
		return 0, false
	}
	if s.take(']') {
		return 0, true
	}
	for n := 1; ; n++ {
		if _, ok := s.str(); !ok {
			return 0, false
		}
		if s.take(',') {
			continue
		}
		return n, s.take(']')
	}
}

// ints reads an array of integers ([] is empty, not nil).
func (s *scanner) ints() ([]int, bool) {
	var buf [64]int
	xs, ok := s.intsInto(buf[:0])
	if !ok {
		return nil, false
	}
	return append(make([]int, 0, len(xs)), xs...), true
}

// intsInto is ints appending to dst[:0].
func (s *scanner) intsInto(dst []int) ([]int, bool) {
	if !s.take('[') {
		return nil, false
	}
	xs := dst[:0]
	if xs == nil {
		xs = []int{}
	}
	if s.take(']') {
		return xs, true
	}
	for {
		v, ok := s.int()
		if !ok {
			return nil, false
		}
		xs = append(xs, v)
		if s.take(',') {
			continue
		}
		return xs, s.take(']')
	}
}

// appendString writes s as a JSON string exactly as the codec does:
// printable ASCII as it is, anything else by the codec.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return appendStringByCodec(dst, s)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendStringByCodec is appendString's long road, a function of its
// own: a defer inside appendString's loop cost every call the runtime's
// deferreturn (1.5 of the 31.5 million instructions of an XPOS mstep).
func appendStringByCodec(dst []byte, s string) []byte {
	st := codec.BorrowStream(nil)
	defer codec.ReturnStream(st)
	st.WriteString(s)
	return append(dst, st.Buffer()...)
}

func appendStrings(dst []byte, xs []string) []byte {
	dst = append(dst, '[')
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, x)
	}
	return append(dst, ']')
}

// ScanPlainRecord reads a record line as grind writes it whose fields are
// exactly keys, in that order, with no white space: each but the last a
// string without escapes or control characters, the last a number. It
// sets vals[i] to the text of the i-th string (bytes of data) and
// returns the number, correctly rounded as the codec reads it; it reports
// false for any other line, which the caller then gives to the codec.
// For the readers of records of families that format does not define
// (Model U's weights), as ScanDMVLine is for the DMV's.
func ScanPlainRecord(data []byte, keys []string, vals [][]byte) (float64, bool) {
	s := scanner{data: data}
	last := len(keys) - 1
	for i, k := range keys {
		sep := byte(',')
		if i == 0 {
			sep = '{'
		}
		// sep, then "k":
		j := s.i + 1 + 1 + len(k) + 2
		if j > len(data) || data[s.i] != sep || data[s.i+1] != '"' || string(data[s.i+2:j-2]) != k || data[j-2] != '"' || data[j-1] != ':' {
			return 0, false
		}
		s.i = j
		if i == last {
			break
		}
		v, ok := s.str()
		if !ok {
			return 0, false
		}
		vals[i] = v
	}
	if s.i >= len(data) || data[s.i] != '-' && !digit(data[s.i]) {
		return 0, false
	}
	v, ok := s.float()
	return v, ok && s.i == len(data)-1 && data[s.i] == '}'
}
