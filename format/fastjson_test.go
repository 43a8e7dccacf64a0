package format

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	jsoniter "github.com/json-iterator/go"
)

// The scanner's short road must give what the codec's long road gives,
// on every line it takes, and leave every other line to the codec.

// bothEventRoads decodes data by each road; scanned says whether the
// short one took it.
func bothEventRoads(data []byte) (short, long Event, shortErr, longErr error, scanned bool) {
	f := eventFields{loglik: math.NaN()}
	if scanned = f.scan(&short, data); scanned {
		shortErr = f.finish(&short)
	}
	g := eventFields{loglik: math.NaN()}
	if longErr = g.decode(&long, data); longErr == nil {
		longErr = g.finish(&long)
	}
	return
}

func sameEvents(a, b Event) bool {
	// NaN loglik of a stats record without one compares unequal to itself.
	if a.Stats != nil && b.Stats != nil && math.IsNaN(a.Stats.Loglik) && math.IsNaN(b.Stats.Loglik) {
		sa, sb := *a.Stats, *b.Stats
		sa.Loglik, sb.Loglik = 0, 0
		a.Stats, b.Stats = &sa, &sb
	}
	return reflect.DeepEqual(a, b)
}

func checkEventRoads(t *testing.T, data []byte) (scanned bool) {
	t.Helper()
	short, long, shortErr, longErr, scanned := bothEventRoads(data)
	if !scanned {
		return false
	}
	if longErr != nil {
		if shortErr == nil || shortErr.Error() != longErr.Error() {
			t.Fatalf("%q: the scanner gives error %v, the codec %v", data, shortErr, longErr)
		}
		return true
	}
	if shortErr != nil {
		t.Fatalf("%q: the scanner gives error %v, the codec none", data, shortErr)
	}
	if !sameEvents(short, long) {
		t.Fatalf("%q: the scanner reads %+v, the codec %+v", data, short, long)
	}
	return true
}

var eventLines = []string{
	`{"ev":"root","arg":"VBD","p":0.4}`,
	`{"ev":"child","head":"VBD","dir":"right","arg":"NN","n":12.5}`,
	`{"ev":"stop","head":"VBD","dir":"left","adj":true,"n":3}`,
	`{"ev":"cont","head":"VBD","dir":"left","adj":false,"w":-1.25e-07}`,
	`{"ev":"stats","sentences":5301,"tokens":37000,"loglik":-123456.7}`,
	`{"ev":"stats","sentences":5301,"tokens":37000,"loglik":-123456.7,"left_out":3}`,
	`{"ev":"header","family":"dmv","unit":"n","events":2765,"model":"9c1e0f3a6b2d4e58","corpus":"04d2a7c9e1f3b6a8"}`,
	`{"ev":"header","family":"dmv","unit":"p","events":-1}`,
	`{"ev":"span","yield":["DT","NN"],"constituent":true,"p":0.0123}`,
	`{"ev":"span","yield":[],"constituent":false,"n":4}`,
	`{"ev":"context","left":"<>","right":"VBD","constituent":false,"p":0.004}`,
	`{"ev":"unseen_span","constituent":true,"length":3,"p":1.2e-05}`,
	`{"ev":"trans","prev":["s1","s2"],"next":"<s>","p":0.5}`,
	`{"ev":"emit","state":"s1","word":"dog","p":0.25}`,
	` { "ev" : "root" , "arg" : "A" , "n" : 1E+3 } `,
	`{"ev":"root","arg":"A","n":-0}`,
	`{"ev":"root","arg":"A","n":0.1,"p":0.5}`,
	`{"ev":"stop","head":"A","dir":"up","adj":true,"n":1}`,
	`{"ev":"root","arg":"","n":1}`,
	`{"ev":"unseen_span","constituent":true,"length":-2,"p":1}`,
	`{}`,
	`{"arg":"A","n":1}`,
	`{"ev":"split","arg":"A","n":1}`,
	`{"ev":"root","arg":"A","n":1}x`,
	// Near misses of scanDMV's template, which scanFields or the codec take.
	`{"ev":"child","head":"A","dir":"right","arg":"B","n":1} `,
	`{"ev":"stop","head":"A","dir":"left","adj":true,"arg":"B","n":1}`,
	`{"ev":"root","arg":"A","head":"B","n":1}`,
	`{"ev":"root", "arg":"A","n":1}`,
	`{"ev":"root","arg":"A","n": 1}`,
	`{"ev":"root","arg":"A","n":+1}`,
	`{"ev":"root","arg":"A","n":1}}`,
	`{"ev":"stop","head":"A","dir":"left","adj":truex,"n":1}`,
	`{"ev":"stop","head":"A","dir":"left","adj":false}`,
	`{"ev":"child","head":"A","dir":"left","arg":"B","q":1}`,
	`{"ev":"child","head":"A","dir":"left","arg":"B","nn":1}`,
	// Lines the short road leaves to the codec.
	`{"ev":"root","arg":"A\"B","n":1}`,
	`{"ev":"root","arg":"A","n":1,"note":"x"}`,
	`{"ev":"root","arg":"A","arg":"B","n":1}`,
	`{"ev":"root","arg":"A","n":01}`,
	`{"ev":"root","arg":"A","n":1.}`,
	`{"ev":"root","arg":"A","n":"inf"}`,
	`{"ev":"stats","sentences":1,"tokens":2,"loglik":"-inf"}`,
	`{"ev":"root","arg":"A","n":1e999}`,
	`{"ev":"unseen_span","constituent":true,"length":3.0,"p":1}`,
	`{"tags":["A"],"heads":[0]}`,
	`["root"]`,
	`{"ev":"root","arg":"A","n":1`,
}

func TestEventRoadsAgree(t *testing.T) {
	scanned := 0
	for _, line := range eventLines {
		if checkEventRoads(t, []byte(line)) {
			scanned++
		}
	}
	if scanned < 20 {
		t.Errorf("the scanner took %d of the %d lines; it should take grind's own", scanned, len(eventLines))
	}
	// DMV lines as grind writes them take scanDMV's template.
	for _, line := range eventLines[:4] {
		var e Event
		f := eventFields{loglik: math.NaN()}
		if !f.scanDMV(&e, []byte(line)) {
			t.Errorf("%s: not taken by scanDMV", line)
		}
	}
	// Lines grind writes always take the short road.
	for _, line := range eventLines[:13] {
		var e Event
		f := eventFields{loglik: math.NaN()}
		if !f.scan(&e, []byte(line)) {
			t.Errorf("%s: left to the codec", line)
		}
	}
}

func FuzzEventRoads(f *testing.F) {
	for _, line := range eventLines {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkEventRoads(t, data) })
}

var sentenceLines = []string{
	`{"id":"wsj_0001.mrg#1","words":["Pierre","Vinken"],"tags":["NNP","NNP"],"heads":[2,0]}`,
	`{"tags":["A","B"],"pred":[0,1],"gold_tags":["X","Y"]}`,
	`{"tags":[],"words":[],"heads":[]}`,
	`{ "tags" : [ "A" ] , "heads" : [ 0 ] }`,
	`{"tags":["A"],"heads":[-1]}`,
	`{}`,
	`{"id":"s","words":["I","do","n't"],"tags":["PRON","AUX","PART"],"heads":[2,0,2],"xpos":["PRP","VBP","RB"],"text":"I don't","no_space_after":[3]}`,
	`{"words":["do","n't"],"tags":["AUX","PART"],"multiword":[{"last":2,"form":"don't","first":1}],"text":"don't"}`,
	`{"words":["a","b"],"tags":["X","Y"],"multiword":[]}`,
	// Left to the codec (without the words, the scanner takes the first
	// three: it skips the text and forms, escapes and all).
	`{"words":["a"],"tags":["X"],"text":"say \"a\" \u00e9\\\/\b\f\n\r\t"}`,
	`{"words":["a","b"],"tags":["X","Y"],"multiword":[{"first":1,"last":2,"form":"\"ab"}]}`,
	`{"words":["a"],"tags":["X"],"text":"\x"}`,
	`{"words":["a"],"tags":["X"],"text":"\u00g0"}`,
	`{"words":["a","b"],"tags":["X","Y"],"multiword":[{"first":1,"last":2,"form":"ab","note":1}]}`,
	`{"words":["a","b"],"tags":["X","Y"],"multiword":[{"first":1.5,"last":2,"form":"ab"}]}`,
	`{"tags":["A"],"heads":[0],"note":{"x":1}}`,
	`{"tags":["A\u0042"]}`,
	`{"tags":["A"],"tags":["B"]}`,
	`{"tags":["A"],"heads":[0.5]}`,
	`{"tags":null}`,
	`{"ev":"root","tags":["A"]}`,
	`{"tags":["A"]} {}`,
}

func checkSentenceRoads(t *testing.T, data []byte) bool {
	t.Helper()
	var long Sentence
	tags := tagInterner(data)
	err := decodeObject(data, "sentence", func(it *jsoniter.Iterator, field string) {
		long.decodeField(it, field, tags)
	})
	var short Sentence
	tookShort := short.scan(data)
	if tookShort && err != nil {
		t.Fatalf("%q: the scanner took it, the codec refuses it: %v", data, err)
	}
	if tookShort && !reflect.DeepEqual(short, long) {
		t.Fatalf("%q: the scanner reads %+v, the codec %+v", data, short, long)
	}
	// Without the words: the same but for Words (and the CoNLL-U fields,
	// which go with them), and, when the scanner takes
	// the line with the words, only when the words are as many as the tags.
	// It may take more (a text with escapes, which it skips).
	var lean Sentence
	took := lean.scanWords(data, false, nil)
	if tookShort && took != (long.Words == nil || len(long.Words) == len(long.Tags)) {
		t.Fatalf("%q: read without words: %v", data, took)
	}
	if took && err != nil {
		t.Fatalf("%q: the scanner without words took it, the codec refuses it: %v", data, err)
	}
	if took {
		long.Words, long.UPOS, long.XPOS, long.Text, long.Multiword, long.NoSpaceAfter = nil, nil, nil, "", nil, nil
		if !reflect.DeepEqual(lean, long) {
			t.Fatalf("%q: the scanner without words reads %+v, the codec %+v", data, lean, long)
		}
	}
	// Into the arrays of an earlier record (a reused record), empty or
	// not: the same sentence.
	for _, bufs := range []sentenceBufs{{}, {tags: []string{"X", "Y", "Z"}, heads: []int{7, 8, 9}}} {
		var reused Sentence
		if reused.scanWords(data, false, &bufs) != took {
			t.Fatalf("%q: read into reused arrays: taken %v, without them %v", data, !took, took)
		}
		if took && !reflect.DeepEqual(reused, lean) {
			t.Fatalf("%q: read into reused arrays %+v, into new ones %+v", data, reused, lean)
		}
	}
	return tookShort
}

func TestSentenceOrLatticeNoWords(t *testing.T) {
	var r SentenceOrLatticeNoWords
	if err := Unmarshal([]byte(`{"id":"a","words":["x","y"],"tags":["A","B"],"heads":[2,0]}`), &r); err != nil {
		t.Fatal(err)
	}
	if s := r.Sentence; s == nil || s.Words != nil || s.ID != "a" || len(s.Tags) != 2 || r.Validate() != nil {
		t.Errorf("read %+v", s)
	}
	if err := Unmarshal([]byte(`{"words":["x"],"tags":["A","B"]}`), &r); err != nil {
		t.Fatal(err)
	}
	if err := r.Validate(); err == nil || err.Error() != "1 words but 2 tags" {
		t.Errorf("words and tags of different lengths: %v", err)
	}
	if err := Unmarshal([]byte(`{"tags":["A","B"],"states":3,"start":0,"final":[2],"arcs":[[0,1,"A"],[1,2,"B"]]}`), &r); err != nil || r.Lattice == nil {
		t.Errorf("a lattice: %+v, %v", r, err)
	}
}

func TestSentenceRoadsAgree(t *testing.T) {
	for i, line := range sentenceLines {
		if took := checkSentenceRoads(t, []byte(line)); took != (i < 9) {
			t.Errorf("%s: scanner took it: %v", line, took)
		}
		var lean Sentence
		if took := lean.scanWords([]byte(line), false, nil); i >= 9 && took != (i < 11) {
			t.Errorf("%s: scanner without words took it: %v", line, took)
		}
	}
	// Sentences as grind writes them take scanTemplate's road.
	for _, line := range []string{sentenceLines[0], `{"tags":["A"]}`, `{"id":"x","tags":["A","B"],"heads":[2,0]}`, sentenceLines[6],
		`{"words":["a","b"],"tags":["X","Y"],"upos":["x","y"],"text":"ab","multiword":[{"first":1,"last":2,"form":"ab"}],"no_space_after":[2]}`} {
		for _, keep := range []bool{true, false} {
			var s Sentence
			if !s.scanTemplate([]byte(line), keep, nil) {
				t.Errorf("%s: not taken by scanTemplate", line)
			}
		}
	}
}

// The CoNLL-U fields a reader without words checks and skips (estep's
// upos, xpos and no_space_after): each line read as the codec reads it,
// or left to it.
var conllSkipLines = []string{
	`{"tags":["A","B"],"upos":["x","y"],"no_space_after":[1,2]}`,
	`{"tags":["A"],"upos":[]}`,
	`{"tags":["A"],"xpos":[ "x" ],"no_space_after":[ 1 ]}`,
	`{"tags":["A"],"upos":["\u0078"]}`,
	`{"tags":["A"],"upos":[1]}`,
	`{"tags":["A"],"upos":["x",]}`,
	`{"tags":["A"],"upos":["x"`,
	`{"tags":["A"],"upos":["x"]`,
	`{"tags":["A"],"no_space_after":[` + strings.Repeat("1,", 70) + `1]}`,
	`{"tags":["A"],"no_space_after":[1.5]}`,
	`{"tags":["A"],"no_space_after":["1"]}`,
	`{"tags":["A"],"no_space_after":[1,]}`,
}

func TestSentenceRoadsSkipCoNLLFields(t *testing.T) {
	for _, line := range conllSkipLines {
		checkSentenceRoads(t, []byte(line))
	}
	var s Sentence
	if !s.scanTemplate([]byte(conllSkipLines[0]), false, nil) || !s.scanTemplate([]byte(conllSkipLines[8]), false, nil) {
		t.Errorf("plain CoNLL-U fields not skipped by scanTemplate")
	}
}

func FuzzSentenceRoads(f *testing.F) {
	for _, line := range slices.Concat(sentenceLines, conllSkipLines) {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSentenceRoads(t, data) })
}

// appendString must escape exactly as the codec does.
func TestAppendStringAsCodec(t *testing.T) {
	for _, s := range []string{"", "NN", "<>", `a"b`, `a\b`, "tab\there", "é", "\u2028", "\xff", "\x00", "-LRB-", "\x7f", "<a href=\"x\">&amp;</a>"} {
		st := codec.BorrowStream(nil)
		st.WriteString(s)
		want := string(st.Buffer())
		codec.ReturnStream(st)
		if got := string(appendString(nil, s)); got != want {
			t.Errorf("%q: %s, the codec writes %s", s, got, want)
		}
	}
}

// Every event kind written by AppendJSON reads back the same.
func TestAppendJSONRoundTrip(t *testing.T) {
	for _, line := range eventLines[:14] {
		var e Event
		if err := Unmarshal([]byte(line), &e); err != nil {
			if line == eventLines[7] {
				continue // a header with -1 events is refused
			}
			t.Fatalf("%s: %v", line, err)
		}
		if got := string(e.AppendJSON(nil)); got != line {
			t.Errorf("%s written back as %s", line, got)
		}
	}
}

// special8 against byte by byte: every byte value in every position,
// among random others.
func TestSpecial8(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	for trial := 0; trial < 20000; trial++ {
		var b [8]byte
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(3) > 0 { // mostly plain text
				b[i] = byte(0x20 + rng.IntN(0x5f))
			}
		}
		b[trial%8] = byte(trial / 8 % 256)
		want := false
		for _, c := range b {
			want = want || special(c)
		}
		m := special8(binary.LittleEndian.Uint64(b[:]))
		if got := m != 0; got != want {
			t.Fatalf("% x: special8 says %v", b, got)
		}
		if m != 0 && !special(b[bits.TrailingZeros64(m)/8]) {
			t.Fatalf("% x: special8's lowest mark is on byte %d, not special", b, bits.TrailingZeros64(m)/8)
		}
	}
}

// AppendDMV writes what AppendJSON writes, its tags quoted beforehand.
func TestAppendDMVAsAppendJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tags := []string{"NN", "VBD", "<>", "a\"b", "é", "x\\y", "tab\t", ""}
	values := []float64{0, math.Copysign(0, -1), 5e-324, 1e-300, 1, 7, 1e22, 168.463438845793, 0.031272218089064975, -2.5, math.Inf(1), math.NaN()}
	for range 5000 {
		e := Event{Ev: []string{EvRoot, EvChild, EvStop, EvCont}[rng.IntN(4)], Unit: Unit("npw"[rng.IntN(3)]), Value: values[rng.IntN(len(values))]}
		if e.Ev != EvRoot {
			e.Head, e.Dir = tags[rng.IntN(len(tags))], []string{Left, Right, "up"}[rng.IntN(3)]
		}
		if e.Ev == EvRoot || e.Ev == EvChild {
			e.Arg = tags[rng.IntN(len(tags))]
		}
		if e.Ev == EvStop || e.Ev == EvCont {
			e.Adj = rng.IntN(2) == 0
		}
		var head, arg []byte
		if e.Head != "" || e.Ev != EvRoot {
			head = AppendQuoted(nil, e.Head)
		}
		if e.Ev == EvRoot || e.Ev == EvChild {
			arg = AppendQuoted(nil, e.Arg)
		}
		got := AppendDMV([]byte("x"), e.Ev, head, e.Dir, e.Adj, arg, e.Unit, e.Value)
		want := e.AppendJSON([]byte("x"))
		if string(got) != string(want) {
			t.Fatalf("%+v: AppendDMV writes %s, AppendJSON %s", e, got, want)
		}
	}
}

// ScanPlainRecord takes a line only when the codec reads the same
// strings and number from it.
func TestScanPlainRecordAgreesWithCodec(t *testing.T) {
	keys := []string{"ev", "left", "right", "w"}
	pieces := [][]string{
		{`{"ev":`, `{ "ev":`, `{"ew":`, `{"ev" :`},
		{`"uedge"`, `"u\"e"`, `"ü"`, `""`, `"a\u0041"`, `7`},
		{`,"left":`, `, "left":`, `,"right":`},
		{`"NN"`, `"-s"`, `"N N"`, `"\\"`},
		{`,"right":`, `,"left":`},
		{`"VB"`, `"b-"`, `"\t"`},
		{`,"w":`, `,"w": `, `,"n":`},
		{`1`, `-0`, `0.1`, `2.3443873878183656`, `1e-7`, `-1.5E+3`, `1e400`, `01`, `.5`, `1.`, `-`, `"1"`, `true`, `123456789012345678901234567890`},
		{`}`, ` }`, `}x`, `,"affix":"left"}`, ``},
	}
	r := rand.New(rand.NewPCG(5, 6))
	vals := make([][]byte, len(keys)-1)
	taken := 0
	for range 20000 {
		var b strings.Builder
		for _, p := range pieces { // each piece's first as written, half the time
			if r.IntN(2) == 0 {
				b.WriteString(p[0])
			} else {
				b.WriteString(p[r.IntN(len(p))])
			}
		}
		line := []byte(b.String())
		w, ok := ScanPlainRecord(line, keys, vals)
		if !ok {
			continue
		}
		taken++
		var rec struct {
			Ev, Left, Right string
			W               float64
		}
		if err := Unmarshal(line, &rec); err != nil {
			t.Fatalf("%s: taken, but the codec says %v", line, err)
		}
		got := []string{string(vals[0]), string(vals[1]), string(vals[2])}
		if want := []string{rec.Ev, rec.Left, rec.Right}; !slices.Equal(got, want) || math.Float64bits(w) != math.Float64bits(rec.W) {
			t.Fatalf("%s: read %q %v, the codec %q %v", line, got, w, want, rec.W)
		}
	}
	if taken < 100 {
		t.Fatalf("only %d lines taken", taken)
	}
}

// SentenceNoWords reads every line as Sentence does — the same error, or
// the same record but for what its short road leaves out: the words of a
// sentence with as many words as tags, and the CoNLL-U fields, whose
// syntax alone it checks (as estep's reader does) — and Validate gives the
// same verdict on what is kept, line after line into one reused record.
func TestSentenceNoWords(t *testing.T) {
	lines := append(append([]string{}, sentenceLines...), conllSkipLines...)
	lines = append(lines,
		`{"id":"a","words":["x","y"],"tags":["A","B"],"heads":[2,0]}`,
		`{"words":["x"],"tags":["A","B"]}`,
		`{"words":["x","y"]}`,
		`{"tags":["A","B"],"states":3,"start":0,"final":[2],"arcs":[[0,1,"A"],[1,2,"B"]]}`,
		`{"tags":"A"}`, `[1]`, `{"tags":["A"],"heads":[0]`)
	var r SentenceNoWords
	short := 0
	for _, line := range lines {
		var want Sentence
		wantErr := Unmarshal([]byte(line), &want)
		r.ResetForReuse()
		err := Unmarshal([]byte(line), &r)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%s: error %v, Sentence's %v", line, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		got := *r.Sentence
		if r.Sentence == r.spare { // the short road's
			short++
			if len(want.Words) == len(want.Tags) {
				want.Words = nil
			}
			want.UPOS, want.XPOS, want.Text, want.Multiword, want.NoSpaceAfter = nil, nil, "", nil, nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read %+v, Sentence %+v", line, got, want)
		}
		if fmt.Sprint(got.Validate()) != fmt.Sprint(want.Validate()) {
			t.Errorf("%s: Validate %v, Sentence's %v", line, got.Validate(), want.Validate())
		}
	}
	if short < len(lines)/3 {
		t.Errorf("the short road took %d of %d lines", short, len(lines))
	}
}
